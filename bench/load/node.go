package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"time"

	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/perm"
	"ermine/internal/server"
)

// node is the Ermine node under load.
type node struct {
	srv       *server.Server
	url       string
	storeName string
	stop      func()
}

func gomaxprocs() int { return runtime.GOMAXPROCS(0) }

// startNode starts a node on a loopback port: SQLite in a temporary
// directory, or PostgreSQL in a new schema of database that is dropped
// again by stop.
func startNode(ctx context.Context, database string) (*node, error) {
	dir, err := os.MkdirTemp("", "ermine-load-")
	if err != nil {
		return nil, err
	}
	cleanups := []func(){func() { os.RemoveAll(dir) }}
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	cfg.Data = dir
	name := "sqlite"
	if database != "" {
		schemaURL, drop, err := freshSchema(ctx, database)
		if err != nil {
			cleanup()
			return nil, err
		}
		cleanups = append(cleanups, drop)
		cfg.Database.URL = schemaURL
		name = "postgres"
	}
	if err := cfg.Validate(); err != nil {
		cleanup()
		return nil, err
	}
	srv, err := server.Start(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		cleanup()
		return nil, err
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			fmt.Fprintln(os.Stderr, "ermine-load: shutdown:", err)
		}
		cleanup()
	}
	return &node{srv: srv, url: "http://" + srv.Addr(), storeName: name, stop: stop}, nil
}

// freshSchema creates an empty schema in the database at dsn and returns
// a URL whose search_path selects it, and a function dropping it.
func freshSchema(ctx context.Context, dsn string) (string, func(), error) {
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("ermine_load_%d", time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	drop := func() {
		if _, err := admin.Exec("DROP SCHEMA " + name + " CASCADE"); err != nil {
			fmt.Fprintln(os.Stderr, "ermine-load: drop schema:", err)
		}
		admin.Close()
	}
	u, err := url.Parse(dsn)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// sender is a user with a session token.
type sender struct {
	id    chat.ID
	token string
}

// world is what the load runs against: users who are all members of
// every server, and the servers' channels.
type world struct {
	users    []sender
	channels []chat.ID
}

// seed creates users with sessions, servers with their channels spread
// evenly among them, and every user's membership of every server,
// directly in the node's store.
// Usernames start with prefix, which must differ between seeds of one node.
func seed(ctx context.Context, n *node, prefix string, users, servers, channels int) (*world, error) {
	st := n.srv.Store
	// Accounts older than the new-user window, like established users.
	born := time.Now().Add(-30 * 24 * time.Hour)
	w := &world{}
	for i := range users {
		id := chat.NewIDAt(born)
		token := chat.NewToken(64)
		if err := st.InsertUser(ctx, &chat.User{ID: id, Username: fmt.Sprintf("%s%d", prefix, i), Discriminator: "0001"}); err != nil {
			return nil, fmt.Errorf("seed user: %w", err)
		}
		if err := st.InsertSession(ctx, &chat.Session{ID: chat.NewID(), UserID: id, Token: token, Name: "load"}); err != nil {
			return nil, fmt.Errorf("seed session: %w", err)
		}
		w.users = append(w.users, sender{id: id, token: token})
	}
	for i := range servers {
		s := &chat.Server{ID: chat.NewID(), Owner: w.users[0].id, Name: "load", Channels: []chat.ID{},
			DefaultPermissions: int64(perm.DefaultServer)}
		for j := i; j < channels; j += servers {
			ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: s.ID, Name: "load"}
			if err := st.InsertChannel(ctx, ch); err != nil {
				return nil, fmt.Errorf("seed channel: %w", err)
			}
			w.channels = append(w.channels, ch.ID)
			s.Channels = append(s.Channels, ch.ID)
		}
		if err := st.InsertServer(ctx, s); err != nil {
			return nil, fmt.Errorf("seed server: %w", err)
		}
		for _, u := range w.users {
			m := &chat.Member{ID: chat.MemberID{Server: s.ID, User: u.id}, JoinedAt: chat.Now()}
			if err := st.InsertMember(ctx, m); err != nil {
				return nil, fmt.Errorf("seed member: %w", err)
			}
		}
	}
	return w, nil
}
