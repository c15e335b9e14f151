package app

import (
	"bytes"
	"context"
	"sync"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/pubsub"
	"ermine/internal/store"
)

// A message send first reads who sends and where (the session and its
// user, the channel, its server and the sender's membership: one query,
// store.FetchSessionChannelAccess) and then writes the message. On
// PostgreSQL that read was as dear as the write, so the access cache
// keeps what it reads, by row, and answers the next send from memory.
//
// Every row it keeps is dropped when it changes:
//   - on this node, by accessStore, the App's store: each of its writes
//     that can change a kept row (the list is checked against the whole
//     store contract by TestAccessStoreCoversEveryWrite) drops the row
//     when the write returns, or when its transaction ends;
//   - on the other nodes, by a frame naming the rows on event.Access(),
//     sent after the write; the admin command's changes come the same
//     way, relayed through the store.
//
// A read that ran while a row was dropped is not kept (gen), so a row is
// never kept from before a change that has been announced. Only rows
// that exist are kept: a session, channel or membership created later
// is read from the store when first used. The bus delivers at most
// once; should it lose a frame, accessAge bounds how long another node
// uses a row changed meanwhile. When the bus cannot be subscribed to,
// the cache keeps nothing.
const (
	// accessAge is the longest a row is used after it was read.
	accessAge = 10 * time.Second

	// The most rows of each kind kept; beyond, an arbitrary one makes
	// room. Decoded, a session with its user is about 1 KB, a channel
	// 0.5 KB, a membership 0.3 KB and a server 1 to 20 KB (its roles),
	// so a full cache holds about 40 MB at the most.
	accessSessions = 10_000
	accessChannels = 10_000
	accessServers  = 1_000
	accessMembers  = 20_000
)

// accessCache keeps the rows of recent sends' reads.
type accessCache struct {
	now func() time.Time

	mu sync.Mutex
	// gen counts the drops: a read begun before one is not kept.
	gen      uint64
	sessions map[string]sessionRow // by token
	tokens   map[chat.ID]string    // session id to token, for sessions kept
	channels map[chat.ID]row[chat.Channel]
	servers  map[chat.ID]row[chat.Server]
	members  map[chat.MemberID]row[chat.Member]

	bus  pubsub.Bus          // nil on a single node without one
	sub  pubsub.Subscription // to event.Access()
	self chat.ID             // names this cache's frames, which it need not read back
	off  bool                // the bus could not be subscribed to: keep nothing
	log  logFunc
}

// row is one kept row and when it was read.
type row[T any] struct {
	v    *T
	read time.Time
}

// sessionRow is a session with its user.
type sessionRow struct {
	session *chat.Session
	user    *chat.User
	read    time.Time
}

func newAccessCache(bus pubsub.Bus, now func() time.Time, log logFunc) *accessCache {
	c := &accessCache{now: now, bus: bus, log: log, self: chat.NewID(),
		sessions: map[string]sessionRow{}, tokens: map[chat.ID]string{},
		channels: map[chat.ID]row[chat.Channel]{}, servers: map[chat.ID]row[chat.Server]{},
		members: map[chat.MemberID]row[chat.Member]{}}
	if bus == nil {
		return c
	}
	sub, err := bus.Subscribe(c.onFrame)
	if err == nil {
		if err = sub.Add(event.Access()); err != nil {
			_ = sub.Close()
		}
	}
	if err != nil {
		// Without hearing the other nodes' changes, a kept row could be
		// stale for accessAge: keep none.
		c.off = true
		return c
	}
	c.sub = sub
	return c
}

func (c *accessCache) close() {
	if c.sub != nil {
		_ = c.sub.Close()
	}
}

// lookup answers FetchSessionChannelAccess from memory when every row it
// needs is kept: the session and its user, the channel and, for a server
// channel, the server and the user's membership. The values are copies:
// the caller may change them.
func (c *accessCache) lookup(token string, channel chat.ID) (*store.SessionChannel, bool) {
	now := c.now()
	// fresh reports whether a row read at t may still be used.
	fresh := func(t time.Time) bool { return now.Sub(t) < accessAge }
	c.mu.Lock()
	defer c.mu.Unlock()
	se, ok := c.sessions[token]
	if !ok || !fresh(se.read) {
		return nil, false
	}
	ch, ok := c.channels[channel]
	if !ok || !fresh(ch.read) {
		return nil, false
	}
	out := &store.SessionChannel{Session: clone(se.session), User: clone(se.user), Channel: clone(ch.v)}
	if !ch.v.IsServerChannel() {
		return out, true
	}
	sv, ok := c.servers[ch.v.Server]
	if !ok || !fresh(sv.read) {
		return nil, false
	}
	m, ok := c.members[chat.MemberID{Server: ch.v.Server, User: se.user.ID}]
	if !ok || !fresh(m.read) {
		return nil, false
	}
	out.Server, out.Member = clone(sv.v), clone(m.v)
	return out, true
}

// clone returns a copy of *p (nil for nil): what the cache hands out is
// never what it keeps.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// begin returns the generation a read starts at, for keep.
func (c *accessCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// keep stores the rows of r, read from the store since begin returned
// gen, unless one was dropped meanwhile. It keeps copies.
func (c *accessCache) keep(gen uint64, r *store.SessionChannel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off || gen != c.gen {
		return
	}
	now := c.now()
	if r.Session != nil && r.User != nil {
		if old, ok := c.sessions[r.Session.Token]; ok {
			delete(c.tokens, old.session.ID)
		} else if len(c.sessions) >= accessSessions {
			for token, old := range c.sessions {
				c.dropSessionLocked(token, old.session.ID)
				break
			}
		}
		c.sessions[r.Session.Token] = sessionRow{session: clone(r.Session), user: clone(r.User), read: now}
		c.tokens[r.Session.ID] = r.Session.Token
	}
	if r.Channel != nil {
		put(c.channels, r.Channel.ID, r.Channel, now, accessChannels)
	}
	if r.Server != nil {
		put(c.servers, r.Server.ID, r.Server, now, accessServers)
	}
	if r.Member != nil {
		put(c.members, r.Member.ID, r.Member, now, accessMembers)
	}
}

// put keeps a copy of v under k, making room when m holds limit rows.
func put[K comparable, T any](m map[K]row[T], k K, v *T, now time.Time, limit int) {
	if _, ok := m[k]; !ok && len(m) >= limit {
		for old := range m {
			delete(m, old)
			break
		}
	}
	m[k] = row[T]{v: clone(v), read: now}
}

func (c *accessCache) dropSessionLocked(token string, id chat.ID) {
	delete(c.sessions, token)
	if c.tokens[id] == token {
		delete(c.tokens, id)
	}
}

// accessChange names rows that changed. Kind is one of the change…
// constants; a membership names its server in ID and its user in User.
type accessChange struct {
	Kind byte
	ID   chat.ID
	User chat.ID
}

const (
	changeSession    = 's' // a session, by id
	changeUser       = 'u' // a user, and every session of theirs kept
	changeChannel    = 'c'
	changeServer     = 'v'
	changeMember     = 'm'
	changeEverything = '*' // anything: a frame that could not be read
)

// drop forgets the rows named.
func (c *accessCache) drop(changes []accessChange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, ch := range changes {
		switch ch.Kind {
		case changeSession:
			if token, ok := c.tokens[ch.ID]; ok {
				c.dropSessionLocked(token, ch.ID)
			}
		case changeUser:
			for token, se := range c.sessions {
				if se.session.UserID == ch.ID {
					c.dropSessionLocked(token, se.session.ID)
				}
			}
		case changeChannel:
			delete(c.channels, ch.ID)
		case changeServer:
			// Its channels and memberships are kept on: a send reads
			// them only with the server, read again from the store.
			delete(c.servers, ch.ID)
		case changeMember:
			delete(c.members, chat.MemberID{Server: ch.ID, User: ch.User})
		default:
			clear(c.sessions)
			clear(c.tokens)
			clear(c.channels)
			clear(c.servers)
			clear(c.members)
		}
	}
}

// changed drops the rows named on this node and tells the other nodes.
// It runs after the write that changed them has committed, whatever the
// request's context has become since.
func (c *accessCache) changed(ctx context.Context, changes []accessChange) {
	if len(changes) == 0 {
		return
	}
	c.drop(changes)
	if c.bus == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if err := c.bus.Publish(ctx, event.Access(), encodeChanges(c.self, changes)); err != nil {
		c.log(ctx, "tell the other nodes of changed access rows", "err", err)
	}
}

// onFrame is the subscription's handler: another node's changes. This
// node's own frames come back too; it dropped their rows already.
func (c *accessCache) onFrame(_ string, msg []byte) {
	from, changes := decodeChanges(msg)
	if from == c.self {
		return
	}
	c.drop(changes)
}

// encodeChanges writes the id of the cache that sends them, then the
// changes, as lines: the kind, then the id, then for a membership a space
// and the user.
func encodeChanges(from chat.ID, changes []accessChange) []byte {
	var b bytes.Buffer
	b.WriteString(string(from))
	for _, ch := range changes {
		b.WriteByte('\n')
		b.WriteByte(ch.Kind)
		b.WriteString(string(ch.ID))
		if ch.Kind == changeMember {
			b.WriteByte(' ')
			b.WriteString(string(ch.User))
		}
	}
	return b.Bytes()
}

// decodeChanges reads encodeChanges' lines. Anything it cannot read is
// a change of everything, from nobody: dropping too much costs a few
// reads, dropping too little a stale permission.
func decodeChanges(msg []byte) (chat.ID, []accessChange) {
	everything := []accessChange{{Kind: changeEverything}}
	first, rest, _ := bytes.Cut(msg, []byte{'\n'})
	if len(first) == 0 || len(rest) == 0 {
		return "", everything
	}
	var out []accessChange
	for line := range bytes.SplitSeq(rest, []byte{'\n'}) {
		if len(line) < 2 {
			return "", everything
		}
		ch := accessChange{Kind: line[0]}
		rest := line[1:]
		switch ch.Kind {
		case changeMember:
			server, user, ok := bytes.Cut(rest, []byte{' '})
			if !ok || len(server) == 0 || len(user) == 0 {
				return "", everything
			}
			ch.ID, ch.User = chat.ID(server), chat.ID(user)
		case changeSession, changeUser, changeChannel, changeServer:
			ch.ID = chat.ID(rest)
		default:
			return "", everything
		}
		out = append(out, ch)
	}
	return chat.ID(first), out
}

// accessStore is the App's store: the store, with the access cache
// answering FetchSessionChannelAccess and dropping what each write
// below changes. Every other method is the store's own; the test named
// above fails when the contract gains a write that is not sorted into
// those that change a kept row (overridden here) and those that cannot.
type accessStore struct {
	store.Store
	cache *accessCache
	// pending is, inside a transaction, where its changes wait for it to
	// end: dropped earlier, a row could be read again from before the
	// commit and kept.
	pending *[]accessChange
}

func (s *accessStore) changed(ctx context.Context, changes ...accessChange) {
	if s.pending != nil {
		*s.pending = append(*s.pending, changes...)
		return
	}
	s.cache.changed(ctx, changes)
}

// InTx runs fn over an accessStore of the transaction and drops what it
// changed when it ends (committed or not: a rolled-back change drops rows
// that did not change, which costs a read).
func (s *accessStore) InTx(ctx context.Context, fn func(store.Store) error) error {
	if s.pending != nil { // nested: the outer transaction drops
		return s.Store.InTx(ctx, func(tx store.Store) error {
			return fn(&accessStore{Store: tx, cache: s.cache, pending: s.pending})
		})
	}
	var pending []accessChange
	err := s.Store.InTx(ctx, func(tx store.Store) error {
		return fn(&accessStore{Store: tx, cache: s.cache, pending: &pending})
	})
	s.cache.changed(ctx, pending)
	return err
}

// FetchSessionChannelAccess answers from the cache when it can, else
// reads the store and keeps what it read. Inside a transaction it always
// reads the store (which locks what it reads).
//
// The channel it returns never carries its last message id, kept or not:
// a send does not read it, and the write-behind of last message ids
// (SetLastMessage, every second) would otherwise drop every busy channel
// from the cache as often.
func (s *accessStore) FetchSessionChannelAccess(ctx context.Context, token string, channel chat.ID) (*store.SessionChannel, error) {
	if s.pending != nil || s.cache.off {
		return withoutLastMessage(s.Store.FetchSessionChannelAccess(ctx, token, channel))
	}
	if r, ok := s.cache.lookup(token, channel); ok {
		return r, nil
	}
	gen := s.cache.begin()
	r, err := withoutLastMessage(s.Store.FetchSessionChannelAccess(ctx, token, channel))
	if err == nil {
		s.cache.keep(gen, r)
	}
	return r, err
}

// withoutLastMessage clears the last message id of r's channel.
func withoutLastMessage(r *store.SessionChannel, err error) (*store.SessionChannel, error) {
	if err == nil && r.Channel != nil {
		r.Channel.LastMessageID = nil
	}
	return r, err
}

// The writes that can change a kept row. Each drops the row after the
// store's write, whether it failed or not (a failure may have written).

// after drops change once the write that returned err has run (Go
// evaluates the write, an argument, first) and returns err.
func (s *accessStore) after(ctx context.Context, err error, change accessChange) error {
	s.changed(ctx, change)
	return err
}

func (s *accessStore) UpdateSession(ctx context.Context, se *chat.Session) error {
	return s.after(ctx, s.Store.UpdateSession(ctx, se), accessChange{Kind: changeSession, ID: se.ID})
}

func (s *accessStore) DeleteSession(ctx context.Context, id chat.ID) error {
	return s.after(ctx, s.Store.DeleteSession(ctx, id), accessChange{Kind: changeSession, ID: id})
}

func (s *accessStore) DeleteSessions(ctx context.Context, user, except chat.ID) ([]chat.ID, error) {
	removed, err := s.Store.DeleteSessions(ctx, user, except)
	s.changed(ctx, accessChange{Kind: changeUser, ID: user})
	return removed, err
}

func (s *accessStore) UpdateUser(ctx context.Context, u *chat.User) error {
	return s.after(ctx, s.Store.UpdateUser(ctx, u), accessChange{Kind: changeUser, ID: u.ID})
}

func (s *accessStore) DeleteUser(ctx context.Context, id chat.ID) error {
	return s.after(ctx, s.Store.DeleteUser(ctx, id), accessChange{Kind: changeUser, ID: id})
}

// DeleteAccount drops the account's user's sessions: an account and its
// user share an id.
func (s *accessStore) DeleteAccount(ctx context.Context, id chat.ID) error {
	return s.after(ctx, s.Store.DeleteAccount(ctx, id), accessChange{Kind: changeUser, ID: id})
}

// DeleteBot drops the bot user's sessions (it has none; for certainty).
func (s *accessStore) DeleteBot(ctx context.Context, id chat.ID) error {
	return s.after(ctx, s.Store.DeleteBot(ctx, id), accessChange{Kind: changeUser, ID: id})
}

func (s *accessStore) UpdateServer(ctx context.Context, sv *chat.Server) error {
	return s.after(ctx, s.Store.UpdateServer(ctx, sv), accessChange{Kind: changeServer, ID: sv.ID})
}

func (s *accessStore) DeleteServer(ctx context.Context, id chat.ID) error {
	return s.after(ctx, s.Store.DeleteServer(ctx, id), accessChange{Kind: changeServer, ID: id})
}

// InsertMember drops the membership too: none is kept before it exists,
// but dropping costs nothing and keeps the rule simple.
func (s *accessStore) InsertMember(ctx context.Context, m *chat.Member) error {
	return s.after(ctx, s.Store.InsertMember(ctx, m), accessChange{Kind: changeMember, ID: m.ID.Server, User: m.ID.User})
}

func (s *accessStore) UpdateMember(ctx context.Context, m *chat.Member) error {
	return s.after(ctx, s.Store.UpdateMember(ctx, m), accessChange{Kind: changeMember, ID: m.ID.Server, User: m.ID.User})
}

func (s *accessStore) DeleteMember(ctx context.Context, server, user chat.ID) error {
	return s.after(ctx, s.Store.DeleteMember(ctx, server, user), accessChange{Kind: changeMember, ID: server, User: user})
}

func (s *accessStore) UpdateChannel(ctx context.Context, c *chat.Channel) error {
	return s.after(ctx, s.Store.UpdateChannel(ctx, c), accessChange{Kind: changeChannel, ID: c.ID})
}

func (s *accessStore) DeleteChannel(ctx context.Context, id chat.ID) error {
	return s.after(ctx, s.Store.DeleteChannel(ctx, id), accessChange{Kind: changeChannel, ID: id})
}
