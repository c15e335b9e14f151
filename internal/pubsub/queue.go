package pubsub

import (
	"sync"
	"sync/atomic"
)

// Queue is a bounded delivery queue drained by one goroutine, the building
// block implementations use to give a Subscription its guarantees: Push
// never blocks, frames beyond the bound are dropped and counted, and the
// handler runs serialised in push order.
//
// The drain goroutine takes the whole backlog in one swap, so a burst costs
// one wake-up rather than one per frame.
type Queue struct {
	handler Handler
	limit   int
	wake    chan struct{} // holds a token while the drainer has work
	done    chan struct{} // closed by Close
	closed  atomic.Bool
	dropped atomic.Uint64

	mu      sync.Mutex
	pending []queued
}

type queued struct {
	topic string
	msg   []byte
}

// NewQueue starts a queue that hands frames to handler. Up to limit frames
// (at least 1) wait for the drainer; the batch it is delivering, at most
// limit more, does not count.
func NewQueue(limit int, handler Handler) *Queue {
	if limit < 1 {
		limit = 1
	}
	q := &Queue{
		handler: handler,
		limit:   limit,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	go q.drain()
	return q
}

// Push queues a frame. It reports false, counting a drop, when the queue
// is full or closed.
func (q *Queue) Push(topic string, msg []byte) bool {
	q.mu.Lock()
	if q.closed.Load() || len(q.pending) >= q.limit {
		q.mu.Unlock()
		q.dropped.Add(1)
		return false
	}
	q.pending = append(q.pending, queued{topic, msg})
	first := len(q.pending) == 1
	q.mu.Unlock()
	if first {
		// Only the empty → non-empty transition needs a wake-up: the
		// drainer empties the queue in one swap and then waits again.
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// Dropped returns how many frames Push has refused so far.
func (q *Queue) Dropped() uint64 { return q.dropped.Load() }

// Close discards queued frames and stops the drain goroutine without
// waiting for a handler call under way. It is idempotent.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed.Swap(true) {
		return
	}
	clear(q.pending)
	q.pending = q.pending[:0]
	close(q.done)
}

// drain hands queued frames to the handler until Close.
func (q *Queue) drain() {
	var spare []queued
	for {
		select {
		case <-q.wake:
		case <-q.done:
			return
		}
		q.mu.Lock()
		batch := q.pending
		q.pending = spare[:0]
		q.mu.Unlock()
		for _, m := range batch {
			if q.closed.Load() {
				return
			}
			q.handler(m.topic, m.msg)
		}
		clear(batch) // let delivered frames be collected
		spare = batch
	}
}
