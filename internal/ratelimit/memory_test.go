package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"ermine/internal/ratelimit"
	"ermine/internal/ratelimit/limitertest"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestMemoryConformance(t *testing.T) {
	limitertest.Run(t, ratelimit.Window, func(t *testing.T) (ratelimit.Limiter, func(time.Duration)) {
		c := newFakeClock()
		return ratelimit.NewMemory(c.Now), c.Advance
	})
}

func TestMemoryExactTimes(t *testing.T) {
	c := newFakeClock()
	m := ratelimit.NewMemory(c.Now)
	ctx := context.Background()
	steps := []struct {
		advance time.Duration
		want    ratelimit.Result
	}{
		{0, ratelimit.Result{Limit: 2, Remaining: 1, ResetAfter: 10 * time.Second, Allowed: true}},
		{3 * time.Second, ratelimit.Result{Limit: 2, Remaining: 0, ResetAfter: 7 * time.Second, Allowed: true}},
		{6*time.Second + 999*time.Millisecond, ratelimit.Result{Limit: 2, Remaining: 0, ResetAfter: time.Millisecond, Allowed: false}},
		{time.Millisecond, ratelimit.Result{Limit: 2, Remaining: 1, ResetAfter: 10 * time.Second, Allowed: true}},
	}
	for i, s := range steps {
		c.Advance(s.advance)
		got, err := m.Take(ctx, "k", 2, ratelimit.Window)
		if err != nil {
			t.Fatal(err)
		}
		if got != s.want {
			t.Errorf("step %d: got %+v, want %+v", i, got, s.want)
		}
	}
}

func TestMemoryDropsClosedWindows(t *testing.T) {
	c := newFakeClock()
	m := ratelimit.NewMemory(c.Now)
	ctx := context.Background()
	const keys = 10000
	for i := range keys {
		if _, err := m.Take(ctx, fmt.Sprint("ip-", i), 20, ratelimit.Window); err != nil {
			t.Fatal(err)
		}
	}
	if n := m.Len(); n != keys {
		t.Fatalf("Len = %d after %d keys, want %d", n, keys, keys)
	}

	t.Run("LazilyOnTake", func(t *testing.T) {
		// Two sweep intervals later, a shard touched by a new call drops
		// the closed windows it holds; enough calls touch every shard.
		c.Advance(2 * ratelimit.Window)
		for i := range 1000 {
			if _, err := m.Take(ctx, fmt.Sprint("new-", i), 20, ratelimit.Window); err != nil {
				t.Fatal(err)
			}
		}
		if n := m.Len(); n != 1000 {
			t.Errorf("Len = %d after the old windows closed, want the 1000 open ones", n)
		}
	})
	t.Run("Sweep", func(t *testing.T) {
		c.Advance(ratelimit.Window)
		m.Sweep()
		if n := m.Len(); n != 0 {
			t.Errorf("Len = %d after Sweep with every window closed, want 0", n)
		}
	})
}

func TestMemorySweepKeepsOpenWindows(t *testing.T) {
	c := newFakeClock()
	m := ratelimit.NewMemory(c.Now)
	ctx := context.Background()
	if _, err := m.Take(ctx, "old", 1, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Take(ctx, "open", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Second)
	m.Sweep()
	if n := m.Len(); n != 1 {
		t.Fatalf("Len = %d after Sweep, want 1", n)
	}
	r, err := m.Take(ctx, "open", 1, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed {
		t.Error("Sweep reset an open window")
	}
}

func TestMemoryDefaultClock(t *testing.T) {
	m := ratelimit.NewMemory(nil)
	r, err := m.Take(context.Background(), "k", 1, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Allowed || r.ResetAfter <= 59*time.Minute {
		t.Errorf("got %+v, want an allowed call in a fresh hour window", r)
	}
}

func BenchmarkMemoryTake(b *testing.B) {
	m := ratelimit.NewMemory(nil)
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = ratelimit.Key(fmt.Sprint("10.0.", i/256, ".", i%256), ratelimit.BucketAny, "")
	}
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := m.Take(ctx, keys[i%len(keys)], 20, ratelimit.Window); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}
