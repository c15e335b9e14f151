package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ermine/internal/testbed"
)

// defaultStormConns is --conns of a storm unless given.
const defaultStormConns = 10000

// storm is the reconnect storm: --conns resumable connections to one
// node, then three rounds, each bounded by --storm-timeout:
//
//  1. drop: every client's socket closes at once and all reconnect with
//     resume=<id>&seq=<last> to the same, running node;
//  2. drop without resume: the same, but all reconnect asking for a
//     full Ready (resume=1, as a client that keeps no stream would, but
//     for a new stream for the next round), which is what a storm costs
//     without resume;
//  3. restart: the node is killed (SIGKILL) and started again on the
//     same port and data, and all reconnect with resume, retrying until
//     it answers.
//
// During each round --storm-messages messages are posted, and an API
// prober, a process of its own (probe-api) so that its requests do not
// wait behind the 10,000 clients' readers in this process's scheduler,
// starts a GET /users/@me every 10 ms and times it. A round reports how long until every
// client had Ready or Resumed, how many resumed, the server's CPU, the
// prober's latency, and the messages lost: a resumed client must have
// every message posted after the drop (live or replayed); a client
// answered with a full Ready must have every message posted after its
// Ready, and the ones before must be in the channel's history, which a
// client reads after a full Ready.
//
// A resume across a restart needs the stream to outlive the process and
// its holder to answer the takeover; the holder was the killed process,
// so the gateway answers a full Ready: at once with the streams in the
// process (the default, they died with it), and with the streams in
// Redis (--shared-url) at once too, since the restarted node removes the
// killed one's mark of life as it starts (docs/events-resume.md).
func storm(ctx context.Context, o options, out io.Writer) error {
	dir, err := os.MkdirTemp("", "ermine-storm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := o.nodeEnv()
	streams := "in the process (embedded default)"
	if o.sharedURL != "" {
		streams = "in Redis (--shared-url)"
	}
	fmt.Fprintf(out, "ermine-fanout --storm: %d resumable connections to one node, streams %s\n", o.conns, streams)
	start := time.Now()
	w, err := seed(ctx, dir, env, o.conns, o.visible)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seeded %d users in %s\n", o.conns, since(start))
	srv, err := startServer(ctx, targetErmine, o.ermine, "", dir, env, o.pin)
	if err != nil {
		return err
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			fmt.Fprintln(out, "server stop:", err)
		}
	}()
	rec := newRecorder(o.conns, max(3*o.stormMessages, 1), 0)
	start = time.Now()
	clients, err := connectAll(ctx, []string{srv.Addr}, w, rec, o.dialers, "1")
	defer func() { closeAll(clients) }()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "connected %d in %s\n", len(clients), since(start))
	send := newSender([]string{srv.Addr}, w, o.content)
	lost := 0

	// Rounds 1 and 2: every socket drops at once; the node stays up.
	dropAll := func() (cluster, bool, error) {
		drop(clients)
		return cluster{srv}, false, nil
	}
	r, err := stormRound(ctx, o, srv.Addr, w, rec, clients, send, 0, "", dropAll)
	if err != nil {
		return fmt.Errorf("drop round: %w", err)
	}
	r.report(out, "drop (node stays up), reconnect with resume", len(clients))
	lost += r.lost

	// Round 2: the same without resume.
	r, err = stormRound(ctx, o, srv.Addr, w, rec, clients, send, o.stormMessages, "1", dropAll)
	if err != nil {
		return fmt.Errorf("drop round without resume: %w", err)
	}
	r.report(out, "drop (node stays up), reconnect without resume (full Ready)", len(clients))
	lost += r.lost

	// Round 3: the node is killed and started again.
	r, err = stormRound(ctx, o, srv.Addr, w, rec, clients, send, 2*o.stormMessages, "", func() (cluster, bool, error) {
		if err := srv.Kill(); err != nil {
			return nil, false, err
		}
		drop(clients)
		restarted, err := startServer(ctx, targetErmine, o.ermine, srv.Addr, dir, env, o.pin)
		if err != nil {
			return nil, false, err
		}
		srv = restarted
		return cluster{srv}, true, nil
	})
	if err != nil {
		return fmt.Errorf("restart round: %w", err)
	}
	r.report(out, "restart (kill, start on the same port and data), reconnect with resume", len(clients))
	lost += r.lost
	if lost > 0 {
		return fmt.Errorf("%d messages lost", lost)
	}
	return ctx.Err()
}

// stormResult is what a round measured.
type stormResult struct {
	back              time.Duration // until every client had Ready or Resumed
	resumed, full     int
	cpu               time.Duration // the node's CPU during the round (the restarted one's since its start)
	sent, failed      int
	live, history     int // (client, message) pairs: received; posted before a full Ready and in history
	lost              int
	probe             []time.Duration
	probeErrors       int
	historyErr, first error
}

func (r *stormResult) report(out io.Writer, title string, conns int) {
	fmt.Fprintf(out, "%s:\n", title)
	fmt.Fprintf(out, "  all %d back in %s: %d resumed, %d full Ready; server CPU %s (%.0f µs per reconnect)\n",
		conns, r.back.Round(time.Millisecond), r.resumed, r.full, r.cpu.Round(10*time.Millisecond),
		float64(r.cpu.Microseconds())/float64(conns))
	fmt.Fprintf(out, "  messages posted during the storm %d (failed %d): received %d, in history before a full Ready %d, lost %d\n",
		r.sent, r.failed, r.live, r.history, r.lost)
	if r.first != nil {
		fmt.Fprintf(out, "  first send error: %v\n", r.first)
	}
	if r.historyErr != nil {
		fmt.Fprintf(out, "  history: %v\n", r.historyErr)
	}
	fmt.Fprintf(out, "  API GET /users/@me during the storm: %s; errors %d\n", testbed.Describe(r.probe), r.probeErrors)
}

// stormRound runs one round: cut ends the clients' connections (and
// returns the node serving afterwards, and whether it is a new process
// whose CPU all counts); then every client reconnects, with resume
// ("") or asking for a full Ready ("1", see redial), while messages
// [first, first+--storm-messages) are posted and the prober runs.
func stormRound(ctx context.Context, o options, addr string, w *world, rec *recorder, clients []*client, send *sender,
	first int, resume string, cut func() (cluster, bool, error)) (*stormResult, error) {
	r := &stormResult{}
	ctx, cancel := context.WithTimeout(ctx, o.stormTimeout)
	defer cancel()
	deadline := time.Now().Add(o.stormTimeout)
	prober, err := startProber(ctx, addr, w.users[0].Token)
	if err != nil {
		return r, fmt.Errorf("API prober: %w", err)
	}
	start := time.Now()
	n := o.stormMessages
	postStart := make([]time.Time, n)
	ok := make([]bool, n)
	var sendWG sync.WaitGroup
	sendWG.Add(1)
	go func() {
		defer sendWG.Done()
		for i := range n {
			postStart[i] = time.Now()
			for ctx.Err() == nil {
				err := send.send(ctx, first+i)
				if err == nil {
					ok[i] = true
					break
				}
				if r.first == nil {
					r.first = err
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	var user0, sys0 time.Duration
	servers, fresh, err := cut()
	if err == nil {
		if !fresh {
			user0, sys0, _ = servers.cpu()
		}
		if o.stormTrace != "" && !fresh && resume == "" {
			// The first two seconds of the drop round, where the API
			// waits longest (go tool trace, or golang.org/x/exp/trace).
			done := make(chan struct{})
			go func() {
				defer close(done)
				if err := servers[0].saveProfile(ctx, "trace?seconds=2", o.stormTrace); err != nil {
					fmt.Fprintln(os.Stderr, "ermine-fanout: --storm-trace:", err)
				}
			}()
			defer func() { <-done }()
		}
		// The clients retry until the node answers.
		err = redial(ctx, addr, w, rec, clients, o.stormDialers, resume, deadline)
	}
	r.back = time.Since(start)
	sendWG.Wait()
	var perr error
	r.probe, r.probeErrors, perr = prober.finish()
	if err == nil && perr != nil {
		err = fmt.Errorf("API prober: %w", perr)
	}
	if err != nil {
		return r, err
	}
	if u, s, err := servers.cpu(); err == nil {
		r.cpu = u + s - user0 - sys0
	}
	for i := range n {
		if ok[i] {
			r.sent++
		} else {
			r.failed++
		}
	}
	// Deliveries: every client that should have a message live.
	inHistory, herr := history(ctx, addr, w)
	r.historyErr = herr
	// The last deliveries and replays: until no frame came for half a
	// second, at most 10 s.
	waitQuiet(ctx, rec, 500*time.Millisecond, 10*time.Second)
	// (The readers have gone quiet; seen is read atomically all the same.)
	for _, c := range clients {
		if c.resumed {
			r.resumed++
		} else {
			r.full++
		}
		for i := range n {
			if !ok[i] {
				continue
			}
			seq := first + i
			switch {
			case atomic.LoadUint64(&c.seen[seq/64])&(1<<(seq%64)) != 0:
				r.live++
			case !c.resumed && postStart[i].Before(c.readyAt) && inHistory[seq]:
				r.history++
			default:
				r.lost++
			}
		}
	}
	return r, nil
}

// probeCommand is the subcommand that runs the API prober in a process
// of its own: ermine-fanout probe-api ADDR reads the session token from
// its standard input's first line, opens warmConns keep-alive
// connections to the API and prints "ready", probes until its standard
// input ends, then prints the latency of each answer in microseconds,
// one per line, and last "failed N".
const probeCommand = "probe-api"

// warmConns is how many connections the prober opens before the storm:
// an API client keeps its connections (a proxy in front of the node
// does), and a new one would wait in the listener's accept queue behind
// the storm's thousand dialers.
const warmConns = 8

// probeAPI is the probe-api subcommand.
func probeAPI(ctx context.Context, addr string, in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	token, err := r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("reading the token: %w", err)
	}
	token = strings.TrimSpace(token)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, warmConns)
	for range warmConns {
		wg.Go(func() {
			if _, err := getMe(ctx, client, addr, token); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	if _, err := fmt.Fprintln(out, "ready"); err != nil {
		return err
	}
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, r)
		close(stop)
	}()
	lat, failed := probe(ctx, client, addr, token, stop)
	w := bufio.NewWriter(out)
	for _, d := range lat {
		fmt.Fprintln(w, d.Microseconds())
	}
	fmt.Fprintln(w, "failed", failed)
	return w.Flush()
}

// prober is a probe-api process of this executable.
type prober struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startProber starts a prober and returns once its connections are open.
func startProber(ctx context.Context, addr, token string) (*prober, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p := &prober{cmd: exec.CommandContext(ctx, self, probeCommand, addr)}
	p.cmd.Stderr = os.Stderr
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReader(stdout)
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	if _, err := io.WriteString(p.stdin, token+"\n"); err != nil {
		_, _, _ = p.finish() // the error said is the start's
		return nil, err
	}
	if line, err := p.out.ReadString('\n'); err != nil || line != "ready\n" {
		_, _, _ = p.finish()
		return nil, fmt.Errorf("probe-api did not start (%q, %v)", line, err)
	}
	return p, nil
}

// finish stops the prober and returns what it measured.
func (p *prober) finish() ([]time.Duration, int, error) {
	p.stdin.Close()
	var lat []time.Duration
	failed := -1
	var perr error
	sc := bufio.NewScanner(p.out)
	for sc.Scan() {
		line := sc.Text()
		var err error
		if n, ok := strings.CutPrefix(line, "failed "); ok {
			failed, err = strconv.Atoi(n)
		} else {
			var us int64
			us, err = strconv.ParseInt(line, 10, 64)
			lat = append(lat, time.Duration(us)*time.Microsecond)
		}
		if err != nil && perr == nil {
			perr = fmt.Errorf("probe-api printed %q", line)
		}
	}
	if err := p.cmd.Wait(); err != nil {
		return nil, 0, err
	}
	if perr == nil && failed < 0 {
		perr = errors.New("probe-api printed no count of failures")
	}
	return lat, failed, perr
}

// probe starts GET /users/@me every 10 ms until stop, whether or not
// earlier ones answered (open loop, at most 64 in flight: a tick with as
// many under way counts as a failure), and returns the latencies of the
// answers and the number of failures.
func probe(ctx context.Context, client *http.Client, addr, token string, stop <-chan struct{}) ([]time.Duration, int) {
	var mu sync.Mutex
	var lat []time.Duration
	failed := 0
	var wg sync.WaitGroup
	inFlight := make(chan struct{}, 64)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	one := func() {
		defer wg.Done()
		defer func() { <-inFlight }()
		t := time.Now()
		ok, _ := getMe(ctx, client, addr, token)
		mu.Lock()
		defer mu.Unlock()
		if ok {
			lat = append(lat, time.Since(t))
		} else {
			failed++
		}
	}
	for started := 0; started < 100_000; started++ {
		select {
		case <-stop:
		case <-ctx.Done():
		case <-tick.C:
			select {
			case inFlight <- struct{}{}:
				wg.Add(1)
				go one()
			default:
				mu.Lock()
				failed++
				mu.Unlock()
			}
			continue
		}
		break
	}
	wg.Wait()
	return lat, failed
}

// getMe sends GET /users/@me and reports whether it answered 200.
func getMe(ctx context.Context, client *http.Client, addr, token string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/users/@me", nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("X-Session-Token", token)
	res, err := client.Do(req)
	if err != nil {
		return false, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return false, fmt.Errorf("GET /users/@me: %s", res.Status)
	}
	return true, nil
}

// history reads the channel's last 100 messages and returns the
// sequence numbers of the fan-out messages among them.
func history(ctx context.Context, addr string, w *world) (map[int]bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/channels/"+string(w.channel)+"/messages?limit=100", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Session-Token", w.users[0].Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET messages: %s %s", res.Status, b)
	}
	return contentSeqs(b), nil
}

// contentSeqs finds the sequence numbers of the fan-out messages'
// contents in b.
func contentSeqs(b []byte) map[int]bool {
	seqs := map[int]bool{}
	const key = "fanout seq="
	for {
		i := bytes.Index(b, []byte(key))
		if i < 0 {
			return seqs
		}
		b = b[i+len(key):]
		j := 0
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if n, err := strconv.Atoi(string(b[:j])); err == nil {
			seqs[n] = true
		}
	}
}
