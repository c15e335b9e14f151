package app

import (
	"context"
	"errors"
	"time"

	"ermine/internal/batch"
	"ermine/internal/chat"
	"ermine/internal/nonce"
	"ermine/internal/slowmode"
	"ermine/internal/store"
)

// Some facts are written behind the events that change them: clients
// learn of the change from the event, and the stored value only serves
// later reads (the next Ready, a list of sessions). This file is the
// app's choice of which facts may lag, and by how much; package batch
// does the collecting and writing.

// lastMessageDelay is how long a channel's last_message_id may lag behind
// its newest message. (The original server waits up to 5 s, forced after
// 30 s.)
const lastMessageDelay = time.Second

// lastSeenDelay is how long a session's recorded last sighting may lag
// behind its connection.
const lastSeenDelay = time.Second

// lastMessageChunk is how many channels one flush transaction updates: few
// enough that SQLite's single writer is held only briefly while new
// messages wait, enough that PostgreSQL flushes its log (about a
// millisecond each here) once per chunk rather than once per id.
const lastMessageChunk = 16

// newLastMessages collects the newest message of each channel.
func newLastMessages(s store.Store, log logFunc) *batch.Coalescer[chat.ID, chat.ID] {
	return &batch.Coalescer[chat.ID, chat.ID]{What: "set last message ids", Delay: lastMessageDelay, Log: log,
		Chunk: lastMessageChunk,
		Newer: func(cur, v chat.ID) bool { return v > cur },
		Write: func(ctx context.Context, channels []chat.ID, last map[chat.ID]chat.ID) error {
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
func newLastSeen(s store.Store, log logFunc) *batch.Coalescer[chat.ID, chat.Time] {
	return &batch.Coalescer[chat.ID, chat.Time]{What: "record sessions' last sightings", Delay: lastSeenDelay, Log: log,
		Chunk: store.TouchSessionsMax,
		Newer: func(cur, v chat.Time) bool { return v.After(cur.Time) },
		Write: func(ctx context.Context, sessions []chat.ID, seen map[chat.ID]chat.Time) error {
			latest := seen[sessions[0]]
			for _, id := range sessions[1:] {
				if t := seen[id]; t.After(latest.Time) {
					latest = t
				}
			}
			return s.TouchSessions(ctx, sessions, latest)
		}}
}

// maxWriteBatch bounds how many messages one group commit carries.
const maxWriteBatch = 128

// newMessageWriter stores plain new messages (no uploads, no mentions) by
// group commit: one transaction per batch of concurrent sends, up to
// writers batches at once (store.Writers).
func newMessageWriter(s store.Store, writers int) *batch.GroupCommit[*chat.Message] {
	return &batch.GroupCommit[*chat.Message]{Max: maxWriteBatch, Writers: writers, Timeout: 30 * time.Second,
		One: s.InsertMessage, All: s.InsertMessages}
}

// sendState is what sending a message needs beside the store: nonces
// and slowmode (shared between nodes), the group commit of new messages,
// the channels' newest messages written behind, and the preview workers.
type sendState struct {
	nonces       nonce.Guard                        // recent idempotency keys of sent messages
	slowmodes    slowmode.Windows                   // slowmode windows
	writer       *batch.GroupCommit[*chat.Message]  // group commit of new messages
	lastMessages *batch.Coalescer[chat.ID, chat.ID] // channels' newest messages, written in batches
	previews     *previews                          // link preview workers; nil when off
}

// close stops the preview workers and writes the newest messages held
// back.
func (s *sendState) close() {
	s.previews.close()
	s.lastMessages.Close()
}

// logFunc is the app log's error method.
type logFunc func(ctx context.Context, msg string, args ...any)
