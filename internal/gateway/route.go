package gateway

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"ermine/internal/chat"
	"ermine/internal/event"
)

// handle decides what a frame from the bus becomes for this connection
// (itself, a Bulk rewriting, or nothing), applies the subscription
// changes it causes and adds the result to the batch. Run on the writer.
func (c *conn) handle(topic string, in *incoming) {
	if c.stopped() {
		return
	}
	out, logout := c.route(topic, in)
	c.write(out)
	if logout {
		c.closeAfter(closeNormal)
	}
}

// raw returns the frame's bytes in the connection's format.
func (c *conn) raw(in *incoming) []byte {
	if c.binary {
		return in.frame.Msgpack
	}
	return in.frame.JSON
}

// route picks the rules of the topic's kind. Frames on topics the
// connection no longer follows (queued before it stopped) are dropped.
//
// A server channel's message, the commonest delivery, is decided from the
// connection's own sorted lists without reading its user: each delivery
// to thousands of connections touches as little memory of each as it
// can.
func (c *conn) route(topic string, in *incoming) (out []byte, logout bool) {
	kind, id := event.Parse(topic)
	switch kind {
	case event.KindPrivate:
		if id != c.me() {
			return nil, false
		}
		return c.routePrivate(in)
	case event.KindMembers:
		if !c.isMember(id) {
			return nil, false
		}
		return c.dedupe(in), false
	case event.KindResume:
		if in.frame.Type == evTakeover {
			c.takeover(in)
		}
		return nil, false
	case event.KindAccess: // for the nodes' caches, never a client's
		return nil, false
	}
	c.mu.RLock()
	isServer := c.servers.has(id)
	isChannel := !isServer && c.channels.has(id)
	isUser := !isServer && !isChannel && (id == c.me() || c.users.has(id))
	c.mu.RUnlock()
	if in.frame.Type == chat.EvUserPlatformWipe && (isServer || isChannel || isUser) {
		// Sent on every topic of the user's audience: taken once.
		return c.dedupe(in), false
	}
	switch {
	case isServer:
		return c.routeServer(id, in), false
	case isChannel:
		return c.routeChannel(id, in), false
	case isUser:
		return c.dedupe(in), false
	}
	return nil, false
}

// routePrivate handles the user's own topic: session events, and the
// servers, channels and relationships that start concerning them.
func (c *conn) routePrivate(in *incoming) ([]byte, bool) {
	m := in.meta
	switch in.frame.Type {
	case chat.EvLogout:
		return c.raw(in), true
	case chat.EvAuth:
		se := c.caller.Session
		if se == nil || m == nil {
			return c.raw(in), false
		}
		switch m.EventType {
		case chat.AuthDeleteSession:
			if m.SessionID == se.ID {
				return c.logout(), true
			}
		case chat.AuthDeleteAllSessions:
			if m.Exclude == nil || *m.Exclude != se.ID {
				return c.logout(), true
			}
		}
	case chat.EvServerCreate:
		if m != nil {
			c.joinServer(m.ID)
		}
	case chat.EvServerDelete:
		if m != nil {
			c.leaveServer(m.ID)
		}
	case chat.EvChannelCreate:
		if m == nil {
			return nil, false
		}
		return c.channelAppeared(m, in), false
	case chat.EvUserRelationship:
		if m != nil && m.User != "" {
			c.relationshipChanged(m.User, m.Status)
		}
	case chat.EvUserUpdate, chat.EvUserPlatformWipe:
		return c.dedupe(in), false
	}
	return c.raw(in), false
}

// routeServer handles a server's topic; the connection is a member.
func (c *conn) routeServer(server chat.ID, in *incoming) []byte {
	m := in.meta
	me := c.me()
	switch in.frame.Type {
	case chat.EvChannelCreate:
		if m == nil {
			return nil
		}
		return c.channelAppeared(m, in)
	case chat.EvChannelUpdate:
		if m == nil {
			return nil
		}
		return c.channelChanged(server, m, in)
	case chat.EvChannelDelete:
		if m == nil || !c.sees(m.ID) {
			return nil
		}
		c.forgetChannel(m.ID)
	case chat.EvServerUpdate:
		if m != nil && m.has("default_permissions", "owner") {
			return c.recompute(server, in, c.roles(server))
		}
	case chat.EvServerDelete:
		c.leaveServer(server)
	case chat.EvServerMemberLeave:
		if m != nil && m.User == me {
			c.leaveServer(server)
		}
	case chat.EvServerMemberUpdate:
		if m != nil && m.Member.User == me && (m.has("roles") || m.clears("Roles")) {
			var roles []chat.ID
			if !m.clears("Roles") {
				if err := json.Unmarshal(m.Data["roles"], &roles); err != nil {
					return c.raw(in)
				}
			}
			return c.recompute(server, in, roles)
		}
	case chat.EvServerRoleUpdate:
		if m != nil && m.has("permissions", "rank") && c.holds(server, m.RoleID) {
			return c.recompute(server, in, c.roles(server))
		}
	case chat.EvServerRoleDelete:
		if m != nil && c.holds(server, m.RoleID) {
			roles := slices.DeleteFunc(c.roles(server), func(r chat.ID) bool { return r == m.RoleID })
			return c.recompute(server, in, roles)
		}
	case chat.EvServerRoleRanksUpdate:
		if c.holds(server, "") {
			return c.recompute(server, in, c.roles(server))
		}
	case chat.EvUserUpdate:
		return c.dedupe(in)
	}
	return c.raw(in)
}

// routeChannel handles a channel's topic; the connection sees it.
func (c *conn) routeChannel(channel chat.ID, in *incoming) []byte {
	m := in.meta
	switch in.frame.Type {
	case chat.EvChannelDelete:
		c.forgetChannel(channel)
	case chat.EvChannelUpdate:
		if m == nil {
			return nil
		}
		c.mu.RLock()
		server, _ := c.channels.get(channel)
		c.mu.RUnlock()
		return c.channelChanged(server, m, in)
	case chat.EvChannelGroupJoin:
		if m != nil && m.User != c.me() {
			c.followUser(m.User)
		}
	case chat.EvChannelGroupLeave:
		if m == nil {
			break
		}
		if m.User == c.me() {
			c.forgetChannel(channel)
		} else {
			c.unfollowUserUnlessRelated(m.User)
		}
	case chat.EvUserUpdate:
		return c.dedupe(in)
	}
	return c.raw(in)
}

// isMember reports whether the connection's user belongs to server.
func (c *conn) isMember(server chat.ID) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ok := c.servers.has(server)
	return ok
}

// sees reports whether the connection may see channel.
func (c *conn) sees(channel chat.ID) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ok := c.channels.has(channel)
	return ok
}

// holds reports whether the user holds role on server, or any role when
// role is empty.
func (c *conn) holds(server, role chat.ID) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	roles, _ := c.servers.get(server)
	if role == "" {
		return len(roles) > 0
	}
	return slices.Contains(roles, role)
}

// roles returns a copy of the roles the user holds on server.
func (c *conn) roles(server chat.ID) []chat.ID {
	c.mu.RLock()
	defer c.mu.RUnlock()
	roles, _ := c.servers.get(server)
	return slices.Clone(roles)
}

// visibleNow returns the channels of server the user may view with roles,
// from the server's state loaded once for the event.
func (c *conn) visibleNow(server chat.ID, in *incoming, roles []chat.ID) (map[chat.ID]*chat.Channel, bool) {
	st, err := in.serverState(c.g.ctx, c.g.app, server)
	if err != nil {
		c.g.log.Error("events: load server", "server", server, "err", err)
		return nil, false
	}
	out := make(map[chat.ID]*chat.Channel)
	for _, ch := range c.g.app.VisibleChannels(c.caller.User, st, roles) {
		out[ch.ID] = ch
	}
	return out, true
}

// eventSeed hashes UserUpdate event ids for dedupe.
var eventSeed = maphash.MakeSeed()

// dedupe drops a UserUpdate this connection already received on another
// topic (presence goes to every server of the user and to the user).
func (c *conn) dedupe(in *incoming) []byte {
	if in.eventID == "" {
		return c.raw(in)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recent == nil {
		c.recent = &recentEvents{}
	}
	r := c.recent
	h := maphash.String(eventSeed, in.eventID)
	if slices.Contains(r.ids[:], h) {
		return nil
	}
	r.ids[r.next] = h
	r.next = (r.next + 1) % uint8(len(r.ids))
	return c.raw(in)
}

// channelAppeared handles ChannelCreate: private channels arrive on the
// user's own topic and are theirs; a server channel is followed only when
// the user may view it.
func (c *conn) channelAppeared(m *meta, in *incoming) []byte {
	if c.sees(m.ID) {
		return c.raw(in)
	}
	switch m.ChannelType {
	case chat.ChannelSavedMessages, chat.ChannelDirectMessage, chat.ChannelGroup:
		c.mu.Lock()
		c.channels.set(m.ID, "")
		c.mu.Unlock()
		c.follow(event.Of(m.ID))
		for _, r := range m.Recipients {
			if r != c.me() {
				c.followUser(r)
			}
		}
		return c.raw(in)
	}
	if !c.isMember(m.Server) {
		return nil
	}
	visible, ok := c.visibleNow(m.Server, in, c.roles(m.Server))
	if !ok || visible[m.ID] == nil {
		return nil
	}
	c.addChannel(m.ID, m.Server)
	return c.raw(in)
}

// channelChanged handles ChannelUpdate of a channel of server (empty for
// private channels). An update of a server channel's permissions may show
// or hide it: the update then becomes ChannelCreate or ChannelDelete (in a
// Bulk, like every visibility rewrite).
func (c *conn) channelChanged(server chat.ID, m *meta, in *incoming) []byte {
	c.mu.RLock()
	visible := c.channels.has(m.ID)
	c.mu.RUnlock()
	if server == "" || !m.has("default_permissions", "role_permissions") && !m.clears("DefaultPermissions", "RolePermissions") {
		if visible {
			return c.raw(in) // DMs and groups stay visible to their recipients
		}
		return nil
	}
	now, ok := c.visibleNow(server, in, c.roles(server))
	if !ok {
		if visible {
			return c.raw(in)
		}
		return nil
	}
	ch := now[m.ID]
	switch {
	case visible && ch != nil:
		return c.raw(in)
	case visible:
		c.forgetChannel(m.ID)
		return c.bulk([][]byte{c.mustEncode(chat.IDEvent{Type: chat.EvChannelDelete, ID: m.ID})})
	case ch != nil:
		c.addChannel(ch.ID, server)
		return c.bulk([][]byte{c.mustEncode(chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: ch})})
	}
	return nil
}

// recompute works out which channels of server the user sees now, holding
// roles, and turns the differences into ChannelDelete and ChannelCreate
// packets sent in a Bulk before the event that caused them. The server's
// state is loaded once per event for every connection.
func (c *conn) recompute(server chat.ID, in *incoming, roles []chat.ID) []byte {
	now, ok := c.visibleNow(server, in, roles)
	if !ok {
		return c.raw(in)
	}
	var removed []chat.ID
	var added []*chat.Channel
	c.mu.Lock()
	c.channels.deleteFunc(func(id, s chat.ID) bool {
		if s == server && now[id] == nil {
			removed = append(removed, id)
			return true
		}
		return false
	})
	var fresh []idEntry[chat.ID]
	for id, ch := range now {
		if ok := c.channels.has(id); !ok {
			added = append(added, ch)
			fresh = append(fresh, idEntry[chat.ID]{id, server})
		}
	}
	c.channels.insertAll(fresh)
	if ok := c.servers.has(server); ok {
		c.servers.set(server, roles)
	}
	c.mu.Unlock()
	if len(removed) == 0 && len(added) == 0 {
		return c.raw(in)
	}
	slices.Sort(removed)
	slices.SortFunc(added, func(a, b *chat.Channel) int { return strings.Compare(string(a.ID), string(b.ID)) })
	items := make([][]byte, 0, len(removed)+len(added)+1)
	topics := make([]string, 0, len(removed))
	for _, id := range removed {
		items = append(items, c.mustEncode(chat.IDEvent{Type: chat.EvChannelDelete, ID: id}))
		topics = append(topics, event.Of(id))
	}
	c.unfollow(topics...)
	topics = topics[:0]
	for _, ch := range added {
		items = append(items, c.mustEncode(chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: ch}))
		topics = append(topics, event.Of(ch.ID))
	}
	c.follow(topics...)
	return c.bulk(append(items, c.raw(in)))
}

// joinServer follows a server the user joined (or created): the server,
// its member list for bots, and the channels the user may view.
func (c *conn) joinServer(server chat.ID) {
	// The server's own topic is followed before the server is read: the
	// client may act on the server as soon as the HTTP answer that made
	// it a member comes (create a channel in it, say), and a frame
	// published on a topic this node does not follow yet is lost.
	// Frames that come meanwhile wait in this connection's queue behind
	// the ServerCreate being routed, so they are routed once the server
	// is known.
	known := c.isMember(server)
	if !known {
		c.follow(event.Of(server))
	}
	v, err := c.g.app.ViewServer(c.g.ctx, c.caller.User, server)
	if err != nil || v.Member == nil {
		if err != nil {
			c.g.log.Error("events: view joined server", "server", server, "err", err)
		}
		if !known {
			c.unfollow(event.Of(server))
		}
		return
	}
	topics := []string{event.Of(server)}
	if c.caller.IsBot() {
		topics = append(topics, event.Members(server))
	}
	c.mu.Lock()
	c.servers.set(server, slices.Clone(v.Member.Roles))
	var fresh []idEntry[chat.ID]
	for _, ch := range v.Channels {
		if ok := c.channels.has(ch.ID); !ok {
			fresh = append(fresh, idEntry[chat.ID]{ch.ID, server})
			topics = append(topics, event.Of(ch.ID))
		}
	}
	c.channels.insertAll(fresh)
	c.mu.Unlock()
	c.follow(topics...)
}

// leaveServer stops following a server the user left or that was deleted.
func (c *conn) leaveServer(server chat.ID) {
	topics := []string{event.Of(server), event.Members(server)}
	c.mu.Lock()
	c.servers.del(server)
	c.channels.deleteFunc(func(id, s chat.ID) bool {
		if s == server {
			topics = append(topics, event.Of(id))
			return true
		}
		return false
	})
	if c.members != nil {
		c.members.subs = slices.DeleteFunc(c.members.subs, func(s memberSub) bool { return s.server == server })
	}
	c.mu.Unlock()
	c.unfollow(topics...)
}

// addChannel follows a channel the user may now view.
func (c *conn) addChannel(id, server chat.ID) {
	c.mu.Lock()
	c.channels.set(id, server)
	c.mu.Unlock()
	c.follow(event.Of(id))
}

// forgetChannel stops following a channel.
func (c *conn) forgetChannel(id chat.ID) {
	c.mu.Lock()
	c.channels.del(id)
	c.mu.Unlock()
	c.unfollow(event.Of(id))
}

// followUser follows another user's topic.
func (c *conn) followUser(u chat.ID) {
	c.mu.Lock()
	known := c.users.has(u)
	c.users.set(u, struct{}{})
	c.mu.Unlock()
	if !known {
		c.follow(event.Of(u))
	}
}

// unfollowUserUnlessRelated stops following u when the user no longer has
// a relationship, direct message or group with them.
func (c *conn) unfollowUserUnlessRelated(u chat.ID) {
	c.mu.RLock()
	known := c.users.has(u)
	c.mu.RUnlock()
	if !known {
		return
	}
	keep, err := c.g.app.FollowsUser(c.g.ctx, c.me(), u)
	if err != nil {
		c.g.log.Error("events: check followed user", "user", u, "err", err)
		return
	}
	if keep {
		return
	}
	c.mu.Lock()
	c.users.del(u)
	c.mu.Unlock()
	c.unfollow(event.Of(u))
}

// relationshipChanged follows other while any relationship with them
// exists.
func (c *conn) relationshipChanged(other chat.ID, status chat.RelationshipStatus) {
	if other == c.me() {
		return
	}
	if status == "" || status == chat.RelationNone {
		c.unfollowUserUnlessRelated(other)
		return
	}
	c.followUser(other)
}

// logout returns a Logout packet in the connection's format.
func (c *conn) logout() []byte {
	return c.mustEncode(chat.TypeOnly{Type: chat.EvLogout})
}

// mustEncode encodes a packet built from chat types, which always
// encode; a failure is logged and yields nil (nothing is sent).
func (c *conn) mustEncode(v any) []byte {
	b, err := c.encode(v)
	if err != nil {
		c.g.log.Error("events: encode packet", "err", err)
		return nil
	}
	return b
}

// bulk wraps encoded packets in one Bulk packet.
func (c *conn) bulk(items [][]byte) []byte {
	items = slices.DeleteFunc(items, func(b []byte) bool { return b == nil })
	if c.binary {
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		_ = enc.EncodeMapLen(2)
		_ = enc.EncodeString("type")
		_ = enc.EncodeString(chat.EvBulk)
		_ = enc.EncodeString("v")
		_ = enc.EncodeArrayLen(len(items))
		for _, it := range items {
			buf.Write(it)
		}
		return buf.Bytes()
	}
	var buf bytes.Buffer
	buf.WriteString(`{"type":"Bulk","v":[`)
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(it)
	}
	buf.WriteString(`]}`)
	return buf.Bytes()
}
