package app

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// Some facts are written behind the events that change them: clients
// learn of the change from the event, and the stored value only serves
// later reads (the next Ready, a list of sessions). Writes of such facts
// are coalesced: a busy channel or a reconnecting crowd costs one write
// per id and delay, in a few short transactions, not one per change.

// lastMessageDelay is how long a channel's last_message_id may lag behind
// its newest message. (The original server waits up to 5 s, forced after
// 30 s.)
const lastMessageDelay = time.Second

// lastSeenDelay is how long a session's recorded last sighting may lag
// behind its connection.
const lastSeenDelay = time.Second

// newLastMessages collects the newest message of each channel.
func newLastMessages(s store.Store, log logFunc) *coalescer[chat.ID] {
	return &coalescer[chat.ID]{store: s, log: log, what: "set last message ids", delay: lastMessageDelay,
		chunk: coalesceChunk,
		newer: func(cur, v chat.ID) bool { return v > cur },
		write: func(ctx context.Context, s store.Store, channels []chat.ID, last map[chat.ID]chat.ID) error {
			return s.InTx(ctx, func(tx store.Store) error {
				for _, id := range channels {
					// A channel deleted meanwhile has nothing to update.
					if err := tx.SetLastMessage(ctx, id, last[id]); err != nil && !errors.Is(err, store.ErrNotFound) {
						return err
					}
				}
				return nil
			})
		}}
}

// newLastSeen collects the last sighting of each session. A chunk of
// sessions is written in one statement with the latest of their
// sightings: they were all recorded within lastSeenDelay of it, and the
// sighting is only kept to the nearest lastSeenStep anyway.
func newLastSeen(s store.Store, log logFunc) *coalescer[chat.Time] {
	return &coalescer[chat.Time]{store: s, log: log, what: "record sessions' last sightings", delay: lastSeenDelay,
		chunk: store.TouchSessionsMax,
		newer: func(cur, v chat.Time) bool { return v.After(cur.Time) },
		write: func(ctx context.Context, s store.Store, sessions []chat.ID, seen map[chat.ID]chat.Time) error {
			latest := seen[sessions[0]]
			for _, id := range sessions[1:] {
				if t := seen[id]; t.After(latest.Time) {
					latest = t
				}
			}
			return s.TouchSessions(ctx, sessions, latest)
		}}
}

// logFunc is the app log's error method.
type logFunc func(ctx context.Context, msg string, args ...any)

// coalescer collects a value per id until the next flush, which writes
// them in short transactions.
type coalescer[V any] struct {
	store store.Store
	log   logFunc
	what  string // what a flush does, for its log line
	delay time.Duration
	chunk int                 // ids written by one call of write
	newer func(cur, v V) bool // whether v replaces the pending cur
	// write stores the values of a chunk of ids, briefly: SQLite's one
	// writer waits for it.
	write func(ctx context.Context, s store.Store, ids []chat.ID, values map[chat.ID]V) error

	mu      sync.Mutex
	pending map[chat.ID]V
	timer   *time.Timer // the scheduled flush; nil when none is
	closed  bool
	running sync.WaitGroup // scheduled flushes not yet finished
}

// record notes v for id and schedules a flush when none is due.
func (l *coalescer[V]) record(id chat.ID, v V) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = map[chat.ID]V{}
	}
	if cur, ok := l.pending[id]; !ok || l.newer(cur, v) {
		l.pending[id] = v
	}
	if l.timer == nil && !l.closed {
		l.running.Add(1)
		l.timer = time.AfterFunc(l.delay, func() {
			defer l.running.Done()
			l.flush()
		})
	}
}

// drop forgets the value pending for id when it equals v (comparable
// values only), and reports whether it did.
func (l *coalescer[V]) drop(id chat.ID, v V) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.pending[id]
	if !ok || any(cur) != any(v) {
		return false
	}
	delete(l.pending, id)
	return true
}

// close writes what is pending and waits for a flush under way; values
// recorded later are written only by a later close.
func (l *coalescer[V]) close() {
	l.mu.Lock()
	l.closed = true
	if l.timer != nil && l.timer.Stop() {
		l.running.Done()
	}
	l.timer = nil
	l.mu.Unlock()
	l.flush()
	l.running.Wait()
}

// coalesceChunk is how many channels one flush transaction updates: few
// enough that SQLite's single writer is held only briefly while new
// messages wait, enough that PostgreSQL flushes its log (about a
// millisecond each here) once per chunk rather than once per id.
const coalesceChunk = 16

// flush writes the pending values a chunk of ids at a time.
func (l *coalescer[V]) flush() {
	l.mu.Lock()
	pending := l.pending
	l.pending, l.timer = nil, nil
	l.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ids := make([]chat.ID, 0, len(pending))
	for id := range pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for chunk := range slices.Chunk(ids, l.chunk) {
		if err := l.write(ctx, l.store, chunk, pending); err != nil {
			l.log(ctx, l.what, "ids", len(chunk), "err", err)
		}
	}
}
