package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/importer/bulk"
	"ermine/internal/server"
)

// export runs "ermine export [--server ID] FILE": the instance (or one
// server) in the bulk format (docs/bulk-format.md), as a tar archive
// (gzip'd for .tar.gz/.tgz) or, when FILE is a directory or ends in a
// slash, as a directory.
func export(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("export", flag.ContinueOnError)
	fl.SetOutput(stderr)
	serverID := fl.String("server", "", "export this server alone (its id), not the whole instance")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return errors.New("export: want \"export [--server ID] FILE\"")
	}
	dest := fl.Arg(0)
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	blobs, err := server.OpenBlobs(ctx, cfg)
	if err != nil {
		return err
	}
	sink, err := bulk.Create(dest)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	start := time.Now()
	last := start
	progress := func(n int64) {
		if time.Since(last) >= 2*time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "export: %d messages\n", n)
		}
	}
	counts, err := bulk.Export(ctx, st, blobs, sink, bulk.ExportOptions{Server: chat.ID(*serverID),
		Generator: "ermine " + server.Build().Semver, Progress: progress})
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if info, serr := os.Stat(dest); serr == nil && !info.IsDir() {
			os.Remove(dest)
		}
		return fmt.Errorf("export: %w", err)
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "exported to %s in %s:", dest, elapsed.Round(time.Millisecond))
	for _, t := range []string{bulk.TypeAccount, bulk.TypeUser, bulk.TypeServer, bulk.TypeChannel, bulk.TypeMember, bulk.TypeMessage, bulk.TypeFile} {
		fmt.Fprintf(stdout, " %d %s,", counts[t], t)
	}
	var total int64
	for _, n := range counts {
		total += n
	}
	fmt.Fprintf(stdout, " %d records in all", total)
	if s := elapsed.Seconds(); s > 0 && counts[bulk.TypeMessage] > 0 {
		fmt.Fprintf(stdout, " (%.0f messages/s)", float64(counts[bulk.TypeMessage])/s)
	}
	fmt.Fprintln(stdout)
	return nil
}
