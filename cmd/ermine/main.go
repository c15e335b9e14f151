// Command ermine runs an Ermine chat server: the HTTP API, the events
// WebSocket and the file service on one port, with embedded defaults
// (SQLite under ./data, an in-process event bus, files on local disk).
//
// Usage:
//
//	ermine [flags]          serve (the default)
//	ermine [flags] serve    serve
//	ermine [flags] config   print the effective configuration, secrets masked
//	ermine [flags] invite create [n]
//	                        make n registration invite codes (default 1) and print them
//	ermine [flags] invite list
//	                        list the registration invite codes and who used them
//	ermine [flags] admin COMMAND ...
//	                        run the platform: users, reports, export (ermine admin help)
//	ermine vapid generate   print a new VAPID key pair for [push]
//	ermine [flags] backup [--files] FILE
//	                        copy the SQLite database (and uploads) while serving
//	ermine [flags] export [--server ID] FILE
//	                        the instance (or a server) in the bulk format
//	ermine [flags] import revolt|bulk|discord ...
//	                        move a Revolt/Stoat instance, an export or Discord exports in
//	ermine [flags] restore [--force] FILE
//	                        put a backup in place (server stopped)
//	ermine plugin validate FILE...
//	                        check web client plugin manifests (web/PLUGINS.md)
//	ermine version          print the version and commit (also --version)
//	ermine help [COMMAND]   describe the commands (also --help, COMMAND --help)
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
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"ermine/internal/app"
	"ermine/internal/config"
	"ermine/internal/server"
	"ermine/internal/webapp"
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
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		printVersion(stdout)
		return nil
	}
	cfg, rest, err := config.Load(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage())
		return err
	}
	if err != nil {
		return fmt.Errorf("%w (ermine --help lists the flags and commands)", err)
	}
	cmd := "serve"
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
	}
	// Help and the version need no valid configuration.
	switch {
	case cmd == "help" && len(rest) == 0:
		fmt.Fprint(stdout, usage())
		return nil
	case cmd == "help" && !isHelp(rest):
		cmd, rest = rest[0], []string{"--help"}
	case cmd == "version" && !isHelp(rest):
		printVersion(stdout)
		return nil
	}
	if isHelp(rest) {
		h := commandHelp(cmd)
		if h == "" {
			return fmt.Errorf("unknown command %q (ermine --help lists the commands)", cmd)
		}
		fmt.Fprint(stdout, h)
		return nil
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	switch cmd {
	case "serve":
		if len(rest) > 0 {
			return fmt.Errorf("serve: unexpected arguments %q", rest)
		}
		log := newLogger(cfg.Log, stderr)
		for _, name := range config.UnknownEnv(environ()) {
			log.Warn("environment variable names no setting and is ignored (ermine --help explains the names)", "name", name)
		}
		return serve(ctx, cfg, log)
	case "config":
		out, err := cfg.Masked().TOML()
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, out)
		return err
	case "invite":
		return invite(ctx, cfg, rest, stdout)
	case "admin":
		return admin(ctx, cfg, rest, stdout, stderr)
	case "vapid":
		return vapid(rest, stdout)
	case "backup":
		return backup(ctx, cfg, rest, stdout, stderr)
	case "export":
		return export(ctx, cfg, rest, stdout, stderr)
	case "restore":
		return restore(cfg, rest, stdout, stderr)
	case "plugin":
		return plugin(rest, stdout, stderr)
	case "import":
		return importCmd(ctx, cfg, rest, stdout, stderr)
	}
	return fmt.Errorf("unknown command %q (ermine --help lists the commands)", cmd)
}

// environ is the process's environment; tests replace it.
var environ = os.Environ

// plugin runs "plugin validate FILE...": each file must hold a client
// plugin manifest (revision 1) that the web client's plugin manager
// would accept; the rules are webapp.ParseManifest's.
func plugin(args []string, stdout, stderr io.Writer) error {
	if len(args) < 2 || args[0] != "validate" {
		return errors.New("plugin: want \"plugin validate FILE...\"")
	}
	bad := 0
	for _, name := range args[1:] {
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("plugin validate: %w", err)
		}
		m, warnings, err := webapp.ParseManifest(data)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "%s: warning: %s\n", name, w)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: invalid: %v\n", name, err)
			bad++
			continue
		}
		state := "enabled"
		if !m.Enabled {
			state = "disabled"
		}
		fmt.Fprintf(stdout, "%s: valid plugin %s/%s %s (%s)\n", name, m.Namespace, m.ID, m.Version, state)
	}
	if bad > 0 {
		return fmt.Errorf("plugin validate: %d of %d manifests are invalid", bad, len(args)-1)
	}
	return nil
}

// invite runs "invite create [n]" and "invite list" against the store
// the configuration names (the server may be running meanwhile).
func invite(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	usage := errors.New("invite: want \"invite create [--create-instance] [n]\" or \"invite list\"")
	create := false
	if len(args) > 1 && args[0] == "create" && args[1] == "--create-instance" {
		create, args = true, append([]string{"create"}, args[2:]...)
	}
	if len(args) == 0 || args[0] == "create" && len(args) > 2 || args[0] == "list" && len(args) > 1 {
		return usage
	}
	n := 1
	if args[0] == "create" && len(args) == 2 {
		var err error
		if n, err = strconv.Atoi(args[1]); err != nil || n < 1 || n > 1000 {
			return fmt.Errorf("invite create: count %q is not a number from 1 to 1000", args[1])
		}
	}
	if args[0] != "create" && args[0] != "list" {
		return usage
	}
	if !create {
		if err := server.CheckInstance(ctx, cfg); err != nil {
			return fmt.Errorf("invite: %w (invite create --create-instance makes a new instance on purpose)", err)
		}
	}
	release, err := server.LockDataDir(cfg.Data, false)
	if err != nil {
		return err
	}
	defer func() { _ = release() }()
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	a := app.New(app.Deps{Store: st})
	if args[0] == "create" {
		invs, err := a.CreateRegistrationInvites(ctx, app.Operator(), n)
		if err != nil {
			return err
		}
		for _, inv := range invs {
			fmt.Fprintln(stdout, inv.Code)
		}
		return nil
	}
	invs, err := a.RegistrationInvites(ctx, app.Operator())
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CODE\tCREATED\tUSED BY")
	for _, inv := range invs {
		used := "-"
		if inv.UsedBy != nil {
			used = string(*inv.UsedBy)
		} else if inv.Used {
			used = "(used)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", inv.Code, inv.Created, used)
	}
	return tw.Flush()
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
