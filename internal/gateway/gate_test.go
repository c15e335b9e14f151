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

// A place taken with enterFor is given as one coming back: at once when
// one is free, else before those that have not started.
func TestGateEnterFor(t *testing.T) {
	g := newGate(1)
	now := make(chan struct{})
	g.enterFor(now)
	select {
	case <-now:
	default:
		t.Fatal("enterFor did not take the free place")
	}
	fresh := make(chan struct{})
	go func() {
		g.enter(false)
		close(fresh)
	}()
	deadline := time.Now().Add(3 * time.Second)
	for g.waiting() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the fresh caller did not queue")
		}
		time.Sleep(time.Millisecond)
	}
	back := make(chan struct{})
	g.enterFor(back)
	g.leave()
	select {
	case <-back:
	case <-fresh:
		t.Fatal("a fresh caller went before one coming back")
	}
	g.leave()
	<-fresh
	g.leave()
	if g.free != 1 {
		t.Fatalf("%d free places, want 1", g.free)
	}
}
