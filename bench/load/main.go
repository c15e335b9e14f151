// Command ermine-load measures Ermine's message path on the machine it runs
// on. It starts one node in-process (SQLite in a temporary directory, or
// PostgreSQL in a fresh schema with --database), seeds users, a server and
// its channels directly in the store, then sends messages with
// POST /channels/{id}/messages over loopback HTTP and reports throughput
// and latency percentiles, checking that every accepted message was also
// published as a Message event. How history pages and the rest grow with
// the store is bench/scale's.
//
// The node runs with its normal rate limits. The messaging bucket allows
// 10 sends per 10 s for each (session, channel) pair, so the load is
// spread round-robin over --users × --channels pairs; the default 10,000
// pairs carry up to 10,000 messages/s without a 429. The channels belong
// to --servers servers (10 channels each by default) and every user is a
// member of all of them. Answers of 429 are
// counted and reported, never retried.
//
// Examples:
//
//	ermine-load                              # closed loop, as fast as it goes, 10 s
//	ermine-load --rate 1000 --duration 20s   # open loop at 1,000 messages/s
//	ermine-load --database 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"

	"ermine/internal/testbed"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ermine-load:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	database   string
	users      int
	servers    int
	channels   int
	workers    int
	rate       int
	duration   time.Duration
	cpuProfile string
	trace      string
	memProfile string
}

// maxDuration bounds a send run; the load generator never runs unbounded.
const maxDuration = 2 * time.Minute

func parse(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("ermine-load", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.database, "database", "", "PostgreSQL URL; empty runs SQLite in a temporary directory")
	fs.IntVar(&o.users, "users", 100, "users sending, each with one session")
	fs.IntVar(&o.servers, "servers", 10, "servers the channels are spread over; every user is a member of all")
	fs.IntVar(&o.channels, "channels", 100, "channels messages are spread over")
	fs.IntVar(&o.workers, "workers", 64, "concurrent requests in flight at most")
	fs.IntVar(&o.rate, "rate", 0, "messages per second to offer (open loop); 0 sends as fast as answers come (closed loop)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long to send, at most 2m")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a profile of the run's allocations (seeding and sending; go tool pprof -sample_index=alloc_space) to this file")
	fs.StringVar(&o.trace, "trace", "", "write an execution trace of the send phase to this file (go tool trace: where requests wait)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case o.users < 1 || o.servers < 1 || o.channels < o.servers || o.workers < 1 || o.rate < 0:
		return o, errors.New("users, servers and workers must be positive, channels at least servers, rate not negative")
	case o.duration <= 0 || o.duration > maxDuration:
		return o, fmt.Errorf("duration must be in (0, %s]", maxDuration)
	}
	return o, nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parse(args, out)
	if err != nil {
		return err
	}
	stopProfile, err := testbed.ProfileCPU(o.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	n, err := testbed.StartNode(ctx, "ermine_load", o.database)
	if err != nil {
		return err
	}
	defer n.StopReporting("ermine-load")
	fmt.Fprintf(out, "node: %s, store %s, GOMAXPROCS %d\n", n.URL, n.StoreName, gomaxprocs())
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	if o.memProfile != "" {
		f, err := os.Create(o.memProfile)
		if err != nil {
			return err
		}
		runtime.MemProfileRate = 4096
		defer func() {
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fmt.Fprintln(out, "allocation profile:", err)
			}
			f.Close()
		}()
	}
	return sendLoad(ctx, n, o, out)
}
