package app

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/pubsub"
)

// The member lists of big servers are kept encoded in memory, so that
// GET /servers/{id}/members does not read and encode every member and
// user again on each call.
// memberCacheMin is the fewest members a server needs for its list to be
// kept: smaller lists are cheap to build. A variable for tests.
var memberCacheMin = 500

const (
	// memberCacheServers is the most servers whose lists are kept.
	memberCacheServers = 16
	// memberCacheAge is the longest a list is kept, a bound on staleness
	// should an invalidating event be dropped by the bus.
	memberCacheAge = time.Minute
)

// memberEntry is one server's member list, encoded member by member, each
// user as seen by someone with no relationship with them, offline and
// online. Users a viewer may see differently (the viewer, their
// relations, bots) are rendered again for each request.
type memberEntry struct {
	built, used time.Time
	members     [][]byte
	users       []*chat.User
	seen        [][2][]byte // [offline, online]
}

// memberCache holds the encoded member lists of big servers. An entry is
// dropped when an event that may change it is published on its server's
// topics, on this node (at once, in publish) or on another one (through
// a bus subscription to the topics of the servers held).
type memberCache struct {
	mu      sync.Mutex
	entries map[chat.ID]*memberEntry
	// gens counts the invalidations of each server, so that a list read
	// before an invalidation is not stored after it; epoch is bumped when
	// gens is cleared to keep it small.
	gens  map[chat.ID]uint64
	epoch uint64
	// loading counts the reads of each server's list under way.
	loading map[chat.ID]int
	sub     pubsub.Subscription // nil when the bus could not subscribe
	noBus   bool                // no bus at all: a single node
}

func newMemberCache(bus pubsub.Bus) *memberCache {
	c := &memberCache{entries: map[chat.ID]*memberEntry{}, gens: map[chat.ID]uint64{}, loading: map[chat.ID]int{}}
	c.noBus = bus == nil
	if bus != nil {
		if sub, err := bus.Subscribe(c.onFrame); err == nil {
			c.sub = sub
		}
	}
	return c
}

func (c *memberCache) close() {
	if c != nil && c.sub != nil {
		_ = c.sub.Close()
	}
}

// topicServer returns the server a topic may be of: the topic itself, or
// without the suffix of Members.
func topicServer(topic string) chat.ID {
	if n := len(topic); n > 0 && topic[n-1] == 'u' {
		return chat.ID(topic[:n-1])
	}
	return chat.ID(topic)
}

// affectsMembers reports whether an event of type typ (JSON j) may change
// a member list: everything on a server's topics except presence changes
// (online is looked up on each request) and typing.
func affectsMembers(typ string, j []byte) bool {
	switch typ {
	case chat.EvChannelStartTyping, chat.EvChannelStopTyping:
		return false
	case chat.EvUserUpdate:
		// Only the keys are needed: decode the top level and data as raw
		// values (chat.UserUpdateEvent would decode every value).
		var ev map[string]json.RawMessage
		var data map[string]json.RawMessage
		var clear []string
		if json.Unmarshal(j, &ev) != nil || json.Unmarshal(ev["data"], &data) != nil {
			return true
		}
		if c, ok := ev["clear"]; ok && json.Unmarshal(c, &clear) != nil {
			return true
		}
		_, online := data["online"]
		return len(clear) > 0 || len(data) != 1 || !online
	}
	return true
}

// published drops the lists of the servers among topics when the event
// may change them, and marks those being read as changed.
func (c *memberCache) published(typ string, j []byte, topics []string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	checked := false
	for _, t := range topics {
		id := topicServer(t)
		if _, held := c.entries[id]; !held && c.loading[id] == 0 {
			continue
		}
		if !checked {
			if !affectsMembers(typ, j) {
				return
			}
			checked = true
		}
		c.invalidateLocked(id)
	}
}

func (c *memberCache) onFrame(topic string, msg []byte) {
	f, err := event.Unmarshal(msg)
	if err != nil {
		return
	}
	c.published(f.Type, f.JSON, []string{topic})
}

func (c *memberCache) invalidateLocked(id chat.ID) {
	if len(c.gens) > 100_000 {
		clear(c.gens)
		c.epoch++
	}
	c.gens[id]++
	// The topics stay followed: the list is likely to be read again.
	delete(c.entries, id)
}

// stamp is a server's invalidation count at one moment.
type stamp struct{ epoch, gen uint64 }

func (c *memberCache) get(id chat.ID, now time.Time) *memberEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[id]
	if e != nil && now.Sub(e.built) > memberCacheAge {
		// Read again without unfollowing: the list is in use.
		delete(c.entries, id)
		e = nil
	}
	if e != nil {
		e.used = now
	}
	return e
}

// begin records a read of server id's list and returns its stamp; end
// must follow.
func (c *memberCache) begin(id chat.ID) stamp {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loading[id]++
	return stamp{c.epoch, c.gens[id]}
}

func (c *memberCache) end(id chat.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loading[id]--; c.loading[id] <= 0 {
		delete(c.loading, id)
	}
}

// put keeps e for server id unless the server was invalidated since s.
func (c *memberCache) put(id chat.ID, e *memberEntry, s stamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s != (stamp{c.epoch, c.gens[id]}) {
		return
	}
	if len(c.entries) >= memberCacheServers {
		var old chat.ID
		for k, v := range c.entries {
			if old == "" || v.used.Before(c.entries[old].used) {
				old = k
			}
		}
		delete(c.entries, old)
		delete(c.gens, old)
		if c.sub != nil {
			_ = c.sub.Remove(event.Of(old), event.Members(old))
		}
	}
	c.entries[id] = e
}

// watch subscribes to the server's topics, so that changes made on other
// nodes reach the cache; it returns before the list is read. Without a
// bus there are no other nodes.
func (c *memberCache) watch(id chat.ID) bool {
	if c.sub == nil {
		return c.noBus
	}
	return c.sub.Add(event.Of(id), event.Members(id)) == nil
}

// FetchMembersJSON is FetchMembers encoded as JSON, the body of
// GET /servers/{id}/members, byte for byte what encoding FetchMembers'
// result gives. Lists of big servers come from memory.
func (a *App) FetchMembersJSON(ctx context.Context, c *Caller, id chat.ID, excludeOffline bool) ([]byte, error) {
	if _, err := a.serverAccess(ctx, a.store, c.User, id); err != nil {
		return nil, err
	}
	now := a.now()
	e := a.events.members.get(id, now)
	if e == nil {
		var err error
		if e, err = a.loadMembers(ctx, id, now); err != nil {
			return nil, err
		}
	}
	return a.renderMembers(ctx, c.User, e, excludeOffline)
}

// loadMembers reads and encodes server id's list, and keeps it when the
// server is big.
func (a *App) loadMembers(ctx context.Context, id chat.ID, now time.Time) (*memberEntry, error) {
	e, err := a.readMembers(ctx, id, now, false)
	if err != nil || len(e.members) < memberCacheMin || !a.events.members.watch(id) {
		return e, err
	}
	// Read again now that changes made anywhere reach the cache.
	return a.readMembers(ctx, id, now, true)
}

// readMembers reads and encodes server id's list, and with keep stores it
// unless it changed meanwhile.
func (a *App) readMembers(ctx context.Context, id chat.ID, now time.Time, keep bool) (*memberEntry, error) {
	st := a.events.members.begin(id)
	defer a.events.members.end(id)
	members, err := a.store.FetchMembers(ctx, id)
	if err != nil {
		return nil, dbError("fetch members", err)
	}
	ids := make([]chat.ID, len(members))
	for i, m := range members {
		ids[i] = m.ID.User
	}
	users, err := a.store.FetchUsers(ctx, ids)
	if err != nil {
		return nil, dbError("fetch users", err)
	}
	byID := make(map[chat.ID]*chat.User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	e := &memberEntry{built: now, used: now}
	// Members whose user is gone are left out. Users are encoded as a
	// stranger sees them: relationship None, offline or online.
	stranger := &chat.User{Relations: []chat.Relationship{}}
	for _, m := range members {
		u, ok := byID[m.ID.User]
		if !ok {
			continue
		}
		mb, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		seen := a.userSeenBy(stranger, u)
		var both [2][]byte
		for k, online := range []bool{false, true} {
			seen.Online = online
			if both[k], err = json.Marshal(seen); err != nil {
				return nil, err
			}
		}
		e.members = append(e.members, mb)
		e.users = append(e.users, u)
		e.seen = append(e.seen, both)
	}
	if keep {
		a.events.members.put(id, e, st)
	}
	return e, nil
}

// renderMembers writes e's list as viewer sees it.
func (a *App) renderMembers(ctx context.Context, viewer *chat.User, e *memberEntry, excludeOffline bool) ([]byte, error) {
	v, err := a.withRelations(ctx, viewer)
	if err != nil {
		return nil, err
	}
	related := make(map[chat.ID]bool, len(v.Relations))
	for _, r := range v.Relations {
		related[r.ID] = true
	}
	size := 32
	for i := range e.members {
		size += len(e.members[i]) + len(e.seen[i][1]) + 2
	}
	var users bytes.Buffer
	users.Grow(size / 2)
	out := bytes.NewBuffer(make([]byte, 0, size))
	out.WriteString(`{"members":[`)
	n := 0
	for i, u := range e.users {
		var ub []byte
		var online bool
		if u.ID == v.ID || related[u.ID] || u.Bot != nil {
			seen, err := a.viewUser(ctx, v, u)
			if err != nil {
				return nil, err
			}
			online = seen.Online
			if !excludeOffline || online {
				if ub, err = json.Marshal(seen); err != nil {
					return nil, err
				}
			}
		} else {
			online = a.looksOnline(u)
			k := 0
			if online {
				k = 1
			}
			ub = e.seen[i][k]
		}
		if excludeOffline && !online {
			continue
		}
		if n > 0 {
			out.WriteByte(',')
			users.WriteByte(',')
		}
		n++
		out.Write(e.members[i])
		users.Write(ub)
	}
	out.WriteString(`],"users":[`)
	out.Write(users.Bytes())
	out.WriteString(`]}`)
	return out.Bytes(), nil
}
