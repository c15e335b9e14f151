package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/importer"
	"ermine/internal/importer/discord"
	"ermine/internal/perm"
	"ermine/internal/server"
	"ermine/internal/store"
)

// importDiscord runs "import discord --server NAME [--owner USER]
// FILE_OR_DIR...": DiscordChatExporter JSON exports become one server
// of this instance (docs/importing-discord.md).
func importDiscord(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import discord", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("server", "", "name of the server the exports become")
	owner := fs.String("owner", "", "the user who owns it (id or name#discriminator); default: the only privileged user")
	tmp := fs.String("tmp", "", "directory for temporary files (default: the system's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" || fs.NArg() == 0 {
		return errors.New("import discord: want \"import discord --server NAME [--owner USER] FILE_OR_DIR...\"")
	}
	files, err := discord.Find(fs.Args())
	if err != nil {
		return fmt.Errorf("import discord: %w", err)
	}
	if len(files) == 0 {
		return errors.New("import discord: no .json export files found")
	}
	// Every file is checked before anything is written.
	for _, f := range files {
		if _, err := discord.ReadHeader(f); err != nil {
			return fmt.Errorf("import discord: %w", err)
		}
	}
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	blobs, err := server.OpenBlobs(ctx, cfg)
	if err != nil {
		return err
	}
	a := app.New(app.Deps{Store: st})
	ownerID, err := importOwner(ctx, a, st, *owner)
	if err != nil {
		return fmt.Errorf("import discord: %w", err)
	}
	p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "discord", Command: commandLine("import", append([]string{"discord"}, args...)),
		Progress: stderr, Terminal: isTerminal(stderr), TempDir: *tmp, Into: true})
	if err != nil {
		return fmt.Errorf("import discord: %w", err)
	}
	if p.Resumed() {
		fmt.Fprintln(stderr, "import: resuming the unfinished import")
	}
	start := time.Now()
	sum, err := discord.Import(ctx, p, files, discord.Options{ServerName: *name, Owner: ownerID,
		DefaultPermissions: perm.DefaultServer.Int64(), Name: a.ImportName, EmojiLimit: cfg.Limits.ServerEmoji})
	if err != nil {
		return fmt.Errorf("import discord: %w (the import is unfinished: fix the cause and run the same command again to resume)", err)
	}
	report, err := p.Finish(ctx)
	if err != nil {
		return err
	}
	if err := report.Write(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "server %s %q: %d channels, %d authors, %d messages read\n", sum.Server, *name, sum.Channels, sum.Users, sum.Messages)
	return speed(stdout, report, start)
}

// importOwner resolves --owner, or finds the instance's only privileged
// user when it is not given.
func importOwner(ctx context.Context, a *app.App, st store.Store, ref string) (chat.ID, error) {
	if ref != "" {
		u, err := a.AdminFetchUser(ctx, app.Operator(), chat.ID(ref))
		if err != nil {
			return "", fmt.Errorf("owner %q: %w", ref, err)
		}
		if u.User.Flags&chat.UserFlagImported != 0 || u.User.Bot != nil {
			return "", fmt.Errorf("owner %q: not a person's account", ref)
		}
		return u.User.ID, nil
	}
	var found []chat.ID
	var after chat.ID
	for {
		us, err := st.SearchUsers(ctx, store.UserSearch{After: after, Limit: 1000})
		if err != nil {
			return "", err
		}
		for _, u := range us {
			if u.Privileged && u.Bot == nil {
				found = append(found, u.ID)
			}
		}
		if len(us) < 1000 {
			break
		}
		after = us[len(us)-1].ID
	}
	if len(found) != 1 {
		return "", fmt.Errorf("name the server's owner with --owner USER (the instance has %d privileged users to choose from)", len(found))
	}
	return found[0], nil
}
