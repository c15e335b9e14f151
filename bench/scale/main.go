// Command ermine-scale measures how Ermine's costs grow with the size of a
// community. It starts a node in-process (SQLite in a temporary directory,
// or a fresh schema of the PostgreSQL database given by --database or
// ERMINE_SCALE_DATABASE), seeds its store directly, and prints one table:
//
//   - Ready: server CPU and JSON bytes for one user in servers × channels;
//   - member list: server CPU and JSON bytes of GET /servers/{id}/members
//     (the use case and its encoding) vs members;
//   - search: p50/p99 time of a channel search for a common and a rare word
//     vs messages in the store, relevance and latest order; of a
//     server-wide search (POST /search) newest and oldest first; and of the
//     mentions inbox (GET /users/@me/notifications);
//   - history: p50/p99 time of pages of 50 of the searched channel
//     (GET /channels/{id}/messages: the newest, before a random message,
//     around one) through the app and over loopback HTTP, --history-pages
//     of each, at each size;
//   - storage: bytes on disk per ~100-character message.
//
// CPU is the process's user+system time (getrusage) around the work
// divided by the repetitions, not wall time: the machine may be shared.
// Every loop is bounded in count; the default run stays within a few
// minutes, and --big adds the 1,000,000-message search and history case.
//
// Usage:
//
//	ermine-scale                       # SQLite
//	ermine-scale --database postgres://postgres@127.0.0.1/db?sslmode=disable
//	ermine-scale --big                 # also 1,000,000 messages
//	ermine-scale --only search --big   # only the searches and history pages, up to 1,000,000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"ermine/internal/testbed"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ermine-scale:", err)
		os.Exit(1)
	}
}

type options struct {
	database string
	big      bool
	ready    [][2]int // servers, channels per server
	members  []int
	messages []int
	reps     int
	pages    int // history pages of each kind per size

	cpuprofile string
}

func parse(args []string, out io.Writer) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("ermine-scale", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.database, "database", os.Getenv("ERMINE_SCALE_DATABASE"), "PostgreSQL URL (default SQLite; env ERMINE_SCALE_DATABASE)")
	fs.BoolVar(&o.big, "big", false, "add the 1,000,000-message search case")
	fs.IntVar(&o.reps, "reps", 20, "repetitions per Ready and member list measurement, searches per word")
	fs.IntVar(&o.pages, "history-pages", 2000, "history pages fetched per kind of page and size, through the app and over HTTP")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	only := fs.String("only", "", "measure only the largest case of ready or members (for profiling), or only search")
	small := fs.Bool("small", false, "tiny sizes (a smoke test of the tool)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.reps < 1 || o.reps > 1000 {
		return o, errors.New("reps must be in [1, 1000]")
	}
	if o.pages < 1 || o.pages > 100_000 {
		return o, errors.New("history-pages must be in [1, 100000]")
	}
	o.ready = [][2]int{{10, 10}, {50, 50}, {200, 50}}
	o.members = []int{100, 1000, 10_000}
	o.messages = []int{10_000, 100_000}
	if o.big {
		o.messages = append(o.messages, 1_000_000)
	}
	if *only != "" {
		o.ready, o.members, o.messages = nil, nil, nil
		switch *only {
		case "ready":
			o.ready = [][2]int{{200, 50}}
		case "members":
			o.members = []int{10_000}
		case "search":
			o.messages = []int{10_000, 100_000}
			if o.big {
				o.messages = append(o.messages, 1_000_000)
			}
		default:
			return o, fmt.Errorf("--only takes ready, members or search (with history), not %q", *only)
		}
	}
	if *small {
		o.ready = [][2]int{{2, 3}}
		o.members = []int{20}
		o.messages = []int{300}
	}
	return o, nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parse(args, out)
	if err != nil {
		return err
	}
	stopProfile, err := testbed.ProfileCPU(o.cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	n, err := testbed.StartNode(ctx, "ermine_scale", o.database)
	if err != nil {
		return err
	}
	defer n.StopReporting("ermine-scale")
	fmt.Fprintf(out, "store %s, %d repetitions\n\n", n.StoreName, o.reps)
	w := &growth{node: n, seed: &testbed.Seeder{Store: n.Store, Name: "member"}}
	fmt.Fprintf(out, "%-14s %-22s %14s %14s\n", "measure", "size", "CPU/op", "bytes")
	for _, sc := range o.ready {
		cpu, size, err := w.ready(ctx, sc[0], sc[1], o.reps)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%-14s %-22s %14s %14d\n", "Ready", fmt.Sprintf("%d servers x %d ch", sc[0], sc[1]), fmtDur(cpu), size)
	}
	for _, m := range o.members {
		cpu, size, err := w.members(ctx, m, o.reps)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%-14s %-22s %14s %14d\n", "member list", fmt.Sprintf("%d members", m), fmtDur(cpu), size)
	}
	if len(o.messages) == 0 {
		return nil
	}
	fmt.Fprintf(out, "\n%-14s %-22s %-18s %-10s %10s %10s\n", "search", "messages in store", "word", "order", "p50", "p99")
	total := 0
	for _, m := range o.messages {
		res, perMsg, err := w.search(ctx, m-total, m, o.reps)
		if err != nil {
			return err
		}
		total = m
		for _, r := range res {
			fmt.Fprintf(out, "%-14s %-22d %-18s %-10s %10s %10s\n", "search", m, r.word, r.order, fmtDur(r.p50), fmtDur(r.p99))
		}
		hist, err := w.history(ctx, o.pages)
		if err != nil {
			return err
		}
		for _, r := range hist {
			fmt.Fprintf(out, "%-14s %-22d %-18s %-10s %10s %10s\n", "history", m, r.word, r.order, fmtDur(r.p50), fmtDur(r.p99))
		}
		fmt.Fprintf(out, "%-14s %-22d %.0f bytes/message on disk\n", "storage", m, perMsg)
	}
	return nil
}
