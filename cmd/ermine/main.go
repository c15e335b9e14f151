// Command ermine runs an Ermine chat server: the HTTP API, the events
// WebSocket and the file service on one port, with embedded defaults
// (SQLite under ./data, an in-process event bus, files on local disk).
//
// Usage:
//
//	ermine [flags]          serve (the default)
//	ermine [flags] serve    serve
//	ermine [flags] config   print the effective configuration, secrets masked
//
// Flags: --config file.toml, --listen host:port, --data dir. Every setting
// can also be given as an ERMINE_* environment variable; see
// ermine.example.toml.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"ermine/internal/config"
	"ermine/internal/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "ermine:", err)
		os.Exit(1)
	}
}

// shutdownGrace is how long in-flight requests get to finish.
const shutdownGrace = 15 * time.Second

// run parses the command line and runs the chosen command until ctx ends.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, rest, err := config.Load(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, config.Usage())
		return err
	}
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	cmd := "serve"
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
	}
	switch cmd {
	case "serve":
		if len(rest) > 0 {
			return fmt.Errorf("serve: unexpected arguments %q", rest)
		}
		return serve(ctx, cfg, newLogger(cfg.Log, stderr))
	case "config":
		out, err := cfg.Masked().TOML()
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, out)
		return err
	}
	return fmt.Errorf("unknown command %q (want serve or config)", cmd)
}

// serve runs the server until ctx ends, then shuts it down gracefully.
func serve(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	srv, err := server.Start(ctx, cfg, log)
	if err != nil {
		return err
	}
	select {
	case err := <-srv.Done():
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToUpper(c.Level)))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
