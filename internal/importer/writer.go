package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"time"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// maxExamples is how many document ids the report names per reason.
const maxExamples = 5

// Writer takes the objects of one source collection, document by
// document, and commits them in batches. A Writer is not safe for
// concurrent use.
type Writer struct {
	p       *Pipeline
	name    string
	done    int64 // documents committed, this run and earlier ones
	started time.Time
	docs    []doc // the batch not yet committed
	cur     doc   // the document being built
}

// doc is what one source document writes.
type doc struct {
	id      string
	ops     []op
	skip    string            // reason the whole document is skipped
	dropped map[string]string // reason → an id, for parts left out
}

// op is one write: a message (batched into multi-row inserts) or a call.
type op struct {
	msg *chat.Message
	fn  func(context.Context, store.Store) error
}

// ID names the current document in errors and the report; a reader sets
// it before the document's writes (the last id given wins).
func (w *Writer) ID(id string) { w.cur.id = id }

// Do queues an arbitrary write for the current document, for objects no
// typed method covers.
func (w *Writer) Do(fn func(context.Context, store.Store) error) {
	w.cur.ops = append(w.cur.ops, op{fn: fn})
}

// Skip leaves the current document out, counted under reason. Writes
// already queued for it are dropped.
func (w *Writer) Skip(id, reason string) {
	if id != "" {
		w.cur.id = id
	}
	w.cur.skip = reason
}

// Drop records that part of the current document was left out (such as
// an attachment whose bytes are missing); the document is still written.
func (w *Writer) Drop(id, reason string) {
	if w.cur.dropped == nil {
		w.cur.dropped = map[string]string{}
	}
	w.cur.dropped[reason] = id
}

// put queues v for the current document, written by insert (a store
// method such as store.Store.InsertUser).
func put[T any](w *Writer, insert func(store.Store, context.Context, T) error, v T) {
	w.Do(func(ctx context.Context, s store.Store) error { return insert(s, ctx, v) })
}

// Account queues an account.
func (w *Writer) Account(a *chat.Account) {
	w.ID(string(a.ID))
	put(w, store.Store.InsertAccount, a)
}

// Ticket queues an MFA ticket.
func (w *Writer) Ticket(t *chat.MFATicket) { put(w, store.Store.InsertTicket, t) }

// RegistrationInvite queues a registration invite code.
func (w *Writer) RegistrationInvite(inv *chat.RegistrationInvite) {
	put(w, store.Store.InsertRegistrationInvite, inv)
}

// Session queues a session.
func (w *Writer) Session(x *chat.Session) { put(w, store.Store.InsertSession, x) }

// User queues a user.
func (w *Writer) User(u *chat.User) { put(w, store.Store.InsertUser, u) }

// Relationship queues user's status toward other (one side).
func (w *Writer) Relationship(user, other chat.ID, status chat.RelationshipStatus) {
	w.Do(func(ctx context.Context, s store.Store) error { return s.SetRelationship(ctx, user, other, status) })
}

// Settings queues a user's synced settings.
func (w *Writer) Settings(user chat.ID, settings map[string]chat.Setting) {
	w.Do(func(ctx context.Context, s store.Store) error { return s.SetSettings(ctx, user, settings) })
}

// Bot queues a bot.
func (w *Writer) Bot(b *chat.Bot) { put(w, store.Store.InsertBot, b) }

// Server queues a server.
func (w *Writer) Server(x *chat.Server) { put(w, store.Store.InsertServer, x) }

// Member queues a membership.
func (w *Writer) Member(m *chat.Member) { put(w, store.Store.InsertMember, m) }

// Ban queues a server ban.
func (w *Writer) Ban(b *chat.ServerBan) { put(w, store.Store.InsertBan, b) }

// Channel queues a channel.
func (w *Writer) Channel(c *chat.Channel) { put(w, store.Store.InsertChannel, c) }

// Message queues a message; consecutive messages are written with
// multi-row inserts.
func (w *Writer) Message(m *chat.Message) {
	w.cur.ops = append(w.cur.ops, op{msg: m})
}

// Emoji queues a custom emoji.
func (w *Writer) Emoji(e *chat.Emoji) { put(w, store.Store.InsertEmoji, e) }

// Invite queues a channel invite.
func (w *Writer) Invite(inv *chat.Invite) { put(w, store.Store.InsertInvite, inv) }

// Webhook queues a webhook.
func (w *Writer) Webhook(h *chat.Webhook) { put(w, store.Store.InsertWebhook, h) }

// Unread queues a user's read state in a channel.
func (w *Writer) Unread(u *chat.ChannelUnread) {
	w.Do(func(ctx context.Context, s store.Store) error {
		if u.LastID != nil {
			if err := s.AckChannel(ctx, u.ID.User, u.ID.Channel, *u.LastID); err != nil {
				return err
			}
		}
		for _, m := range u.Mentions {
			if err := s.AddMentions(ctx, u.ID.Channel, m, []chat.ID{u.ID.User}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Report queues a safety report.
func (w *Writer) Report(r *chat.Report) { put(w, store.Store.InsertReport, r) }

// PolicyChange queues a policy change.
func (w *Writer) PolicyChange(c *chat.PolicyChange) { put(w, store.Store.InsertPolicyChange, c) }

// AuditLog queues an audit log entry.
func (w *Writer) AuditLog(e *chat.AuditLogEntry) { put(w, store.Store.InsertAuditLogEntry, e) }

// File copies a file's bytes into blob storage now, unless bytes with the
// same SHA-256 are there already, and queues its record. open is called
// only when the bytes are needed; rec.Hash, when the source knows it,
// saves reading them on a resumed run. rec.Hash and rec.Size are set
// from the bytes. An error of open is returned as is (wrapped), so the
// reader may Skip the document instead.
func (w *Writer) File(ctx context.Context, rec *chat.FileRecord, open func() (io.ReadCloser, error)) error {
	hash, size, err := w.p.putFile(ctx, rec.Hash, open)
	if err != nil {
		return fmt.Errorf("file %s: %w", rec.ID, err)
	}
	rec.Hash, rec.Size = hash, size
	put(w, store.Store.InsertFile, rec)
	return nil
}

// Next ends the current document and commits the batch when it is full.
func (w *Writer) Next(ctx context.Context) error {
	w.docs = append(w.docs, w.cur)
	w.cur = doc{}
	if len(w.docs) >= w.p.opt.Batch {
		return w.flush(ctx)
	}
	return nil
}

// Close commits what is left and marks the collection read to its end.
// A document begun without Next is discarded.
func (w *Writer) Close(ctx context.Context) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	next := w.p.cloneState()
	next.Complete = append(next.Complete, w.name)
	if err := w.p.st.SetImport(ctx, next); err != nil {
		return fmt.Errorf("import %s: write marker: %w", w.name, err)
	}
	w.p.state = next
	w.p.prog.end(w.name, w.done, next.Imported[w.name], skippedTotal(next.Skipped[w.name]), time.Since(w.started))
	return nil
}

// flush commits the batch with the marker's new checkpoint in one
// transaction. When that fails it retries document by document, so that
// a document that conflicts with stored data (a duplicate) or holds text
// the store cannot keep is skipped and named, and any other failure names
// the document it happened on.
func (w *Writer) flush(ctx context.Context) error {
	if len(w.docs) == 0 {
		return nil
	}
	if err := w.write(ctx, w.docs); err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for i := range w.docs {
		d := w.docs[i : i+1]
		err := w.write(ctx, d)
		switch {
		case err == nil:
			continue
		case errors.Is(err, store.ErrConflict):
			d[0].skip = "conflicts with an object imported before it (a duplicate id, token, email or username#discriminator)"
		case errors.Is(err, store.ErrInvalid):
			d[0].skip = "holds text Ermine cannot store (NUL or invalid UTF-8)"
		default:
			return fmt.Errorf("import %s: document %s: %w", w.name, d[0].id, err)
		}
		d[0].ops = nil
		next := w.advance(w.p.cloneState(), d)
		if err := w.p.st.SetImport(ctx, next); err != nil {
			return fmt.Errorf("import %s: write marker: %w", w.name, err)
		}
		w.commit(next, d)
	}
	return nil
}

// write commits docs and the marker's checkpoint after them in one
// transaction.
func (w *Writer) write(ctx context.Context, docs []doc) error {
	next := w.advance(w.p.cloneState(), docs)
	err := w.p.st.InTx(ctx, func(tx store.Store) error {
		if err := runOps(ctx, tx, docs); err != nil {
			return err
		}
		return tx.SetImport(ctx, next)
	})
	if err == nil {
		w.commit(next, docs)
	}
	return err
}

// runOps performs the writes of docs in order, coalescing runs of
// messages into multi-row inserts.
func runOps(ctx context.Context, s store.Store, docs []doc) error {
	var msgs []*chat.Message
	put := func() error {
		if len(msgs) == 0 {
			return nil
		}
		err := s.InsertMessages(ctx, msgs)
		msgs = msgs[:0]
		return err
	}
	for _, d := range docs {
		if d.skip != "" {
			continue
		}
		for _, o := range d.ops {
			if o.msg != nil {
				msgs = append(msgs, o.msg)
				continue
			}
			if err := put(); err != nil {
				return err
			}
			if err := o.fn(ctx, s); err != nil {
				return err
			}
		}
	}
	return put()
}

// advance adds docs to state's counts and returns it.
func (w *Writer) advance(st *store.ImportState, docs []doc) *store.ImportState {
	if st.Imported == nil {
		st.Imported = map[string]int64{}
	}
	if st.Skipped == nil {
		st.Skipped = map[string]map[string]int64{}
	}
	st.Done[w.name] += int64(len(docs))
	for _, d := range docs {
		if d.skip == "" {
			st.Imported[w.name]++
		}
		for _, reason := range d.reasons() {
			if st.Skipped[w.name] == nil {
				st.Skipped[w.name] = map[string]int64{}
			}
			st.Skipped[w.name][reason]++
		}
	}
	return st
}

// commit makes next the pipeline's state after docs were committed.
func (w *Writer) commit(next *store.ImportState, docs []doc) {
	w.p.state = next
	w.done = next.Done[w.name]
	for _, d := range docs {
		for _, reason := range d.reasons() {
			w.p.example(w.name, reason, d.idFor(reason))
		}
	}
	w.docs = w.docs[:0]
	w.p.prog.update(w.name, w.done)
}

// reasons lists why the document, or parts of it, were left out.
func (d *doc) reasons() []string {
	var r []string
	if d.skip != "" {
		r = append(r, d.skip)
	}
	for reason := range d.dropped {
		r = append(r, reason)
	}
	return r
}

func (d *doc) idFor(reason string) string {
	if id, ok := d.dropped[reason]; ok && id != "" {
		return id
	}
	return d.id
}

func (p *Pipeline) example(collection, reason, id string) {
	if id == "" {
		return
	}
	if p.examples[collection] == nil {
		p.examples[collection] = map[string][]string{}
	}
	if ex := p.examples[collection][reason]; len(ex) < maxExamples {
		p.examples[collection][reason] = append(ex, id)
	}
}

// cloneState copies the marker so a failed transaction leaves it as it was.
func (p *Pipeline) cloneState() *store.ImportState {
	c := *p.state
	c.Done = maps.Clone(p.state.Done)
	if c.Done == nil {
		c.Done = map[string]int64{}
	}
	c.Complete = append([]string(nil), p.state.Complete...)
	c.Imported = maps.Clone(p.state.Imported)
	c.Skipped = make(map[string]map[string]int64, len(p.state.Skipped))
	for k, v := range p.state.Skipped {
		c.Skipped[k] = maps.Clone(v)
	}
	return &c
}

func skippedTotal(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
