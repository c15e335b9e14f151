package gateway

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/goccy/go-json"
	"github.com/vmihailenco/msgpack/v5"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/event"
)

// memberSubsMax is how many member lists (Subscribe packets) one
// connection may follow at once.
const memberSubsMax = 5

// errAlreadyAuthenticated answers an Authenticate on an authenticated
// connection.
var errAlreadyAuthenticated = &chat.Error{Type: "AlreadyAuthenticated"}

// conn is one events connection.
//
// After authentication its follow state (servers, channels, users,
// relations, member-list subscriptions) changes only in jobs of its queue
// (see writer.go), which run one at a time in order with the frames it
// delivers; the read loop only reads that state, under mu.
type conn struct {
	g      *Gateway
	ws     socket
	binary bool // msgpack: binary frames both ways
	// sections are the Ready sections asked for; nil for the default
	// ones. Dropped once Ready is built.
	sections *app.ReadySections
	ip       string
	// rq is what the URL asked of resume; res is the stream of a
	// resumable connection, nil for the others (resume.go).
	rq  resumeQuery
	res *resumeState

	pending atomic.Int32 // frames queued or being written
	closing atomic.Bool  // being closed: nothing more is written
	live    atomic.Bool  // Ready queued: frames go straight to the socket
	failed  atomic.Bool  // an Error was sent: the connection is closing
	// counted: the connection counts against its address's cap of
	// unauthenticated connections (until authenticated or closed).
	counted atomic.Bool
	// opened is when the connection was set up and seen when the client
	// last sent a frame, in Unix nanoseconds; the gateway's sweep (see
	// keepalive.go) closes connections by them, with no timer of their
	// own.
	opened int64
	seen   atomic.Int64

	// Set once by authenticate, on the read loop, before live.
	caller *app.Caller

	// The queue of jobs and whether a writer runs; see writer.go.
	qmu     sync.Mutex
	queue   []job
	running bool
	out     *[]byte // the writer's batch; only the writer touches it
	batched int32   // frames in out
	// backlog counts frames written since the client last had nothing
	// waiting for it; only the writer touches it.
	backlog int32
	// closeCode, set by a job, closes the connection after the round's
	// frames are written; only the writer touches it.
	closeCode uint16
	// wmu orders batch writes with close frames, so nothing is written
	// after a close frame.
	wmu sync.Mutex
	// setup is held while ServeHTTP sets the connection up; frame
	// handlers wait for it (see connOf).
	setup sync.Mutex
	ended atomic.Bool // onClose has run
	// handshaking: the connection waits at the gate or is in its
	// handshake (gate.go); the deadlines wait for it.
	handshaking atomic.Bool

	// follower, topics (sorted) and gone belong to the hub and are
	// guarded by hub.mu.
	follower *follower
	topics   []string
	gone     bool

	// An idle connection holds only what routing needs: what is rarely
	// used (member-list subscriptions, the UserUpdate ring) is allocated
	// on first use.
	mu       sync.RWMutex
	early    []pendingFrame   // frames that arrived before Ready was queued
	servers  idMap[[]chat.ID] // server → roles held
	channels idMap[chat.ID]   // visible channel → its server ("" if private)
	users    idMap[struct{}]  // other users followed
	members  *memberLists     // Subscribe packets in force; nil before the first
	recent   *recentEvents    // the last UserUpdates delivered; nil before the first
}

// memberLists are a connection's member-list subscriptions.
type memberLists struct {
	subs  []memberSub
	timer *time.Timer // fires at the next expiry
}

// recentEvents are hashes of the event ids of the last UserUpdates a
// connection received, in a ring. Hashes, not the ids: the ids are
// slices of frames that are long gone.
type recentEvents struct {
	ids  [8]uint64
	next uint8
}

// pendingFrame is a frame from the bus waiting for Ready.
type pendingFrame struct {
	topic string
	in    *incoming
}

// memberSub is one Subscribe{server_id}, live until expires.
type memberSub struct {
	server  chat.ID
	expires time.Time
}

// me is the connection's user id; valid once authenticated.
func (c *conn) me() chat.ID { return c.caller.User.ID }

// authenticated reports whether Ready has been built for c.
func (c *conn) authenticated() bool { return c.live.Load() }

// touch notes a sign of life: any frame from the client counts.
func (c *conn) touch() {
	c.seen.Store(time.Now().UnixNano())
}

// onOpen authenticates with the URL token, when one was given.
func (c *conn) onOpen(token string) {
	if token != "" {
		c.authenticate(token)
	}
}

// onControl notes a ping or pong frame.
func (c *conn) onControl() { c.touch() }

// onPing answers a ping frame with a pong echoing its payload (RFC 6455
// §5.5.3), queued like every other frame of the connection.
func (c *conn) onPing(payload []byte) {
	c.touch()
	p := append([]byte{}, payload...)
	c.enqueue(func() { c.writeFrame(opPong, p) })
}

// authDone stops counting c against its address's cap of
// unauthenticated connections; it is idempotent.
func (c *conn) authDone() {
	if c.counted.CompareAndSwap(true, false) {
		c.g.release(c.ip)
	}
}

// onClose forgets the connection: subscriptions, presence, registration.
func (c *conn) onClose() {
	if c.ended.Swap(true) {
		return
	}
	c.closing.Store(true)
	c.authDone()
	if c.holdForResume() {
		return
	}
	if r := c.res; r != nil {
		r.over.Store(true)
	}
	if err := c.g.hub.removeAll(c); err != nil {
		c.g.log.Error("events: leave topics", "err", err)
	}
	c.mu.Lock()
	if c.members != nil && c.members.timer != nil {
		c.members.timer.Stop()
	}
	c.early = nil
	c.mu.Unlock()
	if c.authenticated() {
		c.g.userDisconnected(c.me())
	}
	c.g.unregister(c)
}

// closeWith closes the connection with a close frame. It waits for a
// batch write under way; on the writer, flush first.
func (c *conn) closeWith(code uint16, reason string) {
	c.closing.Store(true)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.ws.Close(code, reason)
}

// abort cuts the connection without a close frame.
func (c *conn) abort() {
	c.closing.Store(true)
	c.ws.Abort()
}

// enqueue runs f on the connection's queue, counted against the send
// queue bound. A connection over the bound is cut.
func (c *conn) enqueue(f func()) {
	if !c.reserve() {
		return
	}
	c.push(job{f: f})
}

// reserve counts one more pending frame, cutting the connection when the
// client has fallen SendQueue frames behind.
func (c *conn) reserve() bool {
	if c.stopped() {
		return false
	}
	if c.pending.Add(1) > c.g.sendQueue {
		c.pending.Add(-1)
		c.dropSlow()
		return false
	}
	return true
}

// dropSlow cuts a connection whose client has fallen too far behind.
func (c *conn) dropSlow() {
	if c.closing.CompareAndSwap(false, true) {
		c.g.stats.slow.Add(1)
		c.g.log.Info("events: dropping slow client", "ip", c.ip)
		c.ws.Abort()
	}
}

// send queues a packet the gateway builds for this connection alone.
func (c *conn) send(v any) {
	b, err := c.encode(v)
	if err != nil {
		c.g.log.Error("events: encode packet", "err", err)
		return
	}
	c.enqueue(func() { c.write(b) })
}

// encode renders v in the connection's format.
func (c *conn) encode(v any) ([]byte, error) {
	if c.binary {
		return event.Msgpack(v)
	}
	return json.Marshal(v)
}

// fail sends an Error packet and closes the connection; it is for
// failures the client cannot fix by retrying.
func (c *conn) fail(e *chat.Error) {
	c.failed.Store(true)
	b, err := c.encode(chat.ErrorEvent{Type: chat.EvError, Data: e})
	if err != nil {
		c.closeWith(closeInternal, "")
		return
	}
	c.enqueue(func() {
		c.write(b)
		c.closeAfter(closeNormal)
	})
}

// clientPacket is a packet from the client, in either format.
type clientPacket struct {
	Type     string `json:"type" msgpack:"type"`
	Token    string `json:"token" msgpack:"token"`
	Channel  string `json:"channel" msgpack:"channel"`
	ServerID string `json:"server_id" msgpack:"server_id"`
}

// pingData holds a Ping's data in its original encoding.
type pingData struct {
	JSON    json.RawMessage    `json:"data"`
	Msgpack msgpack.RawMessage `msgpack:"data"`
}

// onMessage handles a client packet. Frames of the other format's kind,
// undecodable packets and unknown types are ignored.
func (c *conn) onMessage(binary bool, b []byte) {
	c.touch()
	if binary != c.binary || c.closing.Load() || c.failed.Load() {
		return
	}
	var p clientPacket
	var err error
	if c.binary {
		err = msgpack.Unmarshal(b, &p)
	} else {
		err = json.Unmarshal(b, &p)
	}
	if err != nil {
		return
	}
	if p.Type == "Authenticate" {
		if c.authenticated() {
			c.send(chat.ErrorEvent{Type: chat.EvError, Data: errAlreadyAuthenticated})
			return
		}
		c.authenticate(p.Token)
		return
	}
	if !c.authenticated() {
		return // nothing but Authenticate counts before Ready
	}
	switch p.Type {
	case "Ping":
		c.pong(b)
	case "BeginTyping", "EndTyping":
		id := chat.ID(p.Channel)
		c.mu.RLock()
		visible := c.channels.has(id)
		c.mu.RUnlock()
		if visible {
			c.g.app.Typing(c.g.ctx, c.me(), id, p.Type == "BeginTyping")
		}
	case "Subscribe":
		if c.caller.IsBot() {
			return // bots follow every member list already
		}
		id := chat.ID(p.ServerID)
		c.mu.RLock()
		member := c.servers.has(id)
		c.mu.RUnlock()
		if member {
			c.enqueue(func() { c.subscribeMembers(id) })
		}
	}
}

// pong answers a Ping with its data, whatever value it holds.
func (c *conn) pong(b []byte) {
	var d pingData
	var out []byte
	var err error
	if c.binary {
		if err = msgpack.Unmarshal(b, &d); err != nil {
			return
		}
		data := d.Msgpack
		if len(data) == 0 {
			data = msgpack.RawMessage{msgpackNil}
		}
		out, err = event.Msgpack(chat.PongEvent{Type: chat.EvPong, Data: data})
	} else {
		if err = json.Unmarshal(b, &d); err != nil {
			return
		}
		data := d.JSON
		if len(data) == 0 {
			data = json.RawMessage("null")
		}
		out, err = json.Marshal(chat.PongEvent{Type: chat.EvPong, Data: data})
	}
	if err != nil {
		return
	}
	c.enqueue(func() { c.write(out) })
}

// authenticate runs the handshake for token: on success Authenticated
// and Ready are queued, the connection follows its topics and goes live,
// and the user is counted online. It runs on the read loop.
func (c *conn) authenticate(token string) {
	g := c.g
	ctx := g.ctx
	if !g.guard.allowed(c.ip) {
		c.closeWith(closeTryLater, "too many failed authentication attempts")
		return
	}
	c.handshaking.Store(true)
	g.gate.enter(false)
	defer c.endHandshake()
	sections := app.DefaultReadySections()
	if c.sections != nil {
		sections = *c.sections
	}
	caller, ready, scope, done := c.authenticateHinted(token, sections)
	if done {
		return
	}
	if caller == nil {
		if caller, ready, scope, done = c.authenticateMarked(token, sections); done {
			return
		}
	}
	if caller == nil {
		var err error
		caller, err = g.app.AuthenticateEvents(ctx, token)
		switch {
		case errors.Is(err, app.ErrOnboardingNotFinished):
			c.fail(app.ErrOnboardingNotFinished)
			return
		case errors.Is(err, chat.ErrInvalidSession):
			g.guard.failed(ctx, c.ip)
			c.fail(chat.ErrInvalidSession)
			return
		case err != nil:
			// Transient: close without an Error packet, which clients take
			// as permanent, so they reconnect.
			g.log.Error("events: authenticate", "err", err)
			c.closeWith(closeInternal, "")
			return
		}
		// Follow the user's own topics before Ready is built: what changes
		// meanwhile (a relationship, a new server or DM) waits in early and
		// follows Ready, where otherwise it would be in neither.
		if _, ok := c.followOwn(caller.User.ID); !ok {
			return
		}
		if c.rq.id != "" {
			// Uncounted before any frame is written (see below).
			c.authDone()
			if c.resumeFrom(caller, c.rq) {
				g.app.UserConnected(ctx, caller.User)
				return
			}
		}
	}
	me := caller.User.ID
	if ready == nil && caller.Session != nil && g.marker == nil {
		g.hints.remember(token, me)
	}
	if r := c.res; r != nil {
		r.id = newResumeID()
		format := "json"
		if c.binary {
			format = "msgpack"
		}
		if err := g.streams.Open(ctx, r.id, string(me), format, g.node, resumeLiveTTL); err != nil {
			g.log.Warn("events: open stream", "err", err) // it will not resume
		}
	}
	if ready == nil {
		var err error
		ready, scope, err = g.app.Ready(ctx, caller, sections)
		if err != nil {
			g.log.Error("events: build ready", "user", caller.User.ID, "err", err)
			c.closeWith(closeInternal, "")
			return
		}
	}
	authBytes, err := c.encode(chat.TypeOnly{Type: chat.EvAuthenticated})
	if err != nil {
		c.closeWith(closeInternal, "")
		return
	}
	readyBytes, err := c.encode(ready)
	if err != nil {
		g.log.Error("events: encode ready", "err", err)
		c.closeWith(closeInternal, "")
		return
	}
	r := c.res
	if r != nil {
		readyBytes = resumableReady(readyBytes, c.binary, r.id)
	}

	// Open slowmode windows follow Ready (reference 0.12.0).
	var slowmodesBytes []byte
	if ev, err := g.app.UserSlowmodes(ctx, me); err != nil {
		g.log.Warn("events: slowmodes", "user", me, "err", err)
	} else if ev != nil {
		if slowmodesBytes, err = c.encode(ev); err != nil {
			c.closeWith(closeInternal, "")
			return
		}
	}

	// The connection keeps of its session only what routing reads (its
	// id, to match session events), not the token or push subscription.
	if se := caller.Session; se != nil {
		kept := *caller
		kept.Session = &chat.Session{ID: se.ID, UserID: se.UserID}
		caller = &kept
	}
	c.caller = caller
	c.mu.Lock()
	c.servers = newIDMap(scope.Servers)
	c.channels = newIDMap(scope.Channels)
	c.users = newIDSet(scope.Users)
	c.sections = nil
	c.mu.Unlock()

	topics := make([]string, 0, len(scope.Users)+2*len(scope.Servers)+len(scope.Channels))
	for _, u := range scope.Users {
		topics = append(topics, event.Of(u))
	}
	for s := range scope.Servers {
		topics = append(topics, event.Of(s))
		if caller.IsBot() {
			topics = append(topics, event.Members(s))
		}
	}
	for ch := range scope.Channels {
		topics = append(topics, event.Of(ch))
	}
	if r != nil {
		topics = append(topics, event.Resume(r.id))
	}
	// Follow before Ready is queued: frames published from now on wait in
	// early and are written after Ready, so none is lost or precedes it.
	if err := g.hub.add(c, topics...); err != nil {
		g.log.Error("events: follow topics", "err", err)
		c.closeWith(closeInternal, "")
		return
	}
	if g.beforeLive != nil {
		g.beforeLive(func() int {
			c.mu.Lock()
			defer c.mu.Unlock()
			return len(c.early)
		})
	}
	if !c.reserve() {
		return
	}
	// The connection stops counting against its address's cap before
	// Authenticated is written: a client that has read Ready may open
	// another connection at once, and must find its place free.
	c.authDone()
	// Authenticated, Ready and what came meanwhile are written here, in
	// one round on this goroutine, rather than handed to a writer.
	own := c.pushHeld(job{f: func() {
		c.write(authBytes)
		c.write(readyBytes)
		if r != nil {
			r.numbered = true
		}
		if slowmodesBytes != nil {
			c.write(slowmodesBytes)
		}
	}})
	c.mu.Lock()
	for _, p := range c.early {
		c.push(job{topic: p.topic, in: p.in}) // reserved by deliver
	}
	c.early = nil
	c.live.Store(true)
	c.mu.Unlock()
	if own {
		c.roundHere()
	}
	g.app.UserConnected(ctx, caller.User)
}

// endHandshake leaves the gate and starts the deadlines afresh: the
// time spent waiting for the server is not the client's silence.
func (c *conn) endHandshake() {
	c.g.gate.leave()
	c.touch()
	c.handshaking.Store(false)
}

// authenticateHinted runs the first steps of authenticate for a token
// whose user a connection made before had (see tokenHints): it follows
// that user's own topics, then authenticates and builds Ready with one
// store read. It returns nil and done false when the token has no hint,
// the connection asks to resume (which reads no Ready facts) or the hint
// is wrong: the connection then follows nothing, and authenticate goes
// the ordinary way. Done is true when the connection was closed.
func (c *conn) authenticateHinted(token string, sections app.ReadySections) (caller *app.Caller, ready *chat.ReadyEvent, scope *app.ReadyScope, done bool) {
	g := c.g
	if c.rq.id != "" || g.marker != nil {
		// A bus with marks reads first without a hint.
		return nil, nil, nil, false
	}
	hint, ok := g.hints.user(token)
	if !ok {
		return nil, nil, nil, false
	}
	own, ok := c.followOwn(hint)
	if !ok {
		return nil, nil, nil, true
	}
	caller, ready, scope, err := g.app.AuthenticateReady(g.ctx, token, hint, sections)
	switch {
	case err == nil:
		return caller, ready, scope, false
	case errors.Is(err, chat.ErrInvalidSession), errors.Is(err, app.ErrOnboardingNotFinished):
		// Not (or no longer) a session of hint's user: start again
		// following nothing.
		g.hints.forget(token)
		c.res = nil
		if err := g.hub.remove(c, own...); err != nil {
			g.log.Error("events: leave topics", "err", err)
			c.closeWith(closeInternal, "")
			return nil, nil, nil, true
		}
		c.mu.Lock()
		c.pending.Add(-int32(len(c.early))) // reserved by deliver
		c.early = nil
		c.mu.Unlock()
		return nil, nil, nil, false
	default:
		// Transient, as in authenticate.
		g.log.Error("events: authenticate", "err", err)
		c.closeWith(closeInternal, "")
		return nil, nil, nil, true
	}
}

// authenticateMarked is authenticateHinted for a token without a hint
// on a bus that marks what is published on it (pubsub.Marker: one
// process): it reads the session and Ready's facts first, with one store
// read, and then follows the user's own topics. A frame published on
// them between the two would reach neither Ready nor the connection:
// when their marks moved since before the read, Ready is read again,
// now that they are followed. It returns nil and done false when the
// bus has no marks, the connection asks to resume or the token is not
// a user's session (authenticate then goes the ordinary way, which also
// tries bots and counts failures).
func (c *conn) authenticateMarked(token string, sections app.ReadySections) (caller *app.Caller, ready *chat.ReadyEvent, scope *app.ReadyScope, done bool) {
	g := c.g
	if g.marker == nil || c.rq.id != "" {
		return nil, nil, nil, false
	}
	marks := g.marker.Marks()
	caller, ready, scope, err := g.app.AuthenticateReady(g.ctx, token, "", sections)
	switch {
	case errors.Is(err, chat.ErrInvalidSession), errors.Is(err, app.ErrOnboardingNotFinished):
		return nil, nil, nil, false
	case err != nil:
		// Transient, as in authenticate.
		g.log.Error("events: authenticate", "err", err)
		c.closeWith(closeInternal, "")
		return nil, nil, nil, true
	}
	me := caller.User.ID
	own, ok := c.followOwn(me)
	if !ok {
		return nil, nil, nil, true
	}
	if g.marker.Changed(&marks, own...) {
		if ready, scope, err = g.app.Ready(g.ctx, caller, sections); err != nil {
			g.log.Error("events: build ready", "user", me, "err", err)
			c.closeWith(closeInternal, "")
			return nil, nil, nil, true
		}
	}
	return caller, ready, scope, false
}

// followOwn makes the connection follow user's own topics, which it
// returns, first starting its resumable stream's state when the client
// asked for one. When the follow fails the connection is closed and ok
// is false.
func (c *conn) followOwn(user chat.ID) (own []string, ok bool) {
	if c.rq.want {
		c.res = &resumeState{}
	}
	own = []string{event.Private(user), event.Of(user)}
	if err := c.g.hub.add(c, own...); err != nil {
		c.g.log.Error("events: follow topics", "err", err)
		c.closeWith(closeInternal, "")
		return nil, false
	}
	return own, true
}

// deliver queues a frame from the bus for this connection.
func (c *conn) deliver(topic string, in *incoming) {
	if !c.reserve() {
		return
	}
	if !c.live.Load() {
		c.mu.Lock()
		if !c.live.Load() {
			if !c.stopped() {
				c.early = append(c.early, pendingFrame{topic, in})
			}
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
	}
	c.push(job{topic: topic, in: in})
}

// subscribeMembers follows a server's member list for Options.MemberListTTL,
// keeping at most memberSubsMax such subscriptions (the one closest to
// expiry gives way). Run on the queue.
func (c *conn) subscribeMembers(server chat.ID) {
	now := time.Now()
	var evict chat.ID
	c.mu.Lock()
	if member := c.servers.has(server); !member {
		c.mu.Unlock()
		return
	}
	if c.members == nil {
		c.members = &memberLists{}
	}
	m := c.members
	found := false
	for i := range m.subs {
		if m.subs[i].server == server {
			m.subs[i].expires = now.Add(c.g.memberTTL)
			found = true
		}
	}
	if !found {
		if len(m.subs) >= memberSubsMax {
			oldest := 0
			for i, s := range m.subs {
				if s.expires.Before(m.subs[oldest].expires) {
					oldest = i
				}
			}
			evict = m.subs[oldest].server
			m.subs = append(m.subs[:oldest], m.subs[oldest+1:]...)
		}
		m.subs = append(m.subs, memberSub{server: server, expires: now.Add(c.g.memberTTL)})
	}
	c.armSubTimer(now)
	c.mu.Unlock()
	if evict != "" {
		c.unfollow(event.Members(evict))
	}
	if !found {
		c.follow(event.Members(server))
	}
}

// armSubTimer sets the timer for the next member-list expiry. c.mu held.
func (c *conn) armSubTimer(now time.Time) {
	m := c.members
	if m == nil {
		return
	}
	if len(m.subs) == 0 {
		if m.timer != nil {
			m.timer.Stop()
		}
		return
	}
	next := m.subs[0].expires
	for _, s := range m.subs[1:] {
		if s.expires.Before(next) {
			next = s.expires
		}
	}
	if m.timer == nil {
		m.timer = time.AfterFunc(next.Sub(now), func() { c.enqueue(c.expireMembers) })
		return
	}
	m.timer.Reset(next.Sub(now))
}

// expireMembers drops the member-list subscriptions past their time. Run
// on the queue.
func (c *conn) expireMembers() {
	now := time.Now()
	var expired []string
	c.mu.Lock()
	if m := c.members; m != nil {
		kept := m.subs[:0]
		for _, s := range m.subs {
			if now.Before(s.expires) {
				kept = append(kept, s)
			} else {
				expired = append(expired, event.Members(s.server))
			}
		}
		m.subs = kept
		c.armSubTimer(now)
	}
	c.mu.Unlock()
	c.unfollow(expired...)
}

// follow and unfollow change the connection's topics, logging failures.
func (c *conn) follow(topics ...string) {
	if len(topics) == 0 {
		return
	}
	if err := c.g.hub.add(c, topics...); err != nil {
		c.g.log.Error("events: follow topics", "err", err)
	}
}

func (c *conn) unfollow(topics ...string) {
	if len(topics) == 0 {
		return
	}
	if err := c.g.hub.remove(c, topics...); err != nil {
		c.g.log.Error("events: unfollow topics", "err", err)
	}
}

// readySections reads the ready query parameters: none means the default
// sections, otherwise exactly the named ones. Values may also be given
// comma-separated; user_settings[key] asks for one settings key and
// user_settings alone for all of them.
func readySections(values []string) app.ReadySections {
	if len(values) == 0 {
		return app.DefaultReadySections()
	}
	var s app.ReadySections
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			switch name = strings.TrimSpace(name); name {
			case "users":
				s.Users = true
			case "servers":
				s.Servers = true
			case "channels":
				s.Channels = true
			case "members":
				s.Members = true
			case "emojis":
				s.Emojis = true
			case "voice_states":
				s.VoiceStates = true
			case "policy_changes":
				s.PolicyChanges = true
			case "channel_unreads":
				s.ChannelUnreads = true
			case "user_settings":
				if s.UserSettings == nil {
					s.UserSettings = []string{}
				}
			default:
				if key, ok := strings.CutPrefix(name, "user_settings["); ok && strings.HasSuffix(key, "]") && len(key) > 1 {
					s.UserSettings = append(s.UserSettings, strings.TrimSuffix(key, "]"))
				}
			}
		}
	}
	return s
}
