// Package gateway serves the events WebSocket (seed parts 3 and 6): it
// authenticates a connection, sends Authenticated and Ready, then relays
// the events of everything the user may see, and answers client packets
// (Ping, typing, member-list Subscribe).
//
// A node holds one bus subscription whose topic set is the union of what
// its connections follow; a hub maps each topic to its local followers.
// Frames arrive encoded once per format (package event) and the same
// bytes are written to every follower that may see them. Each connection
// processes its frames in order on a goroutine that exists only while it
// has work, writing all the frames that waited with one system call,
// behind a bounded count of pending frames: a client that stops reading
// is disconnected instead of growing the server's memory.
//
// Permission is checked per delivery: a connection keeps the servers it
// belongs to, the roles it holds and the channels it may view, drops
// events about anything else, and asks the app to recompute visibility on
// the events that can change it, turning the differences into
// ChannelCreate and ChannelDelete packets inside a Bulk.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/pubsub"
	"ermine/internal/ratelimit"
	"ermine/internal/resume"
)

// Defaults of Options.
const (
	DefaultKeepalive = 60 * time.Second
	DefaultSendQueue = 256
	DefaultMaxPacket = 16 << 10
	// DefaultMemberListTTL is how long a Subscribe packet follows a
	// server's member list, as in the reference.
	DefaultMemberListTTL = 15 * time.Minute
	// DefaultAuthTimeout is how long a connection may stay open without
	// authenticating.
	DefaultAuthTimeout = 10 * time.Second
	// DefaultUnauthenticatedPerIP is how many connections one address may
	// hold open before they authenticate.
	DefaultUnauthenticatedPerIP = 50
	// DefaultSendBuffer caps the kernel's send buffer of each events
	// socket (SO_SNDBUF; Linux doubles it for its bookkeeping).
	DefaultSendBuffer = 128 << 10
)

// Failed authentication attempts allowed per client address and window.
const (
	authAttempts = 20
	authWindow   = 10 * time.Second
)

// Options configure a Gateway.
type Options struct {
	App *app.App
	Bus pubsub.Bus
	// Log receives connection errors; discarded when nil.
	Log *slog.Logger
	// Keepalive is how long a connection may stay silent (no packet, no
	// ping frame) before it is dropped; DefaultKeepalive when zero.
	Keepalive time.Duration
	// SendQueue is how many frames may wait for a connection before it
	// counts as too slow and is dropped; DefaultSendQueue when zero.
	SendQueue int
	// SendBuffer caps each events socket's kernel send buffer, in bytes
	// (SO_SNDBUF), so that a client that stops reading is cut by the
	// SendQueue bound before it pins megabytes of kernel memory (Linux
	// grows an unset buffer to net.ipv4.tcp_wmem's maximum, 4 MB);
	// DefaultSendBuffer when zero, the kernel's own sizing when negative.
	SendBuffer int
	// MaxPacket is the largest client frame accepted, in bytes; larger
	// ones end the connection (close 1009). DefaultMaxPacket when zero.
	MaxPacket int64
	// MemberListTTL is how long a Subscribe packet follows a server's
	// member list; DefaultMemberListTTL when zero.
	MemberListTTL time.Duration
	// AuthTimeout is how long a connection may stay open before it
	// authenticates (token in the URL or an Authenticate packet); it is
	// then closed (1008). DefaultAuthTimeout when zero.
	AuthTimeout time.Duration
	// UnauthenticatedPerIP caps the connections one client address holds
	// open before they authenticate; more are refused with 429.
	// DefaultUnauthenticatedPerIP when zero.
	UnauthenticatedPerIP int
	// Streams keeps the streams of resumable connections (resume.go),
	// where every node reads them; in this process when nil.
	Streams resume.Streams
	// ResumeHold is how long a closed resumable connection keeps
	// recording its stream; DefaultResumeHold when zero.
	ResumeHold time.Duration
	// Handshakes is how many handshakes work at once, the others
	// waiting their turn (gate.go); one per CPU (GOMAXPROCS) when zero.
	Handshakes int
	// Replaces is the node id (see Node) of a gateway known to be gone
	// that this one replaces, the same server restarted: its mark of
	// life is removed at once, so resumes of the streams it recorded get
	// a full Ready without waiting for the mark to run out (resume.go).
	Replaces string
}

// Gateway serves events connections. Create it with New, mount it as an
// http.Handler and call Shutdown when the server stops.
type Gateway struct {
	app *app.App
	bus pubsub.Bus
	// marker is bus as a pubsub.Marker, when every frame is published
	// in this process (conn.authenticateMarked).
	marker  pubsub.Marker
	streams resume.Streams
	// resumeHold is how long held connections record (resume.go).
	resumeHold time.Duration
	log        *slog.Logger
	keepalive  time.Duration
	memberTTL  time.Duration
	sendQueue  int32
	sendBuf    int // SO_SNDBUF of events sockets; < 0 leaves the kernel's
	poller     *poller
	hub        *hub
	guard      *authGuard
	gate       *gate // handshakes at work (gate.go)
	hints      tokenHints

	authTimeout time.Duration
	perIP       int
	unauthMu    sync.Mutex
	unauth      map[string]int // client address → connections not yet authenticated

	// ctx is the context of work done for connections; it outlives
	// requests since connections do.
	ctx context.Context
	// node names this gateway, random at each start, in the streams it
	// records (resume.go); beatStop ends its beats, beatDone reports
	// they ended.
	node               string
	beatStop, beatDone chan struct{}

	mu    sync.Mutex
	conns map[*conn]struct{}
	held  map[*conn]struct{} // closed, recording their streams
	// handovers are the takeovers of this node's new connections, by
	// resume topic (resume.go).
	handovers map[string]*handover
	closed    bool
	idle      chan struct{} // closed when closed and conns is empty

	scratch []*conn // dispatch's follower buffer; dispatch is serialised

	// beforeLive, set only by tests, runs during a handshake once the
	// connection follows its topics and before Ready is queued; early
	// reports how many frames wait for Ready.
	beforeLive func(early func() int)

	// sweepStop ends the deadline sweep (keepalive.go), sweepDone
	// reports it ended.
	sweepStop, sweepDone chan struct{}

	// writers run the connections' rounds; buffers holds batch buffers
	// for them and for connections writing on their own goroutine.
	writers writers
	buffers sync.Pool

	stats struct {
		slow           atomic.Uint64
		writes, frames atomic.Uint64
	}
}

// New returns a gateway relaying the events published on opts.Bus.
func New(opts Options) (*Gateway, error) {
	if opts.App == nil || opts.Bus == nil {
		return nil, errors.New("gateway: App and Bus are required")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Keepalive <= 0 {
		opts.Keepalive = DefaultKeepalive
	}
	if opts.SendQueue <= 0 {
		opts.SendQueue = DefaultSendQueue
	}
	if opts.SendBuffer == 0 {
		opts.SendBuffer = DefaultSendBuffer
	}
	if opts.MaxPacket <= 0 {
		opts.MaxPacket = DefaultMaxPacket
	}
	if opts.MemberListTTL <= 0 {
		opts.MemberListTTL = DefaultMemberListTTL
	}
	if opts.AuthTimeout <= 0 {
		opts.AuthTimeout = DefaultAuthTimeout
	}
	if opts.UnauthenticatedPerIP <= 0 {
		opts.UnauthenticatedPerIP = DefaultUnauthenticatedPerIP
	}
	if opts.Streams == nil {
		opts.Streams = resume.NewMemory(nil)
	}
	if opts.ResumeHold <= 0 {
		opts.ResumeHold = DefaultResumeHold
	}
	if opts.Handshakes <= 0 {
		opts.Handshakes = defaultHandshakes()
	}
	g := &Gateway{
		app:        opts.App,
		bus:        opts.Bus,
		streams:    opts.Streams,
		resumeHold: opts.ResumeHold,
		held:       make(map[*conn]struct{}),
		handovers:  make(map[string]*handover),
		log:        opts.Log,
		keepalive:  opts.Keepalive,
		memberTTL:  opts.MemberListTTL,
		sendQueue:  int32(min(opts.SendQueue, 1<<30)),
		sendBuf:    opts.SendBuffer,
		hub:        newHub(),
		guard:      newAuthGuard(),
		gate:       newGate(opts.Handshakes),

		authTimeout: opts.AuthTimeout,
		perIP:       opts.UnauthenticatedPerIP,
		unauth:      make(map[string]int),
		ctx:         context.Background(),
		node:        newResumeID(),
		conns:       make(map[*conn]struct{}),
		idle:        make(chan struct{}),
	}
	g.buffers.New = func() any { b := make([]byte, 0, 4<<10); return &b }
	p, err := newPoller(opts.MaxPacket, opts.Log)
	if err != nil {
		return nil, err
	}
	g.poller = p
	g.writers.start(g, runtime.GOMAXPROCS(0))
	g.marker, _ = opts.Bus.(pubsub.Marker)
	sub, err := opts.Bus.Subscribe(g.dispatch)
	if err != nil {
		g.writers.stop()
		p.stop()
		return nil, fmt.Errorf("gateway: subscribe to bus: %w", err)
	}
	g.hub.sub = sub
	g.sweepStop, g.sweepDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(g.sweepDone)
		g.sweepLoop(g.sweepStop)
	}()
	if opts.Replaces != "" {
		if err := g.streams.Beat(g.ctx, opts.Replaces, 0); err != nil {
			g.log.Warn("events: end the replaced node's beat", "err", err)
		}
	}
	g.beat()
	g.beatStop, g.beatDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(g.beatDone)
		g.beatLoop(g.beatStop)
	}()
	return g, nil
}

// Node returns the gateway's node id, random at each start, which the
// streams it records name (see Options.Replaces).
func (g *Gateway) Node() string { return g.node }

// Stats are counters of a gateway's life so far.
type Stats struct {
	// Connections is the number of open connections.
	Connections int
	// Held is the number of closed resumable connections still
	// recording their streams.
	Held int
	// SlowDisconnects counts connections dropped for not reading.
	SlowDisconnects uint64
	// Writes counts the batches written to connections, each one system
	// call, and Frames the frames they held.
	Writes, Frames uint64
}

// Stats returns the gateway's counters.
func (g *Gateway) Stats() Stats {
	g.mu.Lock()
	n, held := len(g.conns), len(g.held)
	g.mu.Unlock()
	return Stats{Connections: n, Held: held, SlowDisconnects: g.stats.slow.Load(),
		Writes: g.stats.writes.Load(), Frames: g.stats.frames.Load()}
}

// ServeHTTP upgrades a request to an events connection, which lives on
// after ServeHTTP returns until it closes or Shutdown closes it (the
// http.Server no longer tracks it). It answers whatever path it is
// mounted at. Query parameters:
// version (ignored), format (json or msgpack), token, ready (repeatable),
// and resume and seq (resume.go).
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !isUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "this is the events WebSocket: connect with a WebSocket client", http.StatusUpgradeRequired)
		return
	}
	if g.shuttingDown() {
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	_ = growStack(len(r.URL.RawQuery))
	ip := ratelimit.Host(r.RemoteAddr)
	if !g.admit(ip) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "10")
		w.WriteHeader(http.StatusTooManyRequests)
		body, _ := json.Marshal(chat.ErrTooManyRequests(10000))
		_, _ = w.Write(body)
		return
	}
	q := r.URL.Query()
	c := g.newConn(ip, q)
	token := q.Get("token")
	s, err := g.poller.upgrade(w, r, c, token != "")
	if err != nil {
		c.authDone()
		g.log.Debug("events: upgrade failed", "err", err)
		return
	}
	g.open(c, s, token)
}

// newConn is a connection from ip (counted against its cap of
// unauthenticated connections) with its URL's query q.
func (g *Gateway) newConn(ip string, q url.Values) *conn {
	c := &conn{
		g:      g,
		binary: q.Get("format") == "msgpack",
		ip:     ip,
		rq:     parseResume(q.Get("resume"), q.Get("seq")),
	}
	if v := q["ready"]; len(v) > 0 {
		s := readySections(v)
		c.sections = &s
	}
	c.counted.Store(true)
	return c
}

// open starts connection c on its upgraded socket s: the poller reads
// it, the gateway counts it, and it authenticates with token, when its
// URL had one, before any packet of the client's is handled.
func (g *Gateway) open(c *conn, s *nbioSocket, token string) {
	if g.sendBuf > 0 {
		s.setSendBuffer(g.sendBuf)
	}
	c.ws = s
	// Frame handlers wait for the setup: the URL token's authentication
	// comes before any packet of the client's.
	c.setup.Lock()
	defer c.setup.Unlock()
	if err := g.poller.add(s); err != nil {
		// The socket is closed and its close handler, waiting for
		// the setup, cleans up.
		g.log.Warn("events: poller refused a connection", "err", err)
		return
	}
	c.opened = time.Now().UnixNano()
	c.seen.Store(c.opened)
	if !g.register(c) {
		c.closeWith(closeGoingAway, "server shutting down")
		return
	}
	c.onOpen(token)
}

// shuttingDown reports whether Shutdown has begun: no connection is
// taken any more.
func (g *Gateway) shuttingDown() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// growStack grows the calling goroutine's stack to the size a handshake
// needs, while the stack is shallow. A request's goroutine starts with a
// small stack, and a handshake (the upgrade's SHA-1, the SQLite read of
// Ready's facts) used to grow it twice, deep in calls: each growth copies
// the stack and adjusts every frame on it, about a twentieth of a
// connect's CPU. Grown here, it is copied once with a few frames on it.
//
// (n is anything not known when compiling, and the result is made of
// the frame, so that the frame is kept.)
//
//go:noinline
func growStack(n int) byte {
	var frame [handshakeStack]byte
	frame[n%len(frame)] = byte(n)
	return frame[(7*n+1)%len(frame)]
}

// handshakeStack is the frame growStack takes: with what is below it,
// the stack grows to 32 KB, which a handshake's deepest calls fit in.
const handshakeStack = 20 << 10

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// admit counts a new unauthenticated connection from ip, or reports
// false when ip already holds the most allowed.
func (g *Gateway) admit(ip string) bool {
	g.unauthMu.Lock()
	defer g.unauthMu.Unlock()
	if g.unauth[ip] >= g.perIP {
		return false
	}
	g.unauth[ip]++
	return true
}

// release uncounts an unauthenticated connection from ip.
func (g *Gateway) release(ip string) {
	g.unauthMu.Lock()
	defer g.unauthMu.Unlock()
	if n := g.unauth[ip]; n <= 1 {
		delete(g.unauth, ip)
	} else {
		g.unauth[ip] = n - 1
	}
}

// register adds c to the open connections, unless shutting down.
func (g *Gateway) register(c *conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.conns[c] = struct{}{}
	return true
}

// unregister removes c from the open connections.
func (g *Gateway) unregister(c *conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.conns, c)
	if g.closed && len(g.conns) == 0 {
		select {
		case <-g.idle:
		default:
			close(g.idle)
		}
	}
}

// Shutdown stops accepting connections and closes the open ones with a
// close frame (1001, going away) so clients reconnect, then waits for them
// to finish until ctx is done, when the rest are cut. It then leaves the
// bus. It returns ctx's error when connections had to be cut.
func (g *Gateway) Shutdown(ctx context.Context) error {
	g.mu.Lock()
	first := !g.closed
	g.closed = true
	conns := make([]*conn, 0, len(g.conns))
	for c := range g.conns {
		conns = append(conns, c)
	}
	if len(g.conns) == 0 && first {
		close(g.idle)
	}
	g.mu.Unlock()
	// Nothing records once the node is gone: held streams end now, and
	// their clients get a full Ready wherever they reconnect.
	g.expireHeld(time.Now(), true)
	for _, c := range conns {
		go c.closeWith(closeGoingAway, "server shutting down")
	}
	var err error
	select {
	case <-g.idle:
	case <-ctx.Done():
		err = ctx.Err()
		for _, c := range conns {
			c.abort()
		}
		<-g.idle
	}
	if first {
		close(g.sweepStop)
		close(g.beatStop)
	}
	<-g.sweepDone
	<-g.beatDone
	// Streams this node recorded are known at once to have no one
	// recording them.
	if err := g.streams.Beat(g.ctx, g.node, 0); err != nil {
		g.log.Warn("events: end node beat", "err", err)
	}
	g.writers.stop()
	g.poller.stop()
	if cerr := g.hub.sub.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("gateway: leave bus: %w", cerr)
	}
	return err
}

// dispatch hands a frame from the bus to the local followers of its
// topic. The bus serialises calls, so the scratch buffer is safe.
func (g *Gateway) dispatch(topic string, msg []byte) {
	in, ok := readIncoming(msg)
	if !ok {
		g.log.Warn("events: unroutable frame on bus", "topic", topic)
		return
	}
	if kind, _ := event.Parse(topic); kind == event.KindResume {
		g.noteTakeover(topic, in)
	}
	g.scratch = g.hub.followers(g.scratch[:0], topic)
	for _, c := range g.scratch {
		c.deliver(topic, in)
	}
	clear(g.scratch)
}
