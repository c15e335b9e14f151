package gateway_test

import (
	"net/url"
	"sync"
	"testing"
	"time"

	"ermine/internal/gateway"
	"ermine/internal/resume"
)

// TestHandshakeWaitsAtGate: with one handshake at a time, a connection
// waiting for the one under way is not closed for not authenticating in
// time, nor is the one under way; both get their Ready.
func TestHandshakeWaitsAtGate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{Handshakes: 1, AuthTimeout: 200 * time.Millisecond})
	_, annToken := h.user("ann")
	_, boToken := h.user("bo")
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	gateway.SetBeforeLive(h.gw, func(func() int) {
		once.Do(func() {
			close(entered)
			<-release
		})
	})
	first := h.dialLater(t, url.Values{"version": {"1"}, "format": {"json"}, "token": {annToken}})
	<-entered
	second := h.dialLater(t, url.Values{"version": {"1"}, "format": {"json"}, "token": {boToken}})
	time.Sleep(600 * time.Millisecond) // three times AuthTimeout
	close(release)
	for _, ch := range []<-chan *client{first, second} {
		cl := <-ch
		if cl == nil {
			t.FailNow()
		}
		cl.expect("Authenticated")
		cl.expect("Ready")
	}
}

// TestResumeNodeGone resumes streams whose node is gone (it stopped
// beating: killed, or shut down) or alive but not answering: the first
// gets a full Ready at once, the second after waiting for the answer.
func TestResumeNodeGone(t *testing.T) {
	t.Parallel()
	streams := resume.NewMemory(nil)
	h := newHarness(t, gateway.Options{Streams: streams})
	bob, bobToken := h.user("bob")
	ctx := t.Context()
	for _, c := range []struct {
		name  string
		alive bool
	}{{"gone", false}, {"silent", true}} {
		t.Run(c.name, func(t *testing.T) {
			node := c.name + "-node"
			if c.alive {
				if err := streams.Beat(ctx, node, time.Minute); err != nil {
					t.Fatal(err)
				}
			}
			id := "abcdefghijklmnopqrstuvwx" + map[bool]string{false: "yz", true: "23"}[c.alive]
			if err := streams.Open(ctx, id, string(bob.ID), "json", node, time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := streams.Append(ctx, id, []resume.Frame{{Seq: 1, Data: []byte(`{"type":"Pong","data":0}`)}}, time.Minute); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			fullReady(t, h.reconnect(t, bobToken, "json", id, 0), id)
			took := time.Since(start)
			if !c.alive && took > time.Second {
				t.Fatalf("full Ready after %s: waited for a node that is gone", took)
			}
			if c.alive && took < time.Second {
				t.Fatalf("full Ready after %s: did not wait for a node that is alive", took)
			}
		})
	}
}

// TestResumeAfterBeats: a node beats while it runs, so a stream it holds
// (after a drop) is taken over by another node long after the node's
// first beat would have run out.
func TestResumeAfterBeats(t *testing.T) {
	t.Parallel()
	st, bus := newStore(t), newBus(t)
	streams := resume.NewMemory(nil)
	one := newNode(t, st, bus, gateway.Options{Streams: streams})
	two := newNode(t, st, bus, gateway.Options{Streams: streams})
	_, bobToken := one.user("bob")
	cl, id, _ := one.resumable(t, bobToken, "json")
	one.drop(t, cl)
	time.Sleep(4 * time.Second)
	cl = two.reconnect(t, bobToken, "json", id, cl.seq)
	cl.resumed()
}

// TestReplacesNode: a gateway that replaces a node (the same server
// restarted) removes its mark of life at once, and beats itself.
func TestReplacesNode(t *testing.T) {
	t.Parallel()
	streams := resume.NewMemory(nil)
	if err := streams.Beat(t.Context(), "before", time.Minute); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, gateway.Options{Streams: streams, Replaces: "before"})
	if alive, _ := streams.Alive(t.Context(), "before"); alive {
		t.Fatal("the replaced node is still alive")
	}
	if alive, _ := streams.Alive(t.Context(), h.gw.Node()); !alive {
		t.Fatal("the new node is not alive")
	}
}
