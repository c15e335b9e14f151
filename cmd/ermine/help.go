package main

import (
	"fmt"
	"io"
	"strings"

	"ermine/internal/config"
	"ermine/internal/server"
)

// command is one of ermine's subcommands as its help shows it.
type command struct {
	name, synopsis, summary, about string
}

// commands lists every subcommand; `ermine --help` prints them and each
// answers `ermine COMMAND --help` with its own entry.
var commands = []command{
	{"serve", "serve", "run the server (the default command)", `Runs the server: the HTTP API, the events WebSocket, the file service and
the web client on one port (--listen), until interrupted (SIGINT or
SIGTERM), then drains the requests in flight. The default command.`},
	{"config", "config", "print the effective configuration, secrets masked", `Prints the effective configuration (file, environment and flags merged)
as TOML, with secrets masked.`},
	{"invite", "invite create [N] | invite list", "make or list registration invite codes", `Makes N registration invite codes (default 1, at most 1,000) and prints
them, or lists the codes and who used them. For instances with
[accounts] invite_only; works while the server runs.`},
	{"admin", "admin COMMAND [ARGS]", "users, reports, strikes and exports from the shell", `Runs the platform from the shell: users (disable, delete, sessions),
reports, strikes, data exports. "ermine admin help" lists its commands.`},
	{"vapid", "vapid generate", "print a new VAPID key pair for Web Push", `Prints a new VAPID key pair for Web Push, to put in [push].`},
	{"backup", "backup [--files] FILE", "copy the SQLite database (and uploads) while serving", `Copies the SQLite database (and with --files the uploads) to FILE while
the server runs. PostgreSQL and S3 have backups of their own.`},
	{"restore", "restore [--force] FILE", "put a backup in place (server stopped)", `Puts a backup made by "ermine backup" in place of the data directory's
database (and uploads). Stop the server first; --force replaces an
existing database.`},
	{"export", "export [--server ID] FILE", "write the instance (or one server) in the bulk format", `Writes the whole instance, or with --server one server, in Ermine's bulk
format (docs/bulk-format.md): line-delimited JSON records with the files
alongside, as a tar archive (.tar, or .tar.gz/.tgz compressed) or, when
FILE is a directory or ends in "/", as a directory. "ermine import bulk"
reads it back into an empty instance on either database. The export holds
password hashes and session and bot tokens: keep it as safe as the database.`},
	{"import", "import revolt|bulk|discord ...", "move a Revolt/Stoat instance, an Ermine export or Discord exports in", `Moves data in through the import pipeline (batched, resumable, with
progress and a report at the end). Stopped anywhere, running the same
command again resumes; the server will not start until the import ends.
  import revolt --dump DIR [--files DIR] [--encryption-key KEY]
        a whole Revolt/Stoat instance into this one, which must hold no
        users: --dump is what mongodump wrote (a directory, or an --archive
        file, gzipped or not), --files the object store mirrored to a
        directory (<bucket>/<key>), --encryption-key its files.encryption_key.
        Passwords, sessions and bot tokens keep working.
        See docs/moving-from-revolt.md.
  import bulk FILE
        an "ermine export" (tar or directory) into an empty instance, on
        either database (docs/bulk-format.md)
  import discord --server NAME [--owner USER] FILE_OR_DIR...
        DiscordChatExporter JSON exports as one new server, messages keeping
        their dates (docs/importing-discord.md)`},
	{"plugin", "plugin validate FILE...", "check web client plugin manifests", `Checks web client plugin manifests (web/PLUGINS.md) with the rules of
the client's plugin manager.`},
	{"version", "version", "print the version and commit (also --version)", `Prints the version, the commit it was built from and the Go version
(also "ermine --version").`},
	{"help", "help [COMMAND]", "describe the commands, or one", `Prints this help, or a command's.`},
}

// usage is the help of ermine as a whole.
func usage() string {
	var b strings.Builder
	b.WriteString("Usage: ermine [flags] [COMMAND [ARGS]]\n\nErmine is a chat server. Commands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-34s %s\n", c.synopsis, c.summary)
	}
	b.WriteString("\n\"ermine COMMAND --help\" describes a command.\n\n")
	b.WriteString(config.Usage())
	return b.String()
}

// commandHelp is the help of one command, or "" for an unknown one.
func commandHelp(name string) string {
	for _, c := range commands {
		if c.name == name {
			h := "Usage: ermine [flags] " + c.synopsis + "\n\n" + c.about + "\n"
			if name == "admin" {
				h += "\n" + adminUsage
			}
			return h
		}
	}
	return ""
}

// isHelp reports whether args ask for help: --help, -h or help first.
func isHelp(args []string) bool {
	return len(args) > 0 && (args[0] == "--help" || args[0] == "-help" || args[0] == "-h" || args[0] == "help")
}

// printVersion writes the version line.
func printVersion(w io.Writer) {
	b := server.Build()
	commit := b.CommitSHA
	if commit == "unknown" {
		commit = "unknown (built without version control information: use make build, or go build in a clone)"
	}
	fmt.Fprintf(w, "ermine %s\ncommit %s\nbuilt with %s\n", b.Semver, commit, server.GoVersion())
}
