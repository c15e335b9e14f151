package gateway_test

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ermine/internal/gateway"
	"ermine/internal/wsload"
)

// rawClient is a minimal WebSocket client for benchmarks: it handshakes,
// reads Authenticated and Ready, and then either stays idle (no goroutine,
// a few hundred bytes) or counts frames on a goroutine.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(tb testing.TB, h *harness, token string) *rawClient {
	tb.Helper()
	u, _ := url.Parse(h.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		tb.Fatal(err)
	}
	q := url.Values{"version": {"1"}, "format": {"json"}, "token": {token}}
	fmt.Fprintf(conn, "GET /events?%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", q.Encode(), u.Host)
	c := &rawClient{conn: conn, r: bufio.NewReaderSize(conn, 512)}
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			tb.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
	}
	for _, want := range []string{`{"type":"Authenticated"}`, `{"type":"Ready"`} {
		b, err := c.frame()
		if err != nil || !strings.HasPrefix(string(b), want) {
			tb.Fatalf("got %.60q (%v), want %s", b, err, want)
		}
	}
	return c
}

// frame reads one server frame. A fresh reader each time keeps no buffer
// between frames, so idle clients stay small.
func (c *rawClient) frame() ([]byte, error) { return wsload.NewReader(c.r).Next() }

// BenchmarkIdleConnections reports the Go heap and stacks held per idle,
// authenticated and subscribed connection, server side plus a raw client
// (a net.Conn and a 512-byte reader, no goroutine), and the process RSS
// growth per connection. Each iteration opens and measures a fresh set.
func BenchmarkIdleConnections(b *testing.B) {
	const conns = 2000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := newHarness(b, gateway.Options{UnauthenticatedPerIP: 1 << 20}) // every client dials from loopback
		owner, token := h.user("owner")
		h.server(owner.ID)
		before, rssBefore := memory()
		b.StartTimer()
		clients := make([]*rawClient, conns)
		for i := range clients {
			clients[i] = dialRaw(b, h, token)
		}
		b.StopTimer()
		time.Sleep(100 * time.Millisecond)
		after, rssAfter := memory()
		b.ReportMetric(float64(after-before)/conns, "heap+stack-B/conn")
		b.ReportMetric(float64(rssAfter-rssBefore)/conns, "rss-B/conn")
		for _, c := range clients {
			c.conn.Close()
		}
	}
}

// memory returns the Go heap and stacks in use and the process RSS.
func memory() (goBytes, rss uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b, err := os.ReadFile("/proc/self/statm")
	if err == nil {
		var size, resident uint64
		if _, err := fmt.Sscan(string(b), &size, &resident); err == nil {
			rss = resident * uint64(os.Getpagesize())
		}
	}
	return m.HeapInuse + m.StackInuse, rss
}

// BenchmarkFanout publishes messages to a channel followed by many
// connections and waits until every connection has received each one.
// ns/delivery is the whole process's time per frame delivered (server and
// clients share the machine).
func BenchmarkFanout(b *testing.B) {
	for _, conns := range []int{100, 1000} {
		b.Run(fmt.Sprint(conns), func(b *testing.B) {
			h := newHarness(b, gateway.Options{UnauthenticatedPerIP: 1 << 20}) // every client dials from loopback
			owner, token := h.user("owner")
			_, general := h.server(owner.ID)
			var got, target atomic.Int64
			reached := make(chan struct{}, 1)
			clients := make([]*rawClient, conns)
			for i := range clients {
				clients[i] = dialRaw(b, h, token)
			}
			for _, c := range clients {
				go func() {
					for {
						if _, err := c.frame(); err != nil {
							return
						}
						if got.Add(1) == target.Load() {
							reached <- struct{}{}
						}
					}
				}()
			}
			time.Sleep(200 * time.Millisecond) // presence updates settle
			got.Store(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				target.Store(int64(i+1) * int64(conns))
				message(h, general.ID, owner.ID, "benchmark message of a typical length, fifty bytes")
				<-reached
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*int64(conns)), "ns/delivery")
			for _, c := range clients {
				c.conn.Close()
			}
		})
	}
}
