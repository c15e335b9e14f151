package gateway

import (
	"testing"
	"time"
)

// The gate lets n in at once, then one per leave: those coming back
// first, then the others in order of arrival.
func TestGateOrder(t *testing.T) {
	g := newGate(1)
	g.enter(false)
	order := make(chan string, 3)
	waitFor := func(n int) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for g.waiting() != n {
			if time.Now().After(deadline) {
				t.Fatalf("%d waiting, want %d", g.waiting(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	for i, name := range []string{"first", "second"} {
		go func() {
			g.enter(false)
			order <- name
		}()
		waitFor(i + 1)
	}
	go func() {
		g.enter(true)
		order <- "back"
	}()
	waitFor(3)
	for _, want := range []string{"back", "first", "second"} {
		g.leave()
		if got := <-order; got != want {
			t.Fatalf("admitted %s, want %s", got, want)
		}
	}
	g.leave()
	if g.free != 1 {
		t.Fatalf("%d free places, want 1", g.free)
	}
}
