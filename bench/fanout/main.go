// Command ermine-fanout measures the events gateway under fan-out: one
// server channel whose N members all hold an events connection. It seeds
// N users (with sessions), a server, its channel and the memberships
// straight into a fresh SQLite file, starts the ermine binary on it as a
// separate process (rate limits off), opens N WebSocket connections on
// loopback, one per user, and then posts messages through
// POST /channels/{id}/messages. It reports:
//
//   - idle memory: the server's VmRSS growth per authenticated,
//     subscribed connection (/proc/<pid>/status, before and after
//     connecting);
//   - latency: send→receive percentiles at a fixed message rate
//     (open loop), and messages lost (any connection missing one);
//   - saturation: the server's CPU time (utime+stime of /proc/<pid>/stat)
//     per delivered message while messages are posted as fast as the
//     connections take them, at most --window messages ahead of the
//     slowest connection so no send queue overflows.
//
// With --nodes K (K > 1) it runs K ermine processes as one instance: the
// users are seeded into a fresh database on the --database PostgreSQL
// server (dropped at the end), the nodes share it and the --bus event bus
// (and the --shared-url Redis, when given), connection i goes to node
// i mod K and message i is posted through node i mod K, so every
// delivery but a third crosses the bus. Memory and CPU are the nodes'
// together.
//
// At the end of an Ermine run on one node, --reconnect connections drop
// and reconnect with a full Ready, then again with resume
// (docs/events-resume.md): server CPU and bytes received per reconnect,
// the reconnect row of --compare's table. --storm runs the reconnect
// storm instead (storm.go).
//
// Every phase is bounded in count and time, everything runs on loopback,
// and the server is stopped at the end. The server process and this one
// each hold one descriptor per connection; both raise their soft
// RLIMIT_NOFILE to the hard limit.
//
// Users are seeded Invisible by default: a visible user's first
// connection announces them online to every member of the server, so
// connecting N visible users costs N² deliveries before any message is
// sent; --visible measures that too.
//
// Example:
//
//	go build -o /tmp/ermine ./cmd/ermine && go build -o /tmp/ermine-fanout ./bench/fanout
//	/tmp/ermine-fanout --ermine /tmp/ermine --conns 10000 --rate 5 --duration 30s --saturate 300
//	/tmp/ermine-fanout --ermine /tmp/ermine --nodes 3 --conns 9000 --database postgres://... \
//		--bus nats --bus-url nats://127.0.0.1:4222 --shared-url redis://127.0.0.1:6379/0
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"ermine/internal/testbed"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if probeSubcommand(ctx) {
		return
	}
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "ermine-fanout:", err)
		os.Exit(1)
	}
}

// probeSubcommand runs the probe-api subcommand when the arguments name
// it (the storm starts it; tests of the storm start their own binary
// so), reporting whether they did.
func probeSubcommand(ctx context.Context) bool {
	if len(os.Args) != 3 || os.Args[1] != probeCommand {
		return false
	}
	if err := probeAPI(ctx, os.Args[2], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ermine-fanout probe-api:", err)
		os.Exit(1)
	}
	return true
}

// options are the command's flags.
type options struct {
	ermine   string
	conns    int
	dialers  int
	rate     int
	duration time.Duration
	saturate int
	window   int
	senders  int
	visible  bool
	settle   time.Duration
	content  int
	// reconnect is the batch of connections that drop and reconnect
	// (full Ready, then resume) at the end of an Ermine run.
	reconnect int

	// The reconnect storm (--storm, storm.go).
	storm         bool
	stormMessages int
	stormTimeout  time.Duration
	stormDialers  int
	stormTrace    string

	// Other servers under the same load (make compare).
	target     string
	centrifugo string
	floor      string
	compare    bool
	pin        bool
	profile    string
	heap       string
	latProfile string

	// Several nodes: K processes on one PostgreSQL database and one bus.
	nodes     int
	database  string
	bus       string
	busURL    string
	sharedURL string

	// centrifugoVersion is the version of the -centrifugo binary, once
	// asked (--compare).
	centrifugoVersion string
}

// Bounds of the flags: every loop of the command is bounded by them.
const (
	maxConns    = 20000
	maxRate     = 1000
	maxDuration = 5 * time.Minute
	maxNodes    = 5
	maxSaturate = 100000
	// maxDeliveries bounds messages × connections.
	maxDeliveries = 50_000_000
)

func parse(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("ermine-fanout", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.ermine, "ermine", "", "path of the ermine binary to run (required unless --target says otherwise)")
	fs.StringVar(&o.target, "target", "ermine", "server under load: ermine, centrifugo (--centrifugo) or floor (--floor)")
	fs.StringVar(&o.centrifugo, "centrifugo", "", "path of a Centrifugo v6 or v5 binary, for --target centrifugo and --compare")
	fs.StringVar(&o.floor, "floor", "", "path of the ermine-floor binary, for --target floor and --compare")
	fs.BoolVar(&o.compare, "compare", false, "run ermine, centrifugo and floor one after another and print one table")
	fs.StringVar(&o.profile, "connect-profile", "", "write Ermine's CPU profile of the connect phase (10 s from its start) to this file")
	fs.StringVar(&o.latProfile, "latency-profile", "", "write Ermine's CPU profile of the latency phase (10 s from its start) to this file")
	fs.StringVar(&o.heap, "heap-profile", "", "write Ermine's heap profile, taken once the connections are idle, to this file")
	fs.BoolVar(&o.pin, "pin", false, "pin the server to CPU 0 and this process to the others (taskset, when present)")
	fs.IntVar(&o.conns, "conns", 1000, "users, each with one events connection, all members of the channel")
	fs.IntVar(&o.dialers, "dialers", 16, "connections opened at once")
	fs.IntVar(&o.rate, "rate", 5, "messages per second in the latency phase")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "length of the latency phase (0 skips it)")
	fs.IntVar(&o.saturate, "saturate", 200, "messages posted in the saturation phase (0 skips it)")
	fs.IntVar(&o.window, "window", 32, "saturation: messages sent at most ahead of the slowest connection")
	fs.IntVar(&o.senders, "senders", 4, "saturation: requests in flight at most")
	fs.BoolVar(&o.visible, "visible", false, "seed visible users (connecting then announces each to all: N² deliveries)")
	fs.DurationVar(&o.settle, "settle", 2*time.Second, "pause after connecting, before measuring memory")
	fs.IntVar(&o.content, "content", 50, "bytes of message content")
	fs.IntVar(&o.reconnect, "reconnect", 500, "Ermine: connections that drop and reconnect at the end, with a full Ready then with resume (0 skips; one node only)")
	fs.BoolVar(&o.storm, "storm", false, "reconnect storm instead of the fan-out phases: --conns (default 10,000) connections drop at once, "+
		"then the node is restarted, and all reconnect (storm.go); Ermine on one node only")
	fs.IntVar(&o.stormMessages, "storm-messages", 10, "storm: messages posted while the clients reconnect, each round")
	fs.DurationVar(&o.stormTimeout, "storm-timeout", 2*time.Minute, "storm: longest wait for every client to be back, each round")
	fs.IntVar(&o.stormDialers, "storm-dialers", 1000, "storm: reconnects under way at once")
	fs.StringVar(&o.stormTrace, "storm-trace", "", "storm: save an execution trace of the server's first 2 s of the drop round (with resume) to this file")
	fs.IntVar(&o.nodes, "nodes", 1, "ermine processes sharing the load (more than 1 needs --database and --bus)")
	fs.StringVar(&o.database, "database", "", "PostgreSQL server URL; each run seeds a fresh database there and drops it (default: SQLite)")
	fs.StringVar(&o.bus, "bus", "", "event bus of several nodes: nats or redis")
	fs.StringVar(&o.busURL, "bus-url", "", "URL of the --bus server")
	fs.StringVar(&o.sharedURL, "shared-url", "", "Redis URL of the nodes' shared state ([shared] url)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	conns := false
	fs.Visit(func(f *flag.Flag) { conns = conns || f.Name == "conns" })
	if o.storm && !conns {
		o.conns = defaultStormConns
	}
	switch {
	case o.storm && (o.compare || o.target != string(targetErmine) || o.nodes > 1):
		return o, errors.New("--storm: Ermine on one node only (no --compare, --target or --nodes)")
	case o.reconnect < 0 || o.reconnect > maxConns:
		return o, fmt.Errorf("--reconnect: %d is not from 0 to %d", o.reconnect, maxConns)
	case o.stormMessages < 0 || o.stormMessages > 1000:
		return o, fmt.Errorf("--storm-messages: %d is not from 0 to 1000", o.stormMessages)
	case o.stormTimeout < time.Second || o.stormTimeout > maxDuration:
		return o, fmt.Errorf("--storm-timeout: %s is not from 1s to %s", o.stormTimeout, maxDuration)
	case o.stormDialers < 1 || o.stormDialers > maxConns:
		return o, fmt.Errorf("--storm-dialers: %d is not from 1 to %d", o.stormDialers, maxConns)
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.target != string(targetErmine) && o.target != string(targetCentrifugo) && o.target != string(targetFloor):
		return o, fmt.Errorf("--target: %q is not ermine, centrifugo or floor", o.target)
	case (o.compare || o.target == string(targetErmine)) && o.ermine == "":
		return o, errors.New("--ermine: the path of the ermine binary is required")
	case (o.compare || o.target == string(targetCentrifugo)) && o.centrifugo == "":
		return o, errors.New("--centrifugo: the path of a Centrifugo binary is required")
	case (o.compare || o.target == string(targetFloor)) && o.floor == "":
		return o, errors.New("--floor: the path of the ermine-floor binary is required")
	case (o.compare || o.target != string(targetErmine)) && (o.nodes > 1 || o.database != "" || o.visible):
		return o, errors.New("--nodes, --database and --visible are Ermine's alone: not with --compare or another --target")
	case o.conns < 1 || o.conns > maxConns:
		return o, fmt.Errorf("--conns: %d is not from 1 to %d", o.conns, maxConns)
	case o.dialers < 1 || o.dialers > 256:
		return o, fmt.Errorf("--dialers: %d is not from 1 to 256", o.dialers)
	case o.rate < 1 || o.rate > maxRate:
		return o, fmt.Errorf("--rate: %d is not from 1 to %d", o.rate, maxRate)
	case o.duration < 0 || o.duration > maxDuration:
		return o, fmt.Errorf("--duration: %s is not from 0 to %s", o.duration, maxDuration)
	case o.saturate < 0 || o.saturate > maxSaturate:
		return o, fmt.Errorf("--saturate: %d is not from 0 to %d", o.saturate, maxSaturate)
	case o.window < 1 || o.window > 200:
		return o, fmt.Errorf("--window: %d is not from 1 to 200 (the server drops a connection 256 frames behind)", o.window)
	case o.senders < 1 || o.senders > 64:
		return o, fmt.Errorf("--senders: %d is not from 1 to 64", o.senders)
	case o.settle < 0 || o.settle > time.Minute:
		return o, fmt.Errorf("--settle: %s is not from 0 to 1m", o.settle)
	case o.content < 20 || o.content > 2000:
		return o, fmt.Errorf("--content: %d is not from 20 to 2000", o.content)
	case o.nodes < 1 || o.nodes > maxNodes:
		return o, fmt.Errorf("--nodes: %d is not from 1 to %d", o.nodes, maxNodes)
	case o.nodes > 1 && o.database == "":
		return o, errors.New("--nodes: several nodes share one PostgreSQL database: set --database")
	case o.nodes > 1 && o.bus == "":
		return o, errors.New("--nodes: several nodes share one event bus: set --bus and --bus-url")
	case o.database != "" && !strings.HasPrefix(o.database, "postgres://") && !strings.HasPrefix(o.database, "postgresql://"):
		return o, errors.New("--database: a postgres:// URL")
	case o.bus != "" && o.bus != "nats" && o.bus != "redis":
		return o, fmt.Errorf("--bus: %q is not nats or redis", o.bus)
	case (o.bus == "") != (o.busURL == ""):
		return o, errors.New("--bus and --bus-url go together")
	}
	// One bit per message and connection, and one latency per delivery
	// of the latency phase, are kept in memory.
	messages := int64(o.rate)*int64(o.duration/time.Second) + int64(o.saturate)
	if messages*int64(o.conns) > maxDeliveries {
		return o, fmt.Errorf("%d messages to %d connections: over %d deliveries", messages, o.conns, int64(maxDeliveries))
	}
	return o, nil
}

// run measures the target, or with --compare all three, and reports.
func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parse(args, out)
	if err != nil {
		return err
	}
	if err := raiseFileLimit(); err != nil {
		return err
	}
	if o.pin {
		if err := pinSelf(); err != nil {
			fmt.Fprintln(out, "not pinned:", err)
			o.pin = false
		}
	}
	if o.storm {
		return storm(ctx, o, out)
	}
	if !o.compare {
		_, err := measure(ctx, o, target(o.target), out)
		return err
	}
	if o.centrifugoVersion, err = centrifugoVersion(o.centrifugo); err != nil {
		return err
	}
	fmt.Fprintf(out, "Centrifugo %s: %s\n", o.centrifugoVersion, o.centrifugo)
	var all []*figures
	for _, kind := range []target{targetErmine, targetCentrifugo, targetFloor} {
		fmt.Fprintf(out, "\n== %s\n", kind)
		// Each server gets at most a third of the ten minutes.
		mctx, cancel := context.WithTimeout(ctx, 200*time.Second)
		f, err := measure(mctx, o, kind, out)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		all = append(all, f)
	}
	printComparison(out, o, all)
	return ctx.Err()
}

// measure seeds (Ermine), starts the servers, connects, runs the phases
// and reports, returning the figures.
func measure(ctx context.Context, o options, kind target, out io.Writer) (*figures, error) {
	fig := &figures{kind: kind}
	bin := map[target]string{targetErmine: o.ermine, targetCentrifugo: o.centrifugo, targetFloor: o.floor}[kind]
	if kind != targetErmine {
		fmt.Fprintf(out, "ermine-fanout: %d connections to %s, one channel\n", o.conns, kind)
	} else if o.nodes > 1 {
		fmt.Fprintf(out, "ermine-fanout: %d connections over %d nodes (PostgreSQL, %s bus), one channel\n", o.conns, o.nodes, o.bus)
	} else {
		fmt.Fprintf(out, "ermine-fanout: %d connections, one channel\n", o.conns)
	}

	dir, err := os.MkdirTemp("", "ermine-fanout-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	env := o.nodeEnv()
	if o.database != "" {
		db, drop, err := testbed.FreshDatabase(ctx, o.database, "ermine_fanout")
		if err != nil {
			return nil, fmt.Errorf("--database: %w", err)
		}
		defer func() {
			if err := drop(); err != nil {
				fmt.Fprintln(out, "drop database:", err)
			}
		}()
		env = append(env, "ERMINE_DATABASE_URL="+db)
	}
	start := time.Now()
	var w *world
	if kind == targetErmine {
		w, err = seed(ctx, dir, env, o.conns, o.visible)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "seeded %d users, sessions and memberships in %s\n", o.conns, since(start))
	} else if w, err = targetWorld(kind, o.conns); err != nil {
		return nil, err
	}

	var servers cluster
	defer func() {
		for _, srv := range servers {
			if err := srv.Stop(); err != nil {
				fmt.Fprintln(out, "server stop:", err)
			}
		}
	}()
	for i := range o.nodes {
		nodeDir := dir
		if o.nodes > 1 {
			nodeDir = filepath.Join(dir, fmt.Sprintf("node%d", i+1))
			if err := os.Mkdir(nodeDir, 0o750); err != nil {
				return nil, err
			}
		}
		srv, err := startServer(ctx, kind, bin, "", nodeDir, env, o.pin)
		if err != nil {
			return nil, err
		}
		servers = append(servers, srv)
	}
	time.Sleep(500 * time.Millisecond)
	rssBefore, err := servers.rss()
	if err != nil {
		return nil, err
	}

	latencyMessages := o.rate * int(o.duration/time.Second)
	rec := newRecorder(o.conns, latencyMessages+o.saturate, latencyMessages)
	start = time.Now()
	var profiled chan error
	if o.profile != "" && kind == targetErmine {
		profiled = make(chan error, 1)
		go func() { profiled <- servers[0].cpuProfile(ctx, 10*time.Second, o.profile) }()
		time.Sleep(100 * time.Millisecond) // the profile has started
	}
	cpuUser, cpuSys, _ := servers.cpu()
	clients, err := connectAll(ctx, servers.addrs(), w, rec, o.dialers, "")
	defer closeAll(clients)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "connected %d in %s\n", len(clients), since(start))
	if u, s, err := servers.cpu(); err == nil {
		used := u + s - cpuUser - cpuSys
		fig.connectCPU = float64(used.Microseconds()) / float64(len(clients))
		fmt.Fprintf(out, "  server CPU %s for %d connection set-ups (connect, authenticate, Ready): %.0f µs each\n",
			used.Round(10*time.Millisecond), len(clients), float64(used.Microseconds())/float64(len(clients)))
	}
	if profiled != nil {
		if err := <-profiled; err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "  CPU profile of the connect phase: %s\n", o.profile)
	}
	if o.visible {
		start = time.Now()
		quiet := waitQuiet(ctx, rec, time.Second, 5*time.Minute)
		fmt.Fprintf(out, "presence settled in %s (quiet: %v)\n", since(start), quiet)
	}
	sleep(ctx, o.settle)
	rssAfter, err := servers.rss()
	if err != nil {
		return nil, err
	}
	grown := rssAfter - rssBefore
	fig.idleBytes = float64(grown) / float64(o.conns)
	fmt.Fprintf(out, "server RSS: %.1f MiB before, %.1f MiB after: %.0f bytes per connection\n",
		mib(rssBefore), mib(rssAfter), float64(grown)/float64(o.conns))
	if o.heap != "" && kind == targetErmine {
		if err := servers[0].heapProfile(ctx, o.heap); err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "  heap profile of the idle connections: %s\n", o.heap)
	}

	// Message i is posted through node i mod K: every node sends.
	send := newSender(servers.addrs(), w, o.content)
	next := 0
	if latencyMessages > 0 {
		var profiled chan error
		if o.latProfile != "" && kind == targetErmine {
			profiled = make(chan error, 1)
			go func() { profiled <- servers[0].cpuProfile(ctx, 10*time.Second, o.latProfile) }()
		}
		cpu := startCPU(servers)
		res := latencyPhase(ctx, send, rec, next, latencyMessages, o.rate)
		next += latencyMessages
		if profiled != nil {
			if err := <-profiled; err != nil {
				return nil, err
			}
			fmt.Fprintf(out, "  CPU profile of the latency phase: %s\n", o.latProfile)
		}
		res.report(out, fmt.Sprintf("latency at %d messages/s for %s", o.rate, o.duration), o.conns)
		fig.lightCPU = cpu.report(out, res)
		if len(res.latencies) > 0 {
			fig.p50, fig.p99 = percentile(res.latencies, 0.5), percentile(res.latencies, 0.99)
		}
		fig.lost += res.lost
	}
	if o.saturate > 0 {
		cpu := startCPU(servers)
		res := saturationPhase(ctx, send, rec, next, o.saturate, o.window, o.senders)
		res.report(out, fmt.Sprintf("saturation: %d messages, window %d", o.saturate, o.window), o.conns)
		fig.saturatedCPU = cpu.report(out, res)
		fig.lost += res.lost
	}
	if o.reconnect > 0 && kind == targetErmine && o.nodes == 1 {
		batch := clients[:min(o.reconnect, len(clients))]
		full, resumed, err := reconnectPhase(ctx, servers, w, rec, batch, out)
		if err != nil {
			return nil, err
		}
		fig.reconnect = &[2]reconnectCost{full, resumed}
	}
	if n := rec.dropped(); n > 0 {
		fmt.Fprintf(out, "connections closed by the server during the run: %d\n", n)
	}
	return fig, ctx.Err()
}

// cpuMeter measures the CPU time the servers (all nodes together) and
// this process use during a phase.
type cpuMeter struct {
	srv               cluster
	user, sys, client time.Duration
}

func startCPU(srv cluster) *cpuMeter {
	m := &cpuMeter{srv: srv}
	m.user, m.sys, _ = srv.cpu()
	m.client = testbed.CPUTime()
	return m
}

// report prints the CPU used since startCPU per delivered message, and
// returns it in µs.
func (m *cpuMeter) report(out io.Writer, res *result) float64 {
	user, sys, err := m.srv.cpu()
	if err != nil || res.delivered == 0 {
		return 0
	}
	user, sys = user-m.user, sys-m.sys
	used, client := user+sys, testbed.CPUTime()-m.client
	fmt.Fprintf(out, "  server CPU %s (user %s, system %s) for %d deliveries: %.2f µs per delivered message "+
		"(%.0f deliveries/s); load generator CPU %s\n", used.Round(10*time.Millisecond), user, sys, res.delivered,
		float64(used.Nanoseconds())/1e3/float64(res.delivered), float64(res.delivered)/res.elapsed.Seconds(),
		client.Round(10*time.Millisecond))
	return float64(used.Nanoseconds()) / 1e3 / float64(res.delivered)
}

// raiseFileLimit lifts the soft limit on open files to the hard limit:
// each connection is a descriptor here and one in the server.
func raiseFileLimit() error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return fmt.Errorf("read file limit: %w", err)
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			return fmt.Errorf("raise file limit: %w", err)
		}
	}
	return nil
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
