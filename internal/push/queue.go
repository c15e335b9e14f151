package push

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Job is one notification waiting to be delivered.
type Job struct {
	// Key identifies the subscription's owner for Gone (a session id).
	Key     string
	Sub     Subscription
	Payload []byte
}

// QueueOptions configure a Queue.
type QueueOptions struct {
	Sender Sender
	// Gone is called, from a worker, for a job whose subscription the
	// push service said is gone.
	Gone func(ctx context.Context, j Job)
	Log  *slog.Logger
	// Workers deliver concurrently; 4 when zero.
	Workers int
	// Size bounds the jobs waiting; further jobs are dropped and logged.
	// 1024 when zero.
	Size int
	// Attempts is how many times a delivery is tried; 4 when zero.
	Attempts int
	// Backoff is the wait before the second attempt, doubled before each
	// later one; 2 s when zero.
	Backoff time.Duration
}

// Queue delivers notifications off the caller's path.
type Queue struct {
	o      QueueOptions
	jobs   chan Job
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.RWMutex
	closed bool
}

// NewQueue starts a queue's workers.
func NewQueue(o QueueOptions) *Queue {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Size <= 0 {
		o.Size = 1024
	}
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = 2 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &Queue{o: o, jobs: make(chan Job, o.Size), ctx: ctx, cancel: cancel}
	for range o.Workers {
		q.wg.Add(1)
		go q.work()
	}
	return q
}

// Enqueue queues j and returns at once. It reports false when the queue
// is full or closed and j was dropped.
func (q *Queue) Enqueue(j Job) bool {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return false
	}
	select {
	case q.jobs <- j:
		return true
	default:
		q.o.Log.Warn("push queue full: notification dropped", "key", j.Key)
		return false
	}
}

// Close stops taking jobs, abandons retries that are waiting and waits
// for the workers to finish the deliveries under way.
func (q *Queue) Close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	close(q.jobs)
	q.mu.Unlock()
	q.cancel()
	q.wg.Wait()
}

func (q *Queue) work() {
	defer q.wg.Done()
	for j := range q.jobs {
		q.deliver(j)
	}
}

// deliver tries j until it is accepted, refused for good, or out of
// attempts.
func (q *Queue) deliver(j Job) {
	wait := q.o.Backoff
	for attempt := 1; ; attempt++ {
		if q.ctx.Err() != nil {
			return
		}
		err := q.o.Sender.Send(q.ctx, j.Sub, j.Payload)
		switch {
		case err == nil:
			return
		case errors.Is(err, ErrGone):
			q.o.Log.Info("push subscription expired: removed", "key", j.Key, "err", err)
			if q.o.Gone != nil {
				q.o.Gone(context.WithoutCancel(q.ctx), j)
			}
			return
		case errors.Is(err, ErrRejected):
			q.o.Log.Warn("push notification refused", "key", j.Key, "err", err)
			return
		case attempt >= q.o.Attempts:
			q.o.Log.Warn("push notification not delivered", "key", j.Key, "attempts", attempt, "err", err)
			return
		}
		select {
		case <-time.After(wait):
		case <-q.ctx.Done():
			return
		}
		wait *= 2
	}
}
