package gateway

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSocket records what a connection writes. Writes can be held until
// the test lets them through, and TryWrite can take only part of a batch.
type fakeSocket struct {
	name    string
	hold    bool          // WriteFrames waits for proceed
	holdTry bool          // TryWrite too: a slow system call
	started chan struct{} // a held write began
	proceed chan struct{} // let one held write finish
	takes   int           // TryWrite takes at most this many bytes; 0: all

	mu     sync.Mutex
	events []string // "try <bytes>", "write <bytes>", "close <code>", "abort"
}

func newFakeSocket(name string) *fakeSocket {
	return &fakeSocket{name: name, started: make(chan struct{}, 100), proceed: make(chan struct{}, 100)}
}

func (s *fakeSocket) wait(hold bool) {
	if hold {
		s.started <- struct{}{}
		<-s.proceed
	}
}

func (s *fakeSocket) WriteFrames(b []byte) error {
	s.wait(s.hold)
	s.record(fmt.Sprintf("write %q", b))
	return nil
}

func (s *fakeSocket) TryWrite(b []byte) (int, error) {
	s.wait(s.holdTry)
	n := len(b)
	if s.takes > 0 {
		n = min(n, s.takes)
	}
	s.record(fmt.Sprintf("try %q", b[:n]))
	return n, nil
}

func (s *fakeSocket) Close(code uint16, _ string)     { s.record(fmt.Sprint("close ", code)) }
func (s *fakeSocket) Abort()                          { s.record("abort") }
func (s *fakeSocket) SetReadDeadline(time.Time) error { return nil }

func (s *fakeSocket) record(e string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

// waitEvents waits until n events were recorded and returns them.
func (s *fakeSocket) waitEvents(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		events := append([]string(nil), s.events...)
		s.mu.Unlock()
		if len(events) >= n {
			return events
		}
		if time.Now().After(deadline) {
			t.Fatalf("events %q, want %d", events, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// testGateway is a gateway with one shared writer and no transport.
func testGateway(t *testing.T, sendQueue int32) *Gateway {
	g := &Gateway{sendQueue: sendQueue, log: slog.New(slog.DiscardHandler)}
	g.buffers.New = func() any { b := make([]byte, 0, 64); return &b }
	g.writers.start(g, 1)
	t.Cleanup(g.writers.stop)
	return g
}

func testConn(g *Gateway, s *fakeSocket) *conn { return &conn{g: g, ws: s} }

// frames renders payloads as the text frames a batch holds.
func frames(payloads ...string) string {
	var b []byte
	for _, p := range payloads {
		b = appendFrame(b, opText, []byte(p))
	}
	return fmt.Sprintf("%q", b)
}

// TestWriterBatches checks that the frames queued while a write is under
// way leave together in the next write, in order, and that a close asked
// for after them follows them, dropping what comes after it.
func TestWriterBatches(t *testing.T) {
	g := testGateway(t, 100)
	s := newFakeSocket("a")
	s.holdTry = true
	c := testConn(g, s)
	c.enqueue(func() { c.write([]byte("first")) })
	<-s.started
	var want []string
	for i := range 10 {
		p := fmt.Sprint("frame ", i)
		want = append(want, p)
		c.enqueue(func() { c.write([]byte(p)) })
	}
	c.enqueue(func() {
		c.write([]byte("last"))
		c.closeAfter(closeNormal)
	})
	c.enqueue(func() { c.write([]byte("after close")) })
	s.proceed <- struct{}{}
	<-s.started
	s.proceed <- struct{}{}
	got := s.waitEvents(t, 3)
	wantEvents := []string{"try " + frames("first"), "try " + frames(append(want, "last")...), "close 1000"}
	if strings.Join(got, "\n") != strings.Join(wantEvents, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantEvents, "\n"))
	}
	if c.pending.Load() != 0 {
		t.Errorf("pending = %d after the queue drained", c.pending.Load())
	}
}

// TestWriterFullSocket checks that the part of a batch a full socket did
// not take, and the connection's later frames, are written in order on a
// goroutine of its own while the shared writer serves other connections.
func TestWriterFullSocket(t *testing.T) {
	g := testGateway(t, 100)
	full := newFakeSocket("full")
	full.takes, full.hold = 5, true
	c := testConn(g, full)
	c.enqueue(func() { c.write([]byte("one")); c.write([]byte("two")) })
	<-full.started // the rest of the batch waits for the socket
	c.enqueue(func() { c.write([]byte("three")) })

	other := newFakeSocket("other")
	d := testConn(g, other)
	d.enqueue(func() { d.write([]byte("meanwhile")) })
	if got := other.waitEvents(t, 1); got[0] != "try "+frames("meanwhile") {
		t.Errorf("other connection: %q", got)
	}
	full.proceed <- struct{}{}
	full.proceed <- struct{}{}
	events := full.waitEvents(t, 3)
	var written []byte
	for _, e := range events {
		var q string
		if _, err := fmt.Sscanf(strings.SplitN(e, " ", 2)[1], "%q", &q); err != nil {
			t.Fatalf("event %q: %v", e, err)
		}
		written = append(written, q...)
	}
	wantBytes := appendFrame(appendFrame(appendFrame(nil, opText, []byte("one")), opText, []byte("two")), opText, []byte("three"))
	if !bytes.Equal(written, wantBytes) {
		t.Errorf("written %q, want %q", written, wantBytes)
	}
	if !strings.HasPrefix(events[0], "try ") || !strings.HasPrefix(events[1], "write ") || !strings.HasPrefix(events[2], "write ") {
		t.Errorf("events %q: want a partial try, then waiting writes", events)
	}
}

// TestWriterDropsSlowClient checks that a connection with more than
// SendQueue jobs waiting behind a write is aborted and its waiting jobs
// are not run.
func TestWriterDropsSlowClient(t *testing.T) {
	g := testGateway(t, 4)
	s := newFakeSocket("slow")
	s.holdTry = true
	c := testConn(g, s)
	c.enqueue(func() { c.write([]byte("blocked")) })
	<-s.started
	ran := make(chan struct{}, 10)
	for range 4 {
		c.enqueue(func() { ran <- struct{}{}; c.write([]byte("late")) })
	}
	if c.closing.Load() {
		t.Fatal("a connection 4 jobs behind with a bound of 4 is closing")
	}
	c.enqueue(func() { ran <- struct{}{}; c.write([]byte("late")) })
	if !c.closing.Load() {
		t.Fatal("a connection 5 jobs behind with a bound of 4 is not closing")
	}
	if got := s.waitEvents(t, 1); got[0] != "abort" {
		t.Fatalf("events %q, want abort first", got)
	}
	s.proceed <- struct{}{}
	time.Sleep(20 * time.Millisecond)
	if len(ran) != 0 {
		t.Errorf("%d jobs ran after the abort", len(ran))
	}
	if g.stats.slow.Load() != 1 {
		t.Errorf("slow disconnects = %d, want 1", g.stats.slow.Load())
	}
}
