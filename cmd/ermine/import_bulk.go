package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"ermine/internal/config"
	"ermine/internal/importer"
	"ermine/internal/importer/bulk"
	"ermine/internal/server"
)

// importBulk runs "import bulk FILE": an export of Ermine's bulk format
// (docs/bulk-format.md) into an empty instance.
func importBulk(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import bulk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tmp := fs.String("tmp", "", "directory for temporary files (default: the system's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("import bulk: want \"import bulk FILE\" (a tar archive or a directory written by ermine export)")
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
	p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "bulk", Command: commandLine("import", append([]string{"bulk"}, args...)),
		Progress: stderr, Terminal: isTerminal(stderr), TempDir: *tmp})
	if err != nil {
		return fmt.Errorf("import bulk: %w", err)
	}
	if p.Resumed() {
		fmt.Fprintln(stderr, "import: resuming the unfinished import")
	}
	start := time.Now()
	if _, err := bulk.Import(ctx, p, fs.Arg(0)); err != nil {
		return fmt.Errorf("import bulk: %w (the import is unfinished: fix the cause and run the same command again to resume)", err)
	}
	report, err := p.Finish(ctx)
	if err != nil {
		return err
	}
	if err := report.Write(stdout); err != nil {
		return err
	}
	return speed(stdout, report, start)
}

// speed prints the messages imported per second.
func speed(w io.Writer, r *importer.Report, start time.Time) error {
	n := r.Imported("messages")
	if s := time.Since(start).Seconds(); n > 0 && s > 0 {
		_, err := fmt.Fprintf(w, "%d messages in %.1f s (%.0f messages/s)\n", n, s, float64(n)/s)
		return err
	}
	return nil
}

// commandLine is the command line that runs this import again (to resume it).
func commandLine(cmd string, args []string) string {
	var b strings.Builder
	b.WriteString("ermine")
	for _, a := range os.Args[1:] {
		if a == cmd {
			break
		}
		b.WriteString(" " + a)
	}
	b.WriteString(" " + cmd)
	for _, a := range args {
		b.WriteString(" " + a)
	}
	return b.String()
}
