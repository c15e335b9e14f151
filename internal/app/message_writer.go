package app

import (
	"context"
	"runtime"
	"sync"
	"time"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// maxWriteBatch bounds how many messages one group commit carries.
const maxWriteBatch = 128

// writeTimeout bounds one group commit; it runs detached from the
// request that leads it, since it writes other requests' messages too.
const writeTimeout = 30 * time.Second

// messageWriter stores plain new messages (no uploads, no mentions) by
// group commit: while one batch is being written, messages sent
// meanwhile queue, and the next batch takes them all in one transaction.
// A commit costs the same for one row as for a hundred (a WAL append on
// SQLite, a WAL flush on PostgreSQL), so under load this turns one commit
// per message into one per batch; an idle node writes each message at
// once, as before.
type messageWriter struct {
	store store.Store

	mu      sync.Mutex
	pending []*writeRequest
	busy    bool // a leader is writing; new requests wait for a turn
}

// writeRequest is one message waiting to be stored.
type writeRequest struct {
	m    *chat.Message
	done chan error    // the message's own result
	lead chan struct{} // closed when this request must write the next batch
}

// insert stores m, returning once it is committed (or failed).
func (w *messageWriter) insert(ctx context.Context, m *chat.Message) error {
	req := &writeRequest{m: m, done: make(chan error, 1), lead: make(chan struct{})}
	w.mu.Lock()
	w.pending = append(w.pending, req)
	if w.busy {
		w.mu.Unlock()
		select {
		case err := <-req.done:
			return err
		case <-req.lead:
		}
	} else {
		w.busy = true
		w.mu.Unlock()
	}
	// This request leads: write what is pending, then hand the lead to
	// the oldest request that queued meanwhile, or release it.
	// Yielding once first lets requests that are about to arrive join
	// this batch, so a busy node commits less often.
	runtime.Gosched()
	w.mu.Lock()
	batch := w.pending[:min(len(w.pending), maxWriteBatch)]
	w.pending = w.pending[len(batch):]
	w.mu.Unlock()
	w.write(batch)
	w.mu.Lock()
	if len(w.pending) > 0 {
		close(w.pending[0].lead)
	} else {
		w.busy = false
	}
	w.mu.Unlock()
	return <-req.done
}

// write stores a batch in one transaction. When that fails, each message
// is stored alone so that each request gets its own answer.
func (w *messageWriter) write(batch []*writeRequest) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if len(batch) == 1 {
		batch[0].done <- w.store.InsertMessage(ctx, batch[0].m)
		return
	}
	ms := make([]*chat.Message, len(batch))
	for i, r := range batch {
		ms[i] = r.m
	}
	if err := w.store.InsertMessages(ctx, ms); err == nil {
		for _, r := range batch {
			r.done <- nil
		}
		return
	}
	for _, r := range batch {
		r.done <- w.store.InsertMessage(ctx, r.m)
	}
}
