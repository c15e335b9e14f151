// Package presencetest is the conformance suite of presence.Tracker.
package presencetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/presence"
)

// Cluster is what the suite runs against: trackers that share one store,
// as the nodes of an instance do.
type Cluster struct {
	// Node returns a tracker for a new node. A single-process
	// implementation returns the same tracker every time.
	Node func(t *testing.T) presence.Tracker
	// Shared reports whether Node returns distinct nodes that share
	// presence; the cross-node cases run only then.
	Shared bool
	// Kill makes a node die: it stops renewing its leases without
	// disconnecting anybody. Required when Shared.
	Kill func(presence.Tracker)
	// Lease is the nodes' lease: a dead node's users must be offline
	// within three leases. Required when Shared.
	Lease time.Duration
}

// Run checks an implementation; open returns a fresh cluster.
func Run(t *testing.T, open func(t *testing.T) Cluster) {
	ctx := context.Background()
	t.Run("FirstAndLast", func(t *testing.T) {
		tr := open(t).Node(t)
		u := chat.NewID()
		steps := []struct {
			name    string
			connect bool
			want    bool // first or last
			online  bool
		}{
			{"first connection", true, true, true},
			{"second connection", true, false, true},
			{"one of two closes", false, false, true},
			{"last closes", false, true, false},
			{"close without connection", false, false, false},
		}
		for _, s := range steps {
			var got bool
			if s.connect {
				got = tr.Connect(ctx, u)
			} else {
				got = tr.Disconnect(ctx, u)
			}
			if got != s.want {
				t.Errorf("%s: got %v, want %v", s.name, got, s.want)
			}
			if on := tr.Online(u); on != s.online {
				t.Errorf("%s: Online = %v, want %v", s.name, on, s.online)
			}
		}
		if tr.Online(chat.NewID()) {
			t.Error("a user never connected is online")
		}
	})
	t.Run("Counts", func(t *testing.T) {
		tr := open(t).Node(t)
		users, conns := tr.Counts()
		a, b := chat.NewID(), chat.NewID()
		tr.Connect(ctx, a)
		tr.Connect(ctx, a)
		tr.Connect(ctx, b)
		u, c := tr.Counts()
		if u-users != 2 || c-conns != 3 {
			t.Fatalf("counts grew by %d users, %d connections; want 2, 3", u-users, c-conns)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		tr := open(t).Node(t)
		u := chat.NewID()
		var firsts, lasts atomic.Int32
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if tr.Connect(ctx, u) {
					firsts.Add(1)
				}
			}()
		}
		wg.Wait()
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if tr.Disconnect(ctx, u) {
					lasts.Add(1)
				}
			}()
		}
		wg.Wait()
		if firsts.Load() != 1 || lasts.Load() != 1 {
			t.Fatalf("first %d times, last %d times; want 1 and 1", firsts.Load(), lasts.Load())
		}
		if tr.Online(u) {
			t.Fatal("online after every connection closed")
		}
	})

	t.Run("AcrossNodes", func(t *testing.T) {
		c := open(t)
		if !c.Shared {
			t.Skip("one process: there is no other node")
		}
		a, b := c.Node(t), c.Node(t)
		u := chat.NewID()
		if !a.Connect(ctx, u) {
			t.Fatal("first connection on a: not first")
		}
		eventually(t, c.Lease, "b sees the user of a online", func() bool { return b.Online(u) })
		if b.Connect(ctx, u) {
			t.Fatal("connection on b reported first while a holds one")
		}
		if a.Disconnect(ctx, u) {
			t.Fatal("a's last connection reported the user offline while b holds one")
		}
		if !a.Online(u) || !b.Online(u) {
			t.Fatal("user offline somewhere while b holds a connection")
		}
		if !b.Disconnect(ctx, u) {
			t.Fatal("b's connection, the last anywhere, did not report the user offline")
		}
		eventually(t, c.Lease, "a sees the user offline", func() bool { return !a.Online(u) })
	})
	t.Run("DeadNode", func(t *testing.T) {
		c := open(t)
		if !c.Shared {
			t.Skip("one process: there is no other node")
		}
		dying, b, d := c.Node(t), c.Node(t), c.Node(t)
		var mu sync.Mutex
		heard := map[chat.ID]int{}
		for _, n := range []presence.Tracker{b, d} {
			n.(presence.Expiring).OnExpire(func(_ context.Context, users []chat.ID, online bool) {
				mu.Lock()
				defer mu.Unlock()
				for _, u := range users {
					if !online {
						heard[u]++
					}
				}
			})
		}
		gone, stays := chat.NewID(), chat.NewID()
		dying.Connect(ctx, gone)
		dying.Connect(ctx, stays)
		b.Connect(ctx, stays)
		eventually(t, c.Lease, "b sees the dying node's user", func() bool { return b.Online(gone) })
		c.Kill(dying)
		eventually(t, 3*c.Lease, "the dead node's user goes offline", func() bool { return !b.Online(gone) && !d.Online(gone) })
		eventually(t, c.Lease, "the offline is heard", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return heard[gone] > 0
		})
		// One more round: nobody announces it twice, and a user another
		// node still holds stays online.
		time.Sleep(c.Lease)
		mu.Lock()
		defer mu.Unlock()
		if heard[gone] != 1 {
			t.Errorf("the dead node's user was announced offline %d times; want 1", heard[gone])
		}
		if heard[stays] != 0 || !b.Online(stays) || !d.Online(stays) {
			t.Errorf("a user still connected to b went offline (heard %d times)", heard[stays])
		}
	})
}

// eventually waits up to within for cond.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
