package gateway

import (
	"time"
)

// Deadlines are kept by one sweep over the open connections, not by a
// timer per connection: a timer and its callback would be about a tenth
// of what an idle connection costs, and resetting it on every frame the
// client sends would cost more than noting the time. Every sweepPeriod
// the sweep closes the connections that did not authenticate within
// AuthTimeout (close 1008) and drops those silent for longer than
// Keepalive, so each deadline is kept to within a period.

// sweepPeriod is how often the sweep runs: a quarter of the shorter
// deadline, at most a second.
func sweepPeriod(keepalive, authTimeout time.Duration) time.Duration {
	return max(min(keepalive, authTimeout, 4*time.Second)/4, time.Millisecond)
}

// sweepLoop runs the sweep until stop is closed.
func (g *Gateway) sweepLoop(stop <-chan struct{}) {
	t := time.NewTicker(sweepPeriod(g.keepalive, g.authTimeout))
	defer t.Stop()
	var late, silent []*conn
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			late, silent = g.sweep(now, late[:0], silent[:0])
			g.expireHeld(now, false)
			clear(late)
			clear(silent)
		}
	}
}

// sweep closes the connections past a deadline at now. It collects them
// under g.mu into the buffers it is given and returns, and closes them
// after.
func (g *Gateway) sweep(now time.Time, late, silent []*conn) ([]*conn, []*conn) {
	t := now.UnixNano()
	authBy, quietBy := t-int64(g.authTimeout), t-int64(g.keepalive)
	g.mu.Lock()
	for c := range g.conns {
		switch {
		case c.handshaking.Load():
			// Waiting for the server (gate.go).
		case !c.authenticated() && c.opened < authBy:
			late = append(late, c)
		case c.seen.Load() < quietBy:
			silent = append(silent, c)
		}
	}
	g.mu.Unlock()
	for _, c := range late {
		if !c.authenticated() && !c.closing.Load() && !c.handshaking.Load() {
			c.closeWith(closePolicy, "not authenticated in time")
		}
	}
	for _, c := range silent {
		if !c.closing.Load() && !c.handshaking.Load() {
			c.abort()
		}
	}
	return late, silent
}
