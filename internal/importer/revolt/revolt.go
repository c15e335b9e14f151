// Package revolt reads a Revolt/Stoat instance's data, as mongodump and
// a mirror of its object store leave it, and feeds it to the import
// pipeline: accounts with their password hashes, MFA and sessions, users,
// bots, servers, members, channels, messages, files and the rest.
//
// The document shapes are the reference's serde names, which Ermine's
// wire types share; timestamps arrive in every encoding the reference
// has written (see toJSON). Instances from the file-server rewrite
// (database revision 29, 2024-09) on are read; files are taken from the
// one bucket the rewrite uses, decrypted with the instance's key, or, for
// files the rewrite's migration did not move, from the per-tag buckets
// where older versions kept them in plain.
package revolt

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"

	"ermine/internal/chat"
	"ermine/internal/importer"
	"ermine/internal/store"
)

// Revisions of the reference's database (its migrations collection).
const (
	// MinRevision is the first revision after the file-server rewrite
	// (migration 28, 2024-09-10, added attachment_hashes).
	MinRevision = 29
	// KnownRevision is the latest revision whose layout this reader
	// was written against (reference v0.15.1).
	KnownRevision = 52
)

// ErrTooOld is a dump from before the file-server rewrite.
var ErrTooOld = errors.New("the dump is too old")

// Options configure reading.
type Options struct {
	// Files is the directory the object store was mirrored to
	// (<bucket>/<key>); empty when files are not imported.
	Files string
	// Key is the instance's files.encryption_key, decoded (32 bytes).
	Key []byte
	// TempDir holds temporary indexes (os.TempDir when empty).
	TempDir string
}

// DecodeKey decodes files.encryption_key as the reference writes it
// (standard base64 of 32 bytes).
func DecodeKey(s string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if k, err = base64.RawStdEncoding.DecodeString(s); err != nil {
			return nil, fmt.Errorf("encryption key is not base64: %w", err)
		}
	}
	if len(k) != 32 {
		return nil, fmt.Errorf("encryption key is %d bytes, want 32 (AES-256)", len(k))
	}
	return k, nil
}

// Revision returns the database revision the dump records.
func Revision(d *Dump) (int, error) {
	if !d.Has("migrations") {
		return 0, fmt.Errorf("%w: it has no migrations collection (instances record their revision there since 2021)", ErrTooOld)
	}
	rev := -1
	err := d.Each("migrations", 0, func(doc bson.Raw) error {
		v, err := doc.LookupErr("revision")
		if err != nil {
			return &DocumentError{Collection: "migrations", ID: docID(doc), Err: errors.New("no revision field")}
		}
		n, ok := v.AsInt64OK()
		if !ok {
			return &DocumentError{Collection: "migrations", ID: docID(doc), Err: errors.New("revision is not a number")}
		}
		rev = max(rev, int(n))
		return nil
	})
	if err != nil {
		return 0, err
	}
	if rev < 0 {
		return 0, fmt.Errorf("%w: its migrations collection is empty", ErrTooOld)
	}
	return rev, nil
}

// CheckRevision refuses dumps older than the file-server rewrite.
func CheckRevision(d *Dump) (int, error) {
	rev, err := Revision(d)
	if err != nil {
		return 0, err
	}
	if rev < MinRevision {
		return rev, fmt.Errorf("%w: it is at database revision %d, from before the file-server rewrite; upgrade the source instance to at least a release of October 2024 (database revision %d or later), start it once so it migrates its database and files, and dump it again",
			ErrTooOld, rev, MinRevision)
	}
	return rev, nil
}

// reader carries one import's state.
type reader struct {
	p       *importer.Pipeline
	d       *Dump
	opt     Options
	objects *objects
	hashes  *hashIndex
	// servers and channels hold the ids the dump has, to tell members and
	// messages that point at nothing; they are small next to messages.
	servers, channels map[chat.ID]bool
	// snapshots maps report ids to their snapshot content, loaded before
	// the reports (as many as reports, few next to messages).
	snapshots map[string]map[string]any
}

// Import reads the dump into the pipeline, collection by collection,
// skipping those an earlier run finished. It does not call Finish.
func Import(ctx context.Context, p *importer.Pipeline, d *Dump, opt Options) error {
	if _, err := CheckRevision(d); err != nil {
		return err
	}
	objs, err := newObjects(opt.Files, opt.Key)
	if err != nil {
		return err
	}
	r := &reader{p: p, d: d, opt: opt, objects: objs, servers: map[chat.ID]bool{}, channels: map[chat.ID]bool{}}
	if err := r.scanIDs(); err != nil {
		return err
	}
	for _, c := range collections {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := c.name
		if c.alias != "" && !d.Has(name) && d.Has(c.alias) {
			name = c.alias
		}
		if p.Complete(c.name) || !d.Has(name) {
			continue
		}
		if err := r.collection(ctx, c, name); err != nil {
			return err
		}
	}
	// What the reference keeps that has no place in Ermine is reported.
	for _, name := range ignored {
		if p.Complete(name.name) || !d.Has(name.name) {
			continue
		}
		w := p.Collection(name.name, d.Count(name.name))
		if err := d.Each(name.name, p.Done(name.name), func(doc bson.Raw) error {
			w.Skip(docID(doc), name.why)
			return w.Next(ctx)
		}); err != nil {
			return err
		}
		if err := w.Close(ctx); err != nil {
			return err
		}
	}
	if r.hashes != nil {
		r.hashes.Close()
	}
	return nil
}

// collection describes how one collection is read.
type collection struct {
	name  string
	alias string // its name before a migration renamed it
	read  func(r *reader, ctx context.Context, w *importer.Writer, doc bson.Raw) error
}

// collections are read in this order (no store constraint needs it; it
// makes the report read from people to their history).
var collections = []collection{
	{name: "accounts", read: (*reader).account},
	{name: "users", read: (*reader).user},
	{name: "sessions", read: (*reader).session},
	{name: "mfa_tickets", read: (*reader).ticket},
	{name: "account_invites", alias: "invites", read: (*reader).accountInvite},
	{name: "user_settings", read: (*reader).settings},
	{name: "bots", read: (*reader).bot},
	{name: "attachments", read: (*reader).attachment},
	{name: "servers", read: (*reader).server},
	{name: "server_members", read: (*reader).member},
	{name: "server_bans", read: (*reader).ban},
	{name: "channels", read: (*reader).channel},
	{name: "channel_invites", read: (*reader).invite},
	{name: "channel_webhooks", read: (*reader).webhook},
	{name: "emojis", read: (*reader).emoji},
	{name: "messages"}, // read by (*reader).messages
	{name: "channel_unreads", read: (*reader).unread},
	{name: "safety_reports", read: (*reader).report},
	{name: "audit_logs", read: (*reader).auditLog},
	{name: "policy_changes", read: (*reader).policyChange},
}

// ignored are collections with nothing to carry over, and why.
var ignored = []struct{ name, why string }{
	{"ratelimit_events", "rate-limit counters are transient"},
	{"safety_strikes", "Ermine has no strikes; the reports they came from are imported"},
}

func (r *reader) collection(ctx context.Context, c collection, name string) error {
	if c.name == "attachments" {
		if err := r.loadHashes(ctx); err != nil {
			return err
		}
	}
	if c.name == "safety_reports" {
		if err := r.loadSnapshots(); err != nil {
			return err
		}
	}
	w := r.p.Collection(c.name, r.d.Count(name))
	if c.name == "messages" {
		return r.messages(ctx, w, name)
	}
	err := r.d.Each(name, r.p.Done(c.name), func(doc bson.Raw) error {
		id := docID(doc)
		w.ID(id)
		for _, f := range unknownFields(c.name, doc) {
			w.Drop(id, "unknown field "+f+" ignored")
		}
		if err := c.read(r, ctx, w, doc); err != nil {
			return err
		}
		return w.Next(ctx)
	})
	if err != nil {
		return err
	}
	return w.Close(ctx)
}

// unknown skips a document of an unknown shape.
func unknown(w *importer.Writer, doc bson.Raw, err error) error {
	w.Skip(docID(doc), "unknown shape: "+err.Error())
	return nil
}

func (r *reader) scanIDs() error {
	for _, s := range []struct {
		coll string
		ids  map[chat.ID]bool
	}{{"servers", r.servers}, {"channels", r.channels}} {
		err := r.d.Each(s.coll, 0, func(doc bson.Raw) error {
			if v, ok := doc.Lookup("_id").StringValueOK(); ok {
				s.ids[chat.ID(v)] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) account(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	a, err := convertAccount(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	w.Account(a)
	return nil
}

func (r *reader) user(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	u, err := convertUser(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	w.User(u.User())
	for _, rel := range u.Relations {
		if rel.Status != chat.RelationNone && rel.ID != "" {
			w.Relationship(u.ID, rel.ID, rel.Status)
		}
	}
	if u.PolicyAck != nil && u.Bot == nil {
		ack := *u.PolicyAck
		w.Do(func(ctx context.Context, s store.Store) error {
			a, err := s.FetchAccount(ctx, u.ID)
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			a.PolicyAcknowledged = &ack
			return s.UpdateAccount(ctx, a)
		})
	}
	return nil
}

func (r *reader) session(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	s, err := convertSession(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	w.Session(s)
	return nil
}

func (r *reader) ticket(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	w.Skip(docID(doc), "MFA tickets live for minutes; a client asks for a new one")
	return nil
}

func (r *reader) accountInvite(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	var inv accountInvite
	if err := decode(doc, &inv); err != nil || inv.ID == "" {
		return unknown(w, doc, fmt.Errorf("no _id (%v)", err))
	}
	w.RegistrationInvite(&chat.RegistrationInvite{Code: inv.ID, Used: inv.Used, UsedBy: inv.ClaimedBy, Created: chat.Now()})
	return nil
}

func (r *reader) settings(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	user, s, err := convertSettings(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	if len(s) > 0 {
		w.Settings(user, s)
	}
	return nil
}

func (r *reader) bot(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	b, err := convertBot(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	w.Bot(b)
	return nil
}

func (r *reader) loadHashes(ctx context.Context) error {
	if r.hashes != nil {
		return nil
	}
	h, err := newHashIndex(r.opt.TempDir)
	if err != nil {
		return err
	}
	r.hashes = h
	return h.load(ctx, r.d)
}

func (r *reader) attachment(ctx context.Context, w *importer.Writer, doc bson.Raw) error {
	var a attachment
	if err := decode(doc, &a); err != nil || a.ID == "" || a.Tag == "" {
		return unknown(w, doc, fmt.Errorf("no _id or tag (%v)", err))
	}
	if a.Deleted != nil && *a.Deleted {
		w.Skip(a.ID, "deleted on the source instance")
		return nil
	}
	bucket, key, iv := a.Tag, a.ID, "" // before the rewrite: per-tag buckets, plain
	if a.Hash != "" {
		info, err := r.hashes.lookup(ctx, a.Hash)
		if err != nil {
			return err
		}
		if info == nil {
			w.Skip(a.ID, "a reference to a missing document: its attachment_hashes entry")
			return nil
		}
		bucket, key, iv = info.Bucket, info.Path, info.IV
	}
	rec := a.record()
	if len(a.Hash) == 64 && iv == "" {
		rec.Hash = a.Hash // the bytes' hash is known: a resumed run need not read them
	}
	err := w.File(ctx, rec, func() (io.ReadCloser, error) { return r.objects.open(bucket, key, iv) })
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrWrongKey), errors.Is(err, ErrNoKey):
		return &DocumentError{Collection: "attachments", ID: a.ID, Err: fmt.Errorf("object %s/%s: %w", bucket, key, err)}
	case errors.Is(err, errMissing):
		w.Skip(a.ID, "object missing from --files")
		return nil
	case errors.Is(err, errUndecryptable):
		w.Skip(a.ID, "undecryptable object")
		return nil
	}
	return &DocumentError{Collection: "attachments", ID: a.ID, Err: err}
}

func (r *reader) server(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	s, err := convertServer(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	w.Server(s)
	return nil
}

func (r *reader) member(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	m, err := convertMember(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	switch {
	case m.PendingDeletion != nil:
		w.Skip(docID(doc), "left the server (removal pending on the source)")
	case !r.servers[m.ID.Server]:
		w.Skip(docID(doc), "a reference to a missing server")
	default:
		w.Member(&m.Member)
	}
	return nil
}

func (r *reader) ban(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	b, err := convertBan(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	if !r.servers[b.ID.Server] {
		w.Skip(docID(doc), "a reference to a missing server")
		return nil
	}
	w.Ban(b)
	return nil
}

func (r *reader) channel(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	c, err := convertChannel(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	if c.Server != "" && !r.servers[c.Server] {
		w.Skip(string(c.ID), "a reference to a missing server")
		return nil
	}
	w.Channel(c)
	return nil
}

func (r *reader) invite(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	inv, err := convertInvite(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	if !r.channels[inv.Channel] {
		w.Skip(inv.Code, "a reference to a missing channel")
		return nil
	}
	w.Invite(inv)
	return nil
}

func (r *reader) webhook(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	h, err := convertWebhook(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	if !r.channels[h.ChannelID] {
		w.Skip(string(h.ID), "a reference to a missing channel")
		return nil
	}
	w.Webhook(h)
	return nil
}

func (r *reader) emoji(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	e, err := convertEmoji(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	w.Emoji(e)
	return nil
}

// converted is a message document read and converted ahead of writing.
type converted struct {
	id      string
	m       *chat.Message
	err     error    // unknown shape
	unknown []string // fields the model does not have
}

// messages reads the messages collection: one goroutine reads and
// converts documents while this one writes them, so decoding and the
// store's work overlap. The queue between them is bounded.
func (r *reader) messages(ctx context.Context, w *importer.Writer, name string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queue := make(chan converted, 1024)
	readErr := make(chan error, 1)
	go func() {
		defer close(queue)
		readErr <- r.d.Each(name, r.p.Done("messages"), func(doc bson.Raw) error {
			m, err := convertMessage(doc)
			c := converted{id: docID(doc), m: m, err: err, unknown: unknownFields("messages", doc)}
			select {
			case queue <- c:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	for c := range queue {
		w.ID(c.id)
		for _, f := range c.unknown {
			w.Drop(c.id, "unknown field "+f+" ignored")
		}
		switch {
		case c.err != nil:
			w.Skip(c.id, "unknown shape: "+c.err.Error())
		case !r.channels[c.m.Channel]:
			w.Skip(c.id, "a reference to a missing channel")
		default:
			w.Message(c.m)
		}
		if err := w.Next(ctx); err != nil {
			cancel()
			for range queue {
			}
			return err
		}
	}
	if err := <-readErr; err != nil {
		return err
	}
	return w.Close(ctx)
}

func (r *reader) unread(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	u, err := convertUnread(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	if !r.channels[u.ID.Channel] {
		w.Skip(docID(doc), "a reference to a missing channel")
		return nil
	}
	w.Unread(u)
	return nil
}

func (r *reader) loadSnapshots() error {
	r.snapshots = map[string]map[string]any{}
	return r.d.Each("safety_snapshots", 0, func(doc bson.Raw) error {
		var s struct {
			ReportID string         `json:"report_id"`
			Content  map[string]any `json:"content"`
		}
		if err := decode(doc, &s); err != nil || s.ReportID == "" {
			return nil // reported with the report: it has no snapshot
		}
		r.snapshots[s.ReportID] = s.Content
		return nil
	})
}

func (r *reader) report(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	rep, err := convertReport(doc, r.snapshots[docID(doc)])
	if err != nil {
		return unknown(w, doc, err)
	}
	w.Report(rep)
	return nil
}

func (r *reader) auditLog(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	e, err := convertAuditLog(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	w.AuditLog(e)
	return nil
}

func (r *reader) policyChange(_ context.Context, w *importer.Writer, doc bson.Raw) error {
	c, err := convertPolicyChange(doc)
	if err != nil {
		return unknown(w, doc, err)
	}
	w.PolicyChange(c)
	return nil
}
