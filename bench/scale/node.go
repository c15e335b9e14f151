package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"time"

	"ermine/internal/config"
	"ermine/internal/server"
)

// node is the Ermine node under load.
type node struct {
	srv       *server.Server
	dbPath    string // SQLite file, "" on PostgreSQL
	dbURL     string // PostgreSQL URL of the node's schema, "" on SQLite
	url       string
	storeName string
	stop      func()
}

// startNode starts a node on a loopback port: SQLite in a temporary
// directory, or PostgreSQL in a new schema of database that is dropped
// again by stop.
func startNode(ctx context.Context, database string) (*node, error) {
	dir, err := os.MkdirTemp("", "ermine-scale-")
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
			fmt.Fprintln(os.Stderr, "ermine-scale: shutdown:", err)
		}
		cleanup()
	}
	n := &node{srv: srv, url: "http://" + srv.Addr(), storeName: name, stop: stop, dbURL: cfg.Database.URL}
	if database == "" {
		n.dbPath = cfg.SQLitePath()
	}
	return n, nil
}

// freshSchema creates an empty schema in the database at dsn and returns
// a URL whose search_path selects it, and a function dropping it.
func freshSchema(ctx context.Context, dsn string) (string, func(), error) {
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("ermine_scale_%d", time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	drop := func() {
		if _, err := admin.Exec("DROP SCHEMA " + name + " CASCADE"); err != nil {
			fmt.Fprintln(os.Stderr, "ermine-scale: drop schema:", err)
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
