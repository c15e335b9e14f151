package batch

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// GroupCommit stores values by group commit: while one batch is being
// written, values sent meanwhile queue, and the next batch takes them all
// in one transaction. A commit costs about the same for one row as for a
// hundred (a WAL append on SQLite, a WAL flush on PostgreSQL), so under
// load this turns one commit per value into one per batch; an idle caller
// is written at once. Its exported fields are set before first use.
type GroupCommit[T any] struct {
	// Max bounds how many values one batch carries.
	Max int
	// Writers bounds how many batches are written at once (1 when zero).
	// An engine that commits several transactions at once gains from 2:
	// while one batch waits for its commit to reach the disk, the next
	// one is written.
	Writers int
	// Timeout bounds one batch's write (30 s when zero); it runs detached
	// from the caller that leads it, since it writes other callers'
	// values too.
	Timeout time.Duration
	// One stores a single value; All stores several in one transaction.
	// When All fails, each value of the batch is stored with One, so that
	// each caller gets its own answer.
	One func(ctx context.Context, v T) error
	All func(ctx context.Context, vs []T) error

	mu      sync.Mutex
	pending []*request[T] // waiting for a batch or for a turn to lead one
	leaders int           // batches being written; at most Writers
}

// request is one value waiting to be stored.
type request[T any] struct {
	v    T
	done chan error    // the value's own result
	lead chan struct{} // closed when this request must write the next batch
}

// Write stores v, returning once it is committed (or failed).
//
// A request either leads a batch (its own value first, then those
// pending) or waits in pending until a leader takes it into a batch
// (done) or hands it the lead, taking it out of pending first: never
// both, so each value is written once.
func (g *GroupCommit[T]) Write(v T) error {
	req := &request[T]{v: v, done: make(chan error, 1), lead: make(chan struct{})}
	g.mu.Lock()
	if g.leaders < max(g.Writers, 1) {
		g.leaders++
		g.mu.Unlock()
	} else {
		g.pending = append(g.pending, req)
		g.mu.Unlock()
		select {
		case err := <-req.done:
			return err
		case <-req.lead:
		}
	}
	// This request leads: write it with what is pending, then hand the
	// lead to the oldest request that queued meanwhile, or give the
	// place up. Yielding once first lets requests that are about to
	// arrive join this batch, so a busy node commits less often.
	runtime.Gosched()
	g.mu.Lock()
	n := min(len(g.pending), max(g.Max, 1)-1)
	batch := make([]*request[T], 0, n+1)
	batch = append(append(batch, req), g.pending[:n]...)
	g.pending = g.pending[n:]
	g.mu.Unlock()
	g.write(batch)
	g.mu.Lock()
	if len(g.pending) > 0 {
		next := g.pending[0]
		g.pending = g.pending[1:]
		close(next.lead)
	} else {
		g.leaders--
	}
	g.mu.Unlock()
	return <-req.done
}

// write stores a batch in one transaction. When that fails, each value
// is stored alone so that each request gets its own answer.
func (g *GroupCommit[T]) write(batch []*request[T]) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if len(batch) == 1 {
		batch[0].done <- g.One(ctx, batch[0].v)
		return
	}
	vs := make([]T, len(batch))
	for i, r := range batch {
		vs[i] = r.v
	}
	if err := g.All(ctx, vs); err == nil {
		for _, r := range batch {
			r.done <- nil
		}
		return
	}
	for _, r := range batch {
		r.done <- g.One(ctx, r.v)
	}
}
