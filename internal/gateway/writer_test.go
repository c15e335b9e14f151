package gateway

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSocket records what a connection writes. Writes can be held until
// the test lets them through, and can report bytes held for the client.
type fakeSocket struct {
	name    string
	hold    bool          // Write waits for proceed: a slow system call
	started chan struct{} // a held write began
	proceed chan struct{} // let one held write finish

	mu     sync.Mutex
	held   bool     // what Write reports
	events []string // "write <bytes>", "close <code>", "abort"
}

func newFakeSocket(name string) *fakeSocket {
	return &fakeSocket{name: name, started: make(chan struct{}, 100), proceed: make(chan struct{}, 100)}
}

func (s *fakeSocket) Write(b []byte) (bool, error) {
	if s.hold {
		s.started <- struct{}{}
		<-s.proceed
	}
	s.record(fmt.Sprintf("write %q", b))
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held, nil
}

func (s *fakeSocket) setHeld(v bool) {
	s.mu.Lock()
	s.held = v
	s.mu.Unlock()
}

func (s *fakeSocket) Close(code uint16, _ string) { s.record(fmt.Sprint("close ", code)) }
func (s *fakeSocket) Abort()                      { s.record("abort") }

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
	s.hold = true
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
	wantEvents := []string{"write " + frames("first"), "write " + frames(append(want, "last")...), "close 1000"}
	if strings.Join(got, "\n") != strings.Join(wantEvents, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantEvents, "\n"))
	}
	if c.pending.Load() != 0 {
		t.Errorf("pending = %d after the queue drained", c.pending.Load())
	}
}

// TestWriterBacklog checks that frames written while the socket still
// holds bytes for the client count against the send queue bound, that a
// write the kernel takes whole starts the count again, and that a client
// over the bound is cut.
func TestWriterBacklog(t *testing.T) {
	g := testGateway(t, 4)
	s := newFakeSocket("behind")
	c := testConn(g, s)
	write := func(n int) {
		t.Helper()
		before := len(s.waitEvents(t, 0))
		for i := range n {
			c.enqueue(func() { c.write([]byte(fmt.Sprint("frame ", i))) })
			s.waitEvents(t, before+i+1)
		}
	}
	s.setHeld(true)
	write(4) // 4 frames behind: at the bound
	if c.closing.Load() {
		t.Fatal("a connection 4 frames behind with a bound of 4 is closing")
	}
	s.setHeld(false)
	write(1) // the client caught up
	s.setHeld(true)
	write(4)
	if c.closing.Load() {
		t.Fatal("the count did not start again when the client caught up")
	}
	c.enqueue(func() { c.write([]byte("one too many")) })
	events := s.waitEvents(t, 11)
	if events[10] != "abort" {
		t.Fatalf("events %q, want abort after the 5th frame behind", events)
	}
	if g.stats.slow.Load() != 1 {
		t.Errorf("slow disconnects = %d, want 1", g.stats.slow.Load())
	}
}

// TestWriterDropsSlowClient checks that a connection with more than
// SendQueue jobs waiting behind a write is aborted and its waiting jobs
// are not run.
func TestWriterDropsSlowClient(t *testing.T) {
	g := testGateway(t, 4)
	s := newFakeSocket("slow")
	s.hold = true
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
