package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/perm"
	"ermine/internal/server"
	"ermine/internal/store"
)

// world is what the load runs against.
type world struct {
	kind    target
	users   []member // users[0] sends the messages
	channel chat.ID
}

// member is a user with a session token.
type member struct {
	id    chat.ID
	token string
}

// seedBatch is how many users are written per transaction.
const seedBatch = 500

// seed writes n users with sessions, a server owned by the first with one
// text channel, and every user's membership into the store the servers
// open afterwards: the SQLite store of the data directory dir, or the
// PostgreSQL database env's ERMINE_DATABASE_URL names.
func seed(ctx context.Context, dir string, env []string, n int, visible bool) (*world, error) {
	cfg := config.Default()
	cfg.Data = dir
	for _, kv := range env {
		if u, ok := strings.CutPrefix(kv, "ERMINE_DATABASE_URL="); ok {
			cfg.Database.URL = u
		}
	}
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	// Established accounts, older than the new-user window.
	born := time.Now().Add(-30 * 24 * time.Hour)
	var status *chat.UserStatus
	if !visible {
		invisible := chat.PresenceInvisible
		status = &chat.UserStatus{Presence: &invisible}
	}
	w := &world{kind: targetErmine, users: make([]member, n)}
	for i := range w.users {
		w.users[i] = member{id: chat.NewIDAt(born), token: chat.NewToken(64)}
	}
	srv := &chat.Server{ID: chat.NewID(), Owner: w.users[0].id, Name: "fanout",
		DefaultPermissions: int64(perm.DefaultServer)}
	ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: srv.ID, Name: "everyone"}
	srv.Channels = []chat.ID{ch.ID}
	w.channel = ch.ID
	for lo := 0; lo < n; lo += seedBatch {
		batch := w.users[lo:min(lo+seedBatch, n)]
		err := st.InTx(ctx, func(tx store.Store) error {
			for i, u := range batch {
				name := fmt.Sprintf("fanout%d", lo+i)
				email := name + "@ermine.test"
				if err := tx.InsertAccount(ctx, &chat.Account{ID: u.id, Email: email, EmailNormalised: email,
					PasswordHash: "!", Verified: true}); err != nil {
					return fmt.Errorf("seed account: %w", err)
				}
				if err := tx.InsertUser(ctx, &chat.User{ID: u.id, Username: name, Discriminator: "0001",
					Status: status}); err != nil {
					return fmt.Errorf("seed user: %w", err)
				}
				if err := tx.InsertSession(ctx, &chat.Session{ID: chat.NewID(), UserID: u.id, Token: u.token,
					Name: "fanout"}); err != nil {
					return fmt.Errorf("seed session: %w", err)
				}
			}
			if lo == 0 {
				if err := tx.InsertServer(ctx, srv); err != nil {
					return fmt.Errorf("seed server: %w", err)
				}
				if err := tx.InsertChannel(ctx, ch); err != nil {
					return fmt.Errorf("seed channel: %w", err)
				}
			}
			for _, u := range batch {
				m := &chat.Member{ID: chat.MemberID{Server: srv.ID, User: u.id}, JoinedAt: chat.Now()}
				if err := tx.InsertMember(ctx, m); err != nil {
					return fmt.Errorf("seed member: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return w, nil
}

// nodeEnv is the environment of every node of a several-node run.
func (o options) nodeEnv() []string {
	var env []string
	if o.bus != "" {
		env = append(env, "ERMINE_BUS_KIND="+o.bus, "ERMINE_BUS_URL="+o.busURL)
	}
	if o.sharedURL != "" {
		env = append(env, "ERMINE_SHARED_URL="+o.sharedURL)
	}
	return env
}

// freshDatabase creates an empty database on the PostgreSQL server of
// dsn and returns its URL and a function that drops it.
func freshDatabase(ctx context.Context, dsn string) (string, func() error, error) {
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, fmt.Errorf("--database: %w", err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	name := "ermine_fanout_" + strings.ToLower(rand.Text()[:12])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("--database: create %s: %w", name, err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", nil, fmt.Errorf("--database: %w", err)
	}
	u.Path = "/" + name
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	return u.String(), drop, nil
}
