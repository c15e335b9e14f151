package testbed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"ermine/internal/config"
	"ermine/internal/server"
)

// Node is a node running in this process, on a loopback port.
type Node struct {
	*server.Server
	URL         string // http://host:port
	StoreName   string // "sqlite" or "postgres"
	SQLitePath  string // the SQLite file; "" on PostgreSQL
	DatabaseURL string // the PostgreSQL URL of the node's schema; "" on SQLite
	cleanup     []func() error
}

// StartNode starts a node in-process with its normal configuration on a
// free loopback port: SQLite in a temporary directory, or, when database
// is a PostgreSQL URL, a fresh schema of that database. name prefixes
// the directory and the schema. Stop shuts the node down and removes
// both.
func StartNode(ctx context.Context, name, database string) (*Node, error) {
	dir, err := os.MkdirTemp("", name+"-")
	if err != nil {
		return nil, err
	}
	n := &Node{StoreName: "sqlite", cleanup: []func() error{func() error { return os.RemoveAll(dir) }}}
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	cfg.Data = dir
	if database != "" {
		schema, drop, err := FreshSchema(ctx, database, name)
		if err != nil {
			return nil, errors.Join(err, n.close())
		}
		n.cleanup = append(n.cleanup, drop)
		cfg.Database.URL, n.DatabaseURL, n.StoreName = schema, schema, "postgres"
	} else {
		n.SQLitePath = cfg.SQLitePath()
	}
	if err := cfg.Validate(); err != nil {
		return nil, errors.Join(err, n.close())
	}
	srv, err := server.Start(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, errors.Join(err, n.close())
	}
	n.Server, n.URL = srv, "http://"+srv.Addr()
	return n, nil
}

// Stop shuts the node down (waiting up to 30 s for what is in flight)
// and removes its data.
func (n *Node) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return errors.Join(n.Shutdown(ctx), n.close())
}

// StopReporting stops the node as Stop does and says on stderr what
// failed, for a tool's deferred clean-up.
func (n *Node) StopReporting(tool string) {
	if err := n.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: stop: %v\n", tool, err)
	}
}

// close removes what StartNode made, newest first.
func (n *Node) close() error {
	var errs []error
	for i := len(n.cleanup) - 1; i >= 0; i-- {
		errs = append(errs, n.cleanup[i]())
	}
	return errors.Join(errs...)
}
