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

// lastMessageDelay is how long a channel's last_message_id may lag behind
// its newest message. Clients learn of new messages from the Message
// event; the stored id only serves the next Ready, so writes are
// coalesced: a busy channel costs one write per delay, not one per message.
// (The original server waits up to 5 s, forced after 30 s.)
const lastMessageDelay = time.Second

// lastMessages collects the newest message of each channel until the
// next flush.
type lastMessages struct {
	store store.Store
	log   func(ctx context.Context, msg string, args ...any)

	mu      sync.Mutex
	pending map[chat.ID]chat.ID
	timer   *time.Timer // the scheduled flush; nil when none is
	closed  bool
	running sync.WaitGroup // scheduled flushes not yet finished
}

// record notes that message is the newest of channel and schedules a
// flush when none is due.
func (l *lastMessages) record(channel, message chat.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = map[chat.ID]chat.ID{}
	}
	if cur, ok := l.pending[channel]; !ok || message > cur {
		l.pending[channel] = message
	}
	if l.timer == nil && !l.closed {
		l.running.Add(1)
		l.timer = time.AfterFunc(lastMessageDelay, func() {
			defer l.running.Done()
			l.flush()
		})
	}
}

// close writes what is pending and waits for a flush under way; ids
// recorded later are written only by a later close.
func (l *lastMessages) close() {
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

// lastMessageChunk is how many channels one flush transaction updates:
// few enough that SQLite's single writer is held only briefly while new
// messages wait, enough that PostgreSQL flushes its log (about a
// millisecond each here) once per chunk rather than once per channel.
const lastMessageChunk = 16

// flush writes the pending ids in short transactions of a few channels.
func (l *lastMessages) flush() {
	l.mu.Lock()
	pending := l.pending
	l.pending, l.timer = nil, nil
	l.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	channels := make([]chat.ID, 0, len(pending))
	for ch := range pending {
		channels = append(channels, ch)
	}
	for chunk := range slices.Chunk(channels, lastMessageChunk) {
		err := l.store.InTx(ctx, func(tx store.Store) error {
			for _, ch := range chunk {
				// A channel deleted meanwhile has nothing to update.
				if err := tx.SetLastMessage(ctx, ch, pending[ch]); err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
			}
			return nil
		})
		if err != nil {
			l.log(ctx, "set last message ids", "channels", len(chunk), "err", err)
		}
	}
}
