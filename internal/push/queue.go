package push

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Job is one notification waiting to be delivered.
type Job struct {
	// Key identifies the subscription's owner for Gone (a session id).
	Key     string
	Sub     Subscription
	Payload []byte

	attempt int // attempts made so far
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
	// Size bounds the jobs not yet done (waiting, being delivered or
	// waiting for a retry); further jobs are dropped and logged. 1024
	// when zero.
	Size int
	// Attempts is how many times a delivery is tried; 4 when zero.
	Attempts int
	// Backoff is the wait before the second attempt, doubled before each
	// later one; 2 s when zero. No worker waits it out: the job comes
	// back to the queue when it is over.
	Backoff time.Duration
	// Timeout bounds one attempt; 10 s when zero.
	Timeout time.Duration
	// PerHost is how many deliveries to one push service host may be
	// under way at once; 2 when zero. Others for that host wait their
	// turn without holding a worker, so a stalled or slow push service
	// delays only its own notifications.
	PerHost int
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

	open atomic.Int64 // jobs taken and not done

	hostMu sync.Mutex
	hosts  map[string]*hostTurn
}

// hostTurn is one push service host's deliveries: how many are under
// way, and the jobs waiting for one of them to end.
type hostTurn struct {
	active  int
	waiting []Job
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
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.PerHost <= 0 {
		o.PerHost = 2
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &Queue{o: o, jobs: make(chan Job, o.Size), ctx: ctx, cancel: cancel, hosts: map[string]*hostTurn{}}
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
	if q.open.Add(1) > int64(q.o.Size) {
		q.open.Add(-1)
		q.o.Log.Warn("push queue full: notification dropped", "key", j.Key)
		return false
	}
	j.attempt = 0
	q.jobs <- j // never blocks: the channel holds Size jobs, and at most Size are open
	return true
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
		host := hostKey(j.Sub.Endpoint)
		if !q.take(host, j) {
			continue // waits for its host's turn
		}
		for more := true; more; {
			q.attempt(j)
			j, more = q.next(host)
		}
	}
}

// hostKey is the push service a job goes to (host and port).
func hostKey(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Host
	}
	return ""
}

// take starts a delivery to host, or parks j until one to host ends.
func (q *Queue) take(host string, j Job) bool {
	q.hostMu.Lock()
	defer q.hostMu.Unlock()
	h := q.hosts[host]
	if h == nil {
		h = &hostTurn{}
		q.hosts[host] = h
	}
	if h.active < q.o.PerHost {
		h.active++
		return true
	}
	h.waiting = append(h.waiting, j)
	return false
}

// next ends a delivery to host, handing its turn to the next job
// waiting for that host, if any.
func (q *Queue) next(host string) (Job, bool) {
	q.hostMu.Lock()
	defer q.hostMu.Unlock()
	h := q.hosts[host]
	if len(h.waiting) > 0 && q.ctx.Err() == nil {
		j := h.waiting[0]
		h.waiting = h.waiting[1:]
		return j, true
	}
	h.active--
	if h.active == 0 && len(h.waiting) == 0 {
		delete(q.hosts, host)
	}
	return Job{}, false
}

// attempt tries j once, within the attempt timeout. A failure worth
// retrying brings j back to the queue after the backoff.
func (q *Queue) attempt(j Job) {
	if q.ctx.Err() != nil {
		q.open.Add(-1)
		return
	}
	j.attempt++
	ctx, cancel := context.WithTimeout(q.ctx, q.o.Timeout)
	err := q.o.Sender.Send(ctx, j.Sub, j.Payload)
	cancel()
	switch {
	case err == nil:
	case errors.Is(err, ErrGone):
		q.o.Log.Info("push subscription expired: removed", "key", j.Key, "err", err)
		if q.o.Gone != nil {
			q.o.Gone(context.WithoutCancel(q.ctx), j)
		}
	case errors.Is(err, ErrRejected):
		q.o.Log.Warn("push notification refused", "key", j.Key, "err", err)
	case j.attempt >= q.o.Attempts:
		q.o.Log.Warn("push notification not delivered", "key", j.Key, "attempts", j.attempt, "err", err)
	default:
		time.AfterFunc(q.o.Backoff<<(j.attempt-1), func() { q.retry(j) })
		return
	}
	q.open.Add(-1)
}

// retry brings j back to the queue, unless the queue closed meanwhile.
func (q *Queue) retry(j Job) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		q.open.Add(-1)
		return
	}
	q.jobs <- j // never blocks: j is counted in open
}
