// Package batch holds the write machinery that trades a little lag for
// far fewer transactions: a Coalescer writes the latest value of each key
// behind the events that change it, and a GroupCommit stores what
// concurrent callers send in one transaction per batch. It knows nothing
// of what is written; app chooses which facts may lag and by how much.
package batch

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// Coalescer collects a value per key until the next flush, Delay after
// the first value recorded since the last one, which writes them a Chunk
// of keys at a time. A busy key costs one write per Delay, not one per
// change. Its exported fields are set before first use.
type Coalescer[K cmp.Ordered, V any] struct {
	// What a flush does, for its log line ("record sessions' last sightings").
	What  string
	Delay time.Duration
	// Chunk is how many keys one call of Write is given.
	Chunk int
	// Newer reports whether v replaces the pending cur.
	Newer func(cur, v V) bool
	// Write stores the values of a chunk of keys (values holds at least
	// those keys), briefly: a single-writer store waits for it.
	Write func(ctx context.Context, keys []K, values map[K]V) error
	// Log is told of a chunk whose write failed (the values are dropped).
	Log func(ctx context.Context, msg string, args ...any)

	mu      sync.Mutex
	pending map[K]V
	timer   *time.Timer // the scheduled flush; nil when none is
	closed  bool
	running sync.WaitGroup // scheduled flushes not yet finished
}

// Record notes v for key and schedules a flush when none is due.
func (c *Coalescer[K, V]) Record(key K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[K]V{}
	}
	if cur, ok := c.pending[key]; !ok || c.Newer(cur, v) {
		c.pending[key] = v
	}
	if c.timer == nil && !c.closed {
		c.running.Add(1)
		c.timer = time.AfterFunc(c.Delay, func() {
			defer c.running.Done()
			c.Flush()
		})
	}
}

// Drop forgets the value pending for key when it equals v (V's values
// must be comparable, or Drop panics), and reports whether it did.
func (c *Coalescer[K, V]) Drop(key K, v V) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.pending[key]
	if !ok || any(cur) != any(v) {
		return false
	}
	delete(c.pending, key)
	return true
}

// Pending is how many keys wait for a flush.
func (c *Coalescer[K, V]) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// Close writes what is pending and waits for a flush under way; values
// recorded later are written only by a later Close or Flush.
func (c *Coalescer[K, V]) Close() {
	c.mu.Lock()
	c.closed = true
	if c.timer != nil && c.timer.Stop() {
		c.running.Done()
	}
	c.timer = nil
	c.mu.Unlock()
	c.Flush()
	c.running.Wait()
}

// Flush writes the pending values now, a chunk of keys at a time in key
// order.
func (c *Coalescer[K, V]) Flush() {
	c.mu.Lock()
	pending := c.pending
	c.pending, c.timer = nil, nil
	c.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys := make([]K, 0, len(pending))
	for k := range pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for chunk := range slices.Chunk(keys, max(c.Chunk, 1)) {
		if err := c.Write(ctx, chunk, pending); err != nil && c.Log != nil {
			c.Log(ctx, c.What, "ids", len(chunk), "err", err)
		}
	}
}
