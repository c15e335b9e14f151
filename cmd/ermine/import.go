package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"ermine/internal/config"
	"ermine/internal/importer"
	"ermine/internal/importer/revolt"
	"ermine/internal/server"
)

// importCmd runs "import SOURCE ...": it moves another instance's data
// into the one the configuration names, through the import pipeline.
func importCmd(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("import: want \"import revolt --dump DIR [--files DIR] [--encryption-key KEY]\", \"import bulk FILE\" or \"import discord --server NAME [--owner USER] FILE_OR_DIR...\"")
	}
	switch args[0] {
	case "revolt", "stoat":
		return importRevolt(ctx, cfg, args[1:], stdout, stderr)
	case "bulk":
		return importBulk(ctx, cfg, args[1:], stdout, stderr)
	case "discord":
		return importDiscord(ctx, cfg, args[1:], stdout, stderr)
	}
	return fmt.Errorf("import: unknown source %q (known: revolt, bulk, discord)", args[0])
}

// importRevolt runs "import revolt --dump DIR [--files DIR] [--encryption-key KEY]".
func importRevolt(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import revolt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dump := fs.String("dump", "", "what mongodump wrote: a directory, or an --archive file (gzipped or not)")
	files := fs.String("files", "", "the object store mirrored to a directory (<bucket>/<object key>)")
	key := fs.String("encryption-key", "", "files.encryption_key of the instance (base64), for encrypted objects")
	tmp := fs.String("tmp", "", "directory for temporary files (default: the system's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dump == "" || fs.NArg() > 0 {
		return errors.New("import revolt: want --dump DIR (and optionally --files DIR --encryption-key KEY)")
	}
	if *key == "" {
		*key = os.Getenv("ERMINE_IMPORT_ENCRYPTION_KEY")
	}
	opt := revolt.Options{Files: *files, TempDir: *tmp}
	if *key != "" {
		k, err := revolt.DecodeKey(*key)
		if err != nil {
			return fmt.Errorf("import revolt: %w", err)
		}
		opt.Key = k
	}
	d, err := revolt.OpenDump(*dump, *tmp)
	if err != nil {
		return fmt.Errorf("import revolt: %w", err)
	}
	defer d.Close()
	rev, err := revolt.CheckRevision(d)
	if err != nil {
		return fmt.Errorf("import revolt: %w", err)
	}
	if rev > revolt.KnownRevision {
		fmt.Fprintf(stderr, "import: the dump is at database revision %d, newer than this reader knows (%d); documents of an unknown shape will be reported\n", rev, revolt.KnownRevision)
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
	blobs, err := server.OpenBlobs(ctx, cfg)
	if err != nil {
		return err
	}
	p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "revolt", Command: resumeCommand(args),
		Progress: stderr, Terminal: isTerminal(stderr), TempDir: *tmp})
	if err != nil {
		return fmt.Errorf("import revolt: %w", err)
	}
	if p.Resumed() {
		fmt.Fprintln(stderr, "import: resuming the unfinished import")
	}
	if err := revolt.Import(ctx, p, d, opt); err != nil {
		return fmt.Errorf("import revolt: %w (the import is unfinished: fix the cause and run the same command again to resume)", err)
	}
	report, err := p.Finish(ctx)
	if err != nil {
		return err
	}
	return report.Write(stdout)
}

// resumeCommand is the command line that resumes an import, the key
// left out (it is a secret; the environment variable can carry it).
func resumeCommand(args []string) string {
	var b strings.Builder
	b.WriteString("ermine")
	for _, a := range os.Args[1:] {
		if a == "import" {
			break
		}
		b.WriteString(" " + a)
	}
	b.WriteString(" import revolt")
	hide := false
	for _, a := range args {
		switch {
		case hide:
			a, hide = "KEY", false
		case a == "--encryption-key" || a == "-encryption-key":
			hide = true
		case strings.HasPrefix(a, "--encryption-key=") || strings.HasPrefix(a, "-encryption-key="):
			a = "--encryption-key=KEY"
		}
		b.WriteString(" " + a)
	}
	return b.String()
}

// isTerminal reports whether w is a terminal, where progress bars redraw.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
