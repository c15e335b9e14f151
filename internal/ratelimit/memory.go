package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// shardCount is the number of independently locked maps in a Memory. A
// power of two, so a hash picks a shard with a mask; 64 keeps contention
// low on many cores at a few kilobytes of overhead.
const shardCount = 64

// sweepEvery is how often, at most, a shard drops its closed windows. A
// key lives at most its window after its first call, so with 10-second
// windows a shard holds at most the keys of about the last 20 seconds.
const sweepEvery = 10 * time.Second

// Memory is a Limiter that keeps counters in this process. Keys are spread
// over sharded maps, each behind its own mutex. Closed windows are dropped
// lazily: each shard sweeps out expired keys at most every sweepEvery, on a
// call that lands on it, so memory follows the number of keys with an open
// window rather than every key ever seen. Sweep drops them all at once.
type Memory struct {
	now    func() time.Time
	seed   maphash.Seed
	shards [shardCount]shard
}

// shard is one locked part of a Memory.
type shard struct {
	mu        sync.Mutex
	windows   map[string]window
	nextSweep time.Time
	_         [64]byte // keep neighbouring shards' mutexes off one cache line
}

// window is the state of one key's open window.
type window struct {
	end   time.Time // when the window closes
	count int64     // calls counted in the window
}

// NewMemory returns an empty Memory that reads the time from now, or from
// time.Now when now is nil; tests pass a fake clock.
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].windows = make(map[string]window)
	}
	return m
}

// Take implements Limiter. It fails only for invalid arguments or a done
// context.
func (m *Memory) Take(ctx context.Context, key string, limit int, win time.Duration) (Result, error) {
	if err := check(limit, win); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	s := &m.shards[maphash.String(m.seed, key)&(shardCount-1)]
	s.mu.Lock()
	now := m.now()
	if !now.Before(s.nextSweep) {
		s.sweep(now)
		s.nextSweep = now.Add(sweepEvery)
	}
	w, ok := s.windows[key]
	if !ok || !now.Before(w.end) {
		w = window{end: now.Add(win)}
	}
	if w.count <= int64(limit) { // saturate: once refused, the exact count no longer matters
		w.count++
	}
	s.windows[key] = w
	s.mu.Unlock()
	return result(w.count, limit, w.end.Sub(now)), nil
}

// Sweep drops every key whose window has closed. Take already does this
// shard by shard; Sweep is for a caller that wants memory returned when
// traffic stops.
func (m *Memory) Sweep() {
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		s.sweep(m.now())
		s.mu.Unlock()
	}
}

// Len returns the number of keys held, open windows and not yet swept
// closed ones.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.windows)
		s.mu.Unlock()
	}
	return n
}

// sweep deletes the windows closed at now. The caller holds s.mu.
func (s *shard) sweep(now time.Time) {
	for k, w := range s.windows {
		if !now.Before(w.end) {
			delete(s.windows, k)
		}
	}
}
