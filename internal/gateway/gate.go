package gateway

import (
	"runtime"
	"sync"

	"ermine/internal/chat"
)

// A handshake (authentication, Ready built and encoded, topics followed;
// for a resume the follow and the replay) is the costliest thing the
// gateway does for a connection, and it runs on the goroutine that
// serves the upgrade request. When thousands of clients reconnect at
// once (a node restarted, a network blip), their handshakes would all be
// runnable together and the API's requests, scheduled no sooner than any
// of them, would wait behind them. The gate lets a few handshakes work
// at a time, about one per CPU, and queues the others in order of
// arrival: they cost a parked goroutine each while they wait, and the
// API keeps getting the CPU the gate leaves over. A handshake that waits
// on something other than the CPU (the holder of a stream it resumes)
// leaves the gate meanwhile and, coming back, goes before those that
// have not started yet.
//
// A closing connection's presence (the user may have gone offline, which
// reads the user and tells the others) passes the gate too: when
// thousands of sockets drop at once, their closes would otherwise take
// every database connection and the API's requests would wait behind
// them for one.
//
// A caller that had to wait yields once it has its place
// (runtime.Gosched) before it works. The place passes by closing the
// waiter's channel, which makes the waiter the next goroutine the
// leaver's P runs, inheriting the time slice: without the yield, the
// handshakes and closes passing the gate one after another would hold
// each P for whole slices, and since an inherited slice does not advance
// the P's scheduling tick, the P would not look at the global run queue
// meanwhile. That queue is where the runtime puts goroutines whose
// socket became readable while every P was busy (an API request in a
// storm, noticed by sysmon), so they would wait behind the whole chain
// (docs/performance.md). Yielding puts the admitted caller at the tail
// of that queue, behind the API requests already waiting there.
//
// A connection waiting at the gate or in its handshake is exempt from
// the authentication and keepalive deadlines (keepalive.go): it waits
// for the server, not the other way round.

// defaultHandshakes is how many handshakes work at once unless
// Options.Handshakes says otherwise.
func defaultHandshakes() int { return max(1, runtime.GOMAXPROCS(0)) }

// gate admits at most n holders at once, in order of arrival, with those
// coming back (see enter) before new ones.
type gate struct {
	mu    sync.Mutex
	free  int
	back  []chan struct{} // waiting to come back
	fresh []chan struct{} // waiting to start
}

func newGate(n int) *gate { return &gate{free: n} }

// enter waits for a place; again reports that the caller held one
// before in the same handshake and goes first.
func (g *gate) enter(again bool) {
	ch := make(chan struct{})
	if !g.admit(ch, again) {
		admitted(ch)
	}
}

// admitted waits until ch, queued by admit, is closed, the caller then
// holding a place, and yields (see above).
func admitted(ch <-chan struct{}) {
	<-ch
	runtime.Gosched()
}

// enterFor queues admit as a caller coming back (see enter) and closes
// it when the place is its: a caller waiting on something else hands
// admit over when that comes, so that it wakes once, holding a place,
// and waits for it with admitted.
func (g *gate) enterFor(admit chan struct{}) { g.admit(admit, true) }

// admit closes ch at once and reports true when a place is free and
// nobody waits, or queues it (first among those coming back, when
// again) to be closed by leave.
func (g *gate) admit(ch chan struct{}, again bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.free > 0 && len(g.back) == 0 && len(g.fresh) == 0:
		g.free--
		close(ch)
		return true
	case again:
		g.back = append(g.back, ch)
	default:
		g.fresh = append(g.fresh, ch)
	}
	return false
}

// leave gives the place up, to the longest waiting caller if any.
func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	var next chan struct{}
	switch {
	case len(g.back) > 0:
		next, g.back[0] = g.back[0], nil
		g.back = g.back[1:]
	case len(g.fresh) > 0:
		next, g.fresh[0] = g.fresh[0], nil
		g.fresh = g.fresh[1:]
	default:
		g.free++
		return
	}
	close(next) // the place passes straight to it
}

// waiting returns how many callers wait.
func (g *gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.back) + len(g.fresh)
}

// userDisconnected counts one connection of user's less, through the gate.
func (g *Gateway) userDisconnected(user chat.ID) {
	g.gate.enter(false)
	defer g.gate.leave()
	g.app.UserDisconnected(g.ctx, user)
}
