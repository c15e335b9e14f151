package bulk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"ermine/internal/blob"
	"ermine/internal/chat"
	"ermine/internal/store"
)

// ExportOptions choose what Export writes.
type ExportOptions struct {
	// Server, when set, exports that server alone: the server, its
	// channels, members, bans, roles, emoji, invites, webhooks, messages,
	// audit log and files, and the users they name (without accounts,
	// sessions or settings). Otherwise the whole instance.
	Server chat.ID
	// Generator names the program in the header.
	Generator string
	// Progress, when set, is told how many messages have been written.
	Progress func(messages int64)
}

// page sizes of the reads Export makes.
const (
	userPage    = 1000
	messagePage = 1000
	filePage    = 1000
	reportPage  = 1000
)

// exporter writes records into chunks.
type exporter struct {
	ctx    context.Context
	st     store.Store
	blobs  blob.Store
	sink   Sink
	opt    ExportOptions
	buf    bytes.Buffer
	chunks int
	counts map[string]int64
	hashes map[string]bool // files whose bytes are written
	users  map[chat.ID]bool
	files  map[string]bool // file ids exported
	// pending are users a server export names and has not written yet.
	pending map[chat.ID]bool
}

// Export writes the instance (or one server, see ExportOptions) from st
// and blobs into sink, streaming: memory holds one page of each read and
// one chunk of records. It returns how many records of each type it
// wrote. The sink is not closed.
func Export(ctx context.Context, st store.Store, blobs blob.Store, sink Sink, opt ExportOptions) (map[string]int64, error) {
	e := &exporter{ctx: ctx, st: st, blobs: blobs, sink: sink, opt: opt, counts: map[string]int64{},
		hashes: map[string]bool{}, users: map[chat.ID]bool{}, files: map[string]bool{}}
	h := Header{Version: Version, Generator: opt.Generator, ExportedAt: chat.Now(), Scope: ScopeInstance}
	if opt.Server != "" {
		h.Scope, h.Server = ScopeServer, opt.Server
	}
	if err := e.put(TypeHeader, h); err != nil {
		return nil, err
	}
	var err error
	if opt.Server != "" {
		err = e.server()
	} else {
		err = e.instance()
	}
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int64, len(e.counts))
	for k, v := range e.counts {
		counts[k] = v
	}
	if err := e.put(TypeEnd, End{Counts: counts}); err != nil {
		return nil, err
	}
	if err := e.flush(); err != nil {
		return nil, err
	}
	return counts, nil
}

// put appends a record, writing the chunk when it is full.
func (e *exporter) put(typ string, v any) error {
	obj, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", typ, err)
	}
	line, err := json.Marshal(Record{Type: typ, Object: obj})
	if err != nil {
		return fmt.Errorf("encode %s: %w", typ, err)
	}
	if e.buf.Len()+len(line)+1 > ChunkSize && e.buf.Len() > 0 {
		if err := e.flush(); err != nil {
			return err
		}
	}
	e.buf.Write(line)
	e.buf.WriteByte('\n')
	if typ != TypeHeader && typ != TypeEnd {
		e.counts[typ]++
	}
	return nil
}

func (e *exporter) flush() error {
	if e.buf.Len() == 0 {
		return nil
	}
	e.chunks++
	if err := e.sink.Records(e.chunks, e.buf.Bytes()); err != nil {
		return fmt.Errorf("write records: %w", err)
	}
	e.buf.Reset()
	return nil
}

// instance exports everything, user by user for what hangs off users
// and server by server for the rest.
func (e *exporter) instance() error {
	ctx, st := e.ctx, e.st
	// Accounts and users first, so that every later record names known users.
	var ids []chat.ID
	err := e.eachUser(func(u *chat.User) error {
		ids = append(ids, u.ID)
		acc, err := st.FetchAccount(ctx, u.ID)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return fmt.Errorf("fetch account %s: %w", u.ID, err)
		default:
			if err := e.put(TypeAccount, acc); err != nil {
				return err
			}
		}
		return e.user(u)
	})
	if err != nil {
		return err
	}
	servers := map[chat.ID]bool{}
	var serverOrder []chat.ID
	private := map[chat.ID]bool{}
	for _, id := range ids {
		sessions, err := st.FetchSessions(ctx, id)
		if err != nil {
			return fmt.Errorf("fetch sessions %s: %w", id, err)
		}
		for _, s := range sessions {
			if err := e.put(TypeSession, s); err != nil {
				return err
			}
		}
		rels, err := st.FetchRelationships(ctx, id)
		if err != nil {
			return fmt.Errorf("fetch relationships %s: %w", id, err)
		}
		for _, r := range rels {
			if err := e.put(TypeRelationship, Relationship{User: id, Other: r.ID, Status: r.Status}); err != nil {
				return err
			}
		}
		settings, err := st.FetchSettings(ctx, id, nil)
		if err != nil {
			return fmt.Errorf("fetch settings %s: %w", id, err)
		}
		if len(settings) > 0 {
			if err := e.put(TypeSettings, Settings{User: id, Settings: settings}); err != nil {
				return err
			}
		}
		bots, err := st.FetchBotsByOwner(ctx, id)
		if err != nil {
			return fmt.Errorf("fetch bots %s: %w", id, err)
		}
		for _, b := range bots {
			if err := e.put(TypeBot, b); err != nil {
				return err
			}
		}
		ms, err := st.FetchMemberships(ctx, id)
		if err != nil {
			return fmt.Errorf("fetch memberships %s: %w", id, err)
		}
		for _, m := range ms {
			if !servers[m.ID.Server] {
				servers[m.ID.Server] = true
				serverOrder = append(serverOrder, m.ID.Server)
			}
		}
		chans, err := st.FetchPrivateChannels(ctx, id)
		if err != nil {
			return fmt.Errorf("fetch channels %s: %w", id, err)
		}
		for _, c := range chans {
			if !private[c.ID] {
				private[c.ID] = true
				if err := e.channel(c); err != nil {
					return err
				}
			}
		}
	}
	slices.Sort(serverOrder)
	for _, id := range serverOrder {
		s, err := st.FetchServer(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("fetch server %s: %w", id, err)
		}
		if err := e.serverObjects(s); err != nil {
			return err
		}
	}
	// Emoji whose server was deleted: still shown where messages use them.
	detached, err := st.FetchDetachedEmojis(ctx)
	if err != nil {
		return fmt.Errorf("fetch detached emoji: %w", err)
	}
	for _, em := range detached {
		if err := e.fileID(string(em.ID)); err != nil {
			return err
		}
		if err := e.put(TypeEmoji, em); err != nil {
			return err
		}
	}
	// Files no message, server or user record named (uploads not yet
	// used, a report's evidence): every uploader's records.
	for _, id := range ids {
		var after string
		for {
			fs, err := st.FetchFilesByUploader(ctx, id, after, filePage)
			if err != nil {
				return fmt.Errorf("fetch files %s: %w", id, err)
			}
			for _, f := range fs {
				if err := e.file(f); err != nil {
					return err
				}
			}
			if len(fs) < filePage {
				break
			}
			after = fs[len(fs)-1].ID
		}
	}
	for _, id := range ids {
		unreads, err := st.FetchUnreads(ctx, id)
		if err != nil {
			return fmt.Errorf("fetch unreads %s: %w", id, err)
		}
		for _, u := range unreads {
			if err := e.put(TypeUnread, u); err != nil {
				return err
			}
		}
	}
	var before chat.ID
	for {
		rs, err := st.FetchReports(ctx, store.ReportQuery{Before: before, Limit: reportPage})
		if err != nil {
			return fmt.Errorf("fetch reports: %w", err)
		}
		for _, r := range rs {
			if err := e.put(TypeReport, r); err != nil {
				return err
			}
		}
		if len(rs) < reportPage {
			break
		}
		before = rs[len(rs)-1].ID
	}
	pcs, err := st.FetchPolicyChanges(ctx, chat.Time{})
	if err != nil {
		return fmt.Errorf("fetch policy changes: %w", err)
	}
	for _, p := range pcs {
		if err := e.put(TypePolicyChange, p); err != nil {
			return err
		}
	}
	invs, err := st.FetchRegistrationInvites(ctx)
	if err != nil {
		return fmt.Errorf("fetch registration invites: %w", err)
	}
	for _, inv := range invs {
		if err := e.put(TypeRegistrationInvite, inv); err != nil {
			return err
		}
	}
	return nil
}

// server exports one server and the users it names.
func (e *exporter) server() error {
	s, err := e.st.FetchServer(e.ctx, e.opt.Server)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("server %s: no such server", e.opt.Server)
	}
	if err != nil {
		return fmt.Errorf("fetch server %s: %w", e.opt.Server, err)
	}
	ms, err := e.st.FetchMembers(e.ctx, s.ID)
	if err != nil {
		return fmt.Errorf("fetch members: %w", err)
	}
	want := []chat.ID{s.Owner}
	for _, m := range ms {
		want = append(want, m.ID.User)
	}
	if err := e.usersByID(want); err != nil {
		return err
	}
	if err := e.serverObjects(s); err != nil {
		return err
	}
	return e.usersByID(nil) // authors and others named on the way
}

// usersByID exports the users among ids, and those named since, not yet
// exported.
func (e *exporter) usersByID(ids []chat.ID) error {
	for id := range e.pending {
		ids = append(ids, id)
	}
	clear(e.pending)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for len(ids) > 0 {
		n := min(len(ids), userPage)
		us, err := e.st.FetchUsers(e.ctx, ids[:n])
		if err != nil {
			return fmt.Errorf("fetch users: %w", err)
		}
		slices.SortFunc(us, func(a, b *chat.User) int { return compareID(a.ID, b.ID) })
		for _, u := range us {
			if e.users[u.ID] {
				continue
			}
			if err := e.user(u); err != nil {
				return err
			}
		}
		ids = ids[n:]
	}
	return nil
}

func compareID(a, b chat.ID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// eachUser calls fn for every user of the instance, in id order.
func (e *exporter) eachUser(fn func(*chat.User) error) error {
	var after chat.ID
	for {
		us, err := e.st.SearchUsers(e.ctx, store.UserSearch{After: after, Limit: userPage})
		if err != nil {
			return fmt.Errorf("list users: %w", err)
		}
		for _, u := range us {
			if err := fn(u); err != nil {
				return err
			}
		}
		if len(us) < userPage {
			return nil
		}
		after = us[len(us)-1].ID
	}
}

// user writes a user (its stored form) and its files.
func (e *exporter) user(u *chat.User) error {
	e.users[u.ID] = true
	if err := e.put(TypeUser, u.Doc()); err != nil {
		return err
	}
	if err := e.fileRef(u.Avatar); err != nil {
		return err
	}
	if u.Profile != nil {
		return e.fileRef(u.Profile.Background)
	}
	return nil
}

// serverObjects writes a server and everything that belongs to it.
func (e *exporter) serverObjects(s *chat.Server) error {
	ctx, st := e.ctx, e.st
	if err := e.put(TypeServer, s); err != nil {
		return err
	}
	if err := e.fileRef(s.Icon); err != nil {
		return err
	}
	if err := e.fileRef(s.Banner); err != nil {
		return err
	}
	chans, err := st.FetchServerChannels(ctx, s.ID)
	if err != nil {
		return fmt.Errorf("fetch channels of %s: %w", s.ID, err)
	}
	for _, c := range chans {
		if err := e.channel(c); err != nil {
			return err
		}
	}
	ms, err := st.FetchMembers(ctx, s.ID)
	if err != nil {
		return fmt.Errorf("fetch members of %s: %w", s.ID, err)
	}
	for _, m := range ms {
		e.name(m.ID.User)
		if err := e.put(TypeMember, m); err != nil {
			return err
		}
		if err := e.fileRef(m.Avatar); err != nil {
			return err
		}
	}
	bans, err := st.FetchBans(ctx, s.ID)
	if err != nil {
		return fmt.Errorf("fetch bans of %s: %w", s.ID, err)
	}
	for _, b := range bans {
		e.name(b.ID.User)
		if err := e.put(TypeBan, b); err != nil {
			return err
		}
	}
	emojis, err := st.FetchServerEmojis(ctx, []chat.ID{s.ID})
	if err != nil {
		return fmt.Errorf("fetch emoji of %s: %w", s.ID, err)
	}
	for _, em := range emojis {
		if err := e.fileID(string(em.ID)); err != nil {
			return err
		}
		e.name(em.CreatorID)
		if err := e.put(TypeEmoji, em); err != nil {
			return err
		}
	}
	invs, err := st.FetchServerInvites(ctx, s.ID)
	if err != nil {
		return fmt.Errorf("fetch invites of %s: %w", s.ID, err)
	}
	for _, inv := range invs {
		e.name(inv.Creator)
		if err := e.put(TypeInvite, inv); err != nil {
			return err
		}
	}
	for _, c := range chans {
		if err := e.messages(c.ID); err != nil {
			return err
		}
	}
	var before chat.ID
	for {
		es, err := st.FetchAuditLogEntries(ctx, store.AuditLogQuery{Server: s.ID, Before: before, Limit: 100})
		if err != nil {
			return fmt.Errorf("fetch audit log of %s: %w", s.ID, err)
		}
		for _, a := range es {
			if err := e.put(TypeAuditLogEntry, a); err != nil {
				return err
			}
		}
		if len(es) < 100 {
			break
		}
		before = es[len(es)-1].ID
	}
	return nil
}

// channel writes a channel, its icon and its webhooks.
func (e *exporter) channel(c *chat.Channel) error {
	if err := e.put(TypeChannel, c); err != nil {
		return err
	}
	if err := e.fileRef(c.Icon); err != nil {
		return err
	}
	if !c.IsServerChannel() {
		// A server's invites come with the server; a group's here.
		invs, err := e.st.FetchChannelInvites(e.ctx, c.ID)
		if err != nil {
			return fmt.Errorf("fetch invites of %s: %w", c.ID, err)
		}
		for _, inv := range invs {
			if err := e.put(TypeInvite, inv); err != nil {
				return err
			}
		}
		if err := e.messages(c.ID); err != nil {
			return err
		}
	}
	hooks, err := e.st.FetchChannelWebhooks(e.ctx, c.ID)
	if err != nil {
		return fmt.Errorf("fetch webhooks of %s: %w", c.ID, err)
	}
	for _, h := range hooks {
		if err := e.fileRef(h.Avatar); err != nil {
			return err
		}
		e.name(h.CreatorID)
		if err := e.put(TypeWebhook, h); err != nil {
			return err
		}
	}
	return nil
}

// messages writes a channel's history, oldest first, with the files its
// messages carry.
func (e *exporter) messages(channel chat.ID) error {
	var after chat.ID
	for {
		ms, err := e.st.FetchMessages(e.ctx, store.MessageQuery{Channel: channel, After: after, Sort: store.SortOldest, Limit: messagePage})
		if err != nil {
			return fmt.Errorf("fetch messages of %s: %w", channel, err)
		}
		for _, m := range ms {
			for i := range m.Attachments {
				if err := e.fileRef(&m.Attachments[i]); err != nil {
					return err
				}
			}
			for i := range m.Embeds {
				if err := e.fileRef(m.Embeds[i].Media); err != nil {
					return err
				}
			}
			e.name(m.Author)
			if err := e.put(TypeMessage, Message{Message: m, AuthorBot: m.AuthorBot}); err != nil {
				return err
			}
		}
		if e.opt.Progress != nil && len(ms) > 0 {
			e.opt.Progress(e.counts[TypeMessage])
		}
		if len(ms) < messagePage {
			return nil
		}
		after = ms[len(ms)-1].ID
	}
}

// name notes a user a server export must include.
func (e *exporter) name(id chat.ID) {
	if e.opt.Server == "" || id == "" || e.users[id] || id == chat.SystemID {
		return
	}
	if e.pending == nil {
		e.pending = map[chat.ID]bool{}
	}
	e.pending[id] = true
}

// fileRef writes the record and bytes of a file an object carries.
func (e *exporter) fileRef(f *chat.File) error {
	if f == nil {
		return nil
	}
	return e.fileID(f.ID)
}

// fileID writes the record and bytes of the file with id, once.
func (e *exporter) fileID(id string) error {
	if id == "" || e.files[id] {
		return nil
	}
	rec, err := e.st.FetchFile(e.ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		e.files[id] = true
		return nil // a dangling reference is exported as it is
	}
	if err != nil {
		return fmt.Errorf("fetch file %s: %w", id, err)
	}
	return e.file(rec)
}

// file writes a file record, its bytes first (so a reader of the
// archive meets the bytes before the record).
func (e *exporter) file(rec *chat.FileRecord) error {
	if e.files[rec.ID] {
		return nil
	}
	e.files[rec.ID] = true
	if rec.Hash != "" && !e.hashes[rec.Hash] && len(rec.Hash) > 2 {
		o, err := e.blobs.Open(e.ctx, "originals/"+rec.Hash[:2]+"/"+rec.Hash)
		switch {
		case errors.Is(err, blob.ErrNotFound):
			// Released bytes (a deleted file): the record goes alone.
		case err != nil:
			return fmt.Errorf("open file %s: %w", rec.ID, err)
		default:
			err := e.sink.File(rec.Hash, o.Size(), o)
			o.Close()
			if err != nil {
				return fmt.Errorf("write file %s: %w", rec.ID, err)
			}
			e.hashes[rec.Hash] = true
		}
	}
	return e.put(TypeFile, rec)
}
