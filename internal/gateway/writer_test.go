package gateway

import (
	"bytes"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// fakeSocket records what a connection writes. Each write blocks until
// the test lets it through.
type fakeSocket struct {
	started chan struct{} // a write began
	proceed chan struct{} // let one write finish

	mu     sync.Mutex
	events []string // "write <bytes>", "close <code>", "abort"
}

func newFakeSocket() *fakeSocket {
	return &fakeSocket{started: make(chan struct{}, 100), proceed: make(chan struct{}, 100)}
}

func (s *fakeSocket) WriteFrames(b []byte) error {
	s.started <- struct{}{}
	<-s.proceed
	s.record(fmt.Sprintf("write %q", b))
	return nil
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

func testConn(sendQueue int32) (*conn, *fakeSocket) {
	g := &Gateway{sendQueue: sendQueue, log: slog.New(slog.DiscardHandler)}
	g.buffers.New = func() any { b := make([]byte, 0, 64); return &b }
	s := newFakeSocket()
	return &conn{g: g, ws: s}, s
}

// frames renders payloads as the text frames a batch holds.
func frames(payloads ...string) string {
	var b []byte
	for _, p := range payloads {
		b = appendFrame(b, false, []byte(p))
	}
	return fmt.Sprintf("write %q", b)
}

// TestWriterBatches checks that the frames queued while a write is under
// way leave together in the next write, in order, and that a close after
// them follows them.
func TestWriterBatches(t *testing.T) {
	c, s := testConn(100)
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
		c.flush()
		c.closeWith(closeNormal, "")
	})
	s.proceed <- struct{}{}
	<-s.started
	s.proceed <- struct{}{}
	got := s.waitEvents(t, 3)
	wantEvents := []string{frames("first"), frames(append(want, "last")...), "close 1000"}
	for i := range wantEvents {
		if got[i] != wantEvents[i] {
			t.Errorf("event %d = %.80s, want %.80s", i, got[i], wantEvents[i])
		}
	}
	if c.pending.Load() != 0 {
		t.Errorf("pending = %d after the queue drained", c.pending.Load())
	}
}

// TestWriterFlushesLargeBatches checks a round producing more than
// flushAt bytes is written in several writes, none much over flushAt.
func TestWriterFlushesLargeBatches(t *testing.T) {
	c, s := testConn(1000)
	payload := bytes.Repeat([]byte{'x'}, 1000)
	c.enqueue(func() { c.write([]byte("first")) })
	<-s.started
	const n = 200 // 200 KB in one round
	for range n {
		c.enqueue(func() { c.write(payload) })
	}
	s.proceed <- struct{}{}
	total := 0
	for writes := 1; total < n; writes++ {
		<-s.started
		s.proceed <- struct{}{}
		events := s.waitEvents(t, writes+1)
		e := events[writes]
		if len(e) > 4*(flushAt+2000) { // %q at most quadruples
			t.Fatalf("write %d holds %d bytes quoted, want about %d at most", writes, len(e), flushAt)
		}
		total += bytes.Count([]byte(e), payload[:1000])
	}
	if total != n {
		t.Errorf("%d frames written, want %d", total, n)
	}
}

// TestWriterDropsSlowClient checks that a connection with more than
// SendQueue jobs waiting behind a write is aborted and its waiting jobs
// are not run.
func TestWriterDropsSlowClient(t *testing.T) {
	c, s := testConn(4)
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
	if c.g.stats.slow.Load() != 1 {
		t.Errorf("slow disconnects = %d, want 1", c.g.stats.slow.Load())
	}
}
