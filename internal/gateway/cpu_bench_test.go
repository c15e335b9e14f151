package gateway_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ermine/internal/gateway"
)

// clientsEnv, when set ("host:port token n"), makes TestFanoutClients
// the client side of BenchmarkFanoutCPU instead of a test.
const clientsEnv = "ERMINE_GATEWAY_BENCH_CLIENTS"

// BenchmarkFanoutCPU measures the server's CPU time per delivered frame
// at saturation: one channel followed by many connections, messages
// published in bursts of 64 (under the send queue bound) as fast as the
// connections take them. The connections live in a child process, so the
// CPU time of this process (rusage: user + system) is the gateway's, plus
// the bus and the encoding of each message once.
func BenchmarkFanoutCPU(b *testing.B) {
	const burst = 64
	for _, conns := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(conns), func(b *testing.B) {
			h := newHarness(b, gateway.Options{UnauthenticatedPerIP: 1 << 20}) // every client dials from loopback
			owner, token := h.user("owner")
			_, general := h.server(owner.ID)
			clients := startClients(b, h, token, conns)
			time.Sleep(200 * time.Millisecond) // presence updates settle
			cpu, stats := cpuTime(), h.gw.Stats()
			b.ResetTimer()
			for sent := 0; sent < b.N; {
				n := min(burst, b.N-sent)
				for range n {
					message(h, general.ID, owner.ID, "benchmark message of a typical length, fifty bytes")
				}
				sent += n
				clients.await(b, int64(sent)*int64(conns))
			}
			b.StopTimer()
			used := cpuTime() - cpu
			after := h.gw.Stats()
			b.ReportMetric(float64(after.Frames-stats.Frames)/float64(after.Writes-stats.Writes), "frames/write")
			b.ReportMetric(float64(used.Nanoseconds())/float64(int64(b.N)*int64(conns)), "cpu-ns/delivery")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clientProcess is the child process holding a benchmark's connections.
type clientProcess struct {
	in  io.Writer
	out *bufio.Reader
}

// startClients runs this test binary as a child holding n connections of
// token and waits until all have received Ready.
func startClients(b *testing.B, h *harness, token string, n int) *clientProcess {
	b.Helper()
	u, _ := url.Parse(h.url)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFanoutClients$", "-test.v")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", clientsEnv, u.Host, token, n))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	p := &clientProcess{in: in, out: bufio.NewReader(out)}
	p.expect(b, "ready")
	return p
}

// await waits until the clients have received total Message frames.
func (p *clientProcess) await(b *testing.B, total int64) {
	b.Helper()
	fmt.Fprintln(p.in, total)
	p.expect(b, "done")
}

// expect reads the child's output up to a line equal to want.
func (p *clientProcess) expect(b *testing.B, want string) {
	b.Helper()
	for {
		line, err := p.out.ReadString('\n')
		if err != nil {
			b.Fatalf("client process: %v (waiting for %q)", err, want)
		}
		if strings.TrimSpace(line) == want {
			return
		}
	}
}

// TestFanoutClients is the child process of BenchmarkFanoutCPU; as a
// test it does nothing. It opens the connections, prints "ready", then
// for each number read from stdin waits until that many Message frames
// arrived in all and prints "done". It exits at the end of stdin.
func TestFanoutClients(t *testing.T) {
	spec := os.Getenv(clientsEnv)
	if spec == "" {
		t.Skip("the client process of BenchmarkFanoutCPU")
	}
	var host, token string
	var n int
	if _, err := fmt.Sscan(spec, &host, &token, &n); err != nil {
		t.Fatalf("%s=%q: %v", clientsEnv, spec, err)
	}
	var got atomic.Int64
	for range n {
		conn, r := handshake(t, host, token)
		go countMessages(conn, r, &got)
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		target, err := strconv.ParseInt(in.Text(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for got.Load() < target {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d messages after a minute", got.Load(), target)
			}
			time.Sleep(100 * time.Microsecond)
		}
		fmt.Println("done")
	}
}

// handshake opens one connection and reads up to Ready.
func handshake(t *testing.T, host, token string) (net.Conn, *bufio.Reader) {
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"version": {"1"}, "format": {"json"}, "token": {token}}
	fmt.Fprintf(conn, "GET /events?%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", q.Encode(), host)
	r := bufio.NewReaderSize(conn, 32<<10)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
	}
	for {
		size, n, ok := frameSize(r)
		if !ok {
			t.Fatal("bad frame header")
		}
		b, err := r.Peek(n + min(size, 15))
		if err != nil {
			t.Fatal(err)
		}
		ready := strings.HasPrefix(string(b[n:]), `{"type":"Ready"`)
		if _, err := r.Discard(n + size); err != nil {
			t.Fatal(err)
		}
		if ready {
			return conn, r
		}
	}
}

// countMessages counts the Message frames arriving on a connection until
// it fails, without allocating per frame.
func countMessages(conn net.Conn, r *bufio.Reader, got *atomic.Int64) {
	defer conn.Close()
	const prefix = `{"type":"Message"`
	for {
		size, n, ok := frameSize(r)
		if !ok {
			return
		}
		if size >= len(prefix) {
			b, err := r.Peek(n + len(prefix))
			if err != nil {
				return
			}
			if string(b[n:]) == prefix {
				got.Add(1)
			}
		}
		if _, err := r.Discard(n + size); err != nil {
			return
		}
	}
}

// frameSize reads an unmasked server frame's header without consuming
// it: the payload size and the header length.
func frameSize(r *bufio.Reader) (size, header int, ok bool) {
	h, err := r.Peek(2)
	if err != nil {
		return 0, 0, false
	}
	switch n := int(h[1] & 0x7f); n {
	case 126:
		h, err = r.Peek(4)
		if err != nil {
			return 0, 0, false
		}
		return int(binary.BigEndian.Uint16(h[2:])), 4, true
	case 127:
		h, err = r.Peek(10)
		if err != nil {
			return 0, 0, false
		}
		return int(binary.BigEndian.Uint64(h[2:])), 10, true
	default:
		return n, 2, true
	}
}
