// Package sharedtest is the one conformance suite of shared.State: the
// suites of each part (presence, nonces, rate limits, slowmode, resume
// streams) on one
// node, and the same state seen from several nodes.
package sharedtest

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/nonce"
	"ermine/internal/nonce/noncetest"
	"ermine/internal/presence"
	"ermine/internal/presence/presencetest"
	"ermine/internal/ratelimit"
	"ermine/internal/ratelimit/limitertest"
	"ermine/internal/resume"
	"ermine/internal/resume/resumetest"
	"ermine/internal/shared"
	"ermine/internal/slowmode"
	"ermine/internal/slowmode/slowmodetest"
)

// Cluster is a set of nodes sharing one state.
type Cluster struct {
	// Node returns the state of a new node. A single-process
	// implementation returns the same state every time.
	Node func(t *testing.T) *shared.State
	// Shared reports whether nodes share state; the cross-node cases
	// run only then.
	Shared bool
	// Lease is the presence lease, when Shared.
	Lease time.Duration
}

// Run checks an implementation; open returns a fresh, empty cluster.
func Run(t *testing.T, open func(t *testing.T) Cluster) {
	t.Run("Presence", func(t *testing.T) {
		presencetest.Run(t, func(t *testing.T) presencetest.Cluster {
			c := open(t)
			states := map[presence.Tracker]*shared.State{}
			return presencetest.Cluster{
				Node: func(t *testing.T) presence.Tracker {
					s := c.Node(t)
					states[s.Presence] = s
					return s.Presence
				},
				Shared: c.Shared,
				Lease:  c.Lease,
				Kill: func(tr presence.Tracker) {
					if err := states[tr].Close(); err != nil {
						t.Errorf("kill node: %v", err)
					}
				},
			}
		})
	})
	t.Run("Nonces", func(t *testing.T) {
		noncetest.Run(t, func(t *testing.T) nonce.Guard { return open(t).Node(t).Nonces })
	})
	t.Run("RateLimits", func(t *testing.T) {
		// Redis counts expiry in whole milliseconds: a sleep of exactly
		// the window can end within the millisecond the counter expires
		// in, when it is not yet gone (as in ratelimit's own Redis test).
		limitertest.Run(t, 500*time.Millisecond, func(t *testing.T) (ratelimit.Limiter, func(time.Duration)) {
			return open(t).Node(t).Limiter, func(d time.Duration) { time.Sleep(d + 5*time.Millisecond) }
		})
	})
	t.Run("Slowmode", func(t *testing.T) {
		slowmodetest.Run(t, 100*time.Millisecond, func(t *testing.T) (slowmode.Windows, func(time.Duration)) {
			return open(t).Node(t).Slowmodes, time.Sleep
		})
	})
	t.Run("Streams", func(t *testing.T) {
		resumetest.Run(t, 100*time.Millisecond, func(t *testing.T) (resume.Streams, func(time.Duration)) {
			return open(t).Node(t).Streams, time.Sleep
		})
	})
	t.Run("AcrossNodes", func(t *testing.T) {
		c := open(t)
		if !c.Shared {
			t.Skip("one process: there is no other node")
		}
		ctx := context.Background()
		a, b := c.Node(t), c.Node(t)

		key := "author\x00" + rand.Text()
		if ok, err := a.Nonces.Reserve(ctx, key); err != nil || !ok {
			t.Fatalf("reserve on a = %v, %v", ok, err)
		}
		if ok, err := b.Nonces.Reserve(ctx, key); err != nil || ok {
			t.Errorf("the key reserved on a reserved again on b = %v, %v", ok, err)
		}

		bucket := "user:" + rand.Text()
		for i := range 2 {
			if r, err := a.Limiter.Take(ctx, bucket, 2, time.Minute); err != nil || !r.Allowed {
				t.Fatalf("take %d on a = %+v, %v", i, r, err)
			}
		}
		if r, err := b.Limiter.Take(ctx, bucket, 2, time.Minute); err != nil || r.Allowed {
			t.Errorf("a bucket spent on a allowed on b = %+v, %v", r, err)
		}

		user, ch := chat.NewID(), chat.NewID()
		if w, err := a.Slowmodes.Start(ctx, user, ch, time.Minute); err != nil || w != nil {
			t.Fatalf("slowmode start on a = %+v, %v", w, err)
		}
		if w, err := b.Slowmodes.Start(ctx, user, ch, time.Minute); err != nil || w == nil {
			t.Errorf("a window opened on a did not hold on b = %+v, %v", w, err)
		}

		id := rand.Text()
		if err := a.Streams.Open(ctx, id, string(user), "json", "N1", time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := a.Streams.Append(ctx, id, []resume.Frame{{Seq: 1, Data: []byte("{}")}}, time.Minute); err != nil {
			t.Fatal(err)
		}
		if f, err := b.Streams.Frames(ctx, id, 0); err != nil || len(f) != 1 {
			t.Errorf("a stream held on a read on b = %v, %v", f, err)
		}
		node := rand.Text()
		if err := a.Streams.Beat(ctx, node, time.Minute); err != nil {
			t.Fatal(err)
		}
		if alive, err := b.Streams.Alive(ctx, node); err != nil || !alive {
			t.Errorf("a node beating on a is not alive on b = %v, %v", alive, err)
		}
	})
}
