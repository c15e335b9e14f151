package gateway

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/resume"
)

// Resume is an extension of the events protocol that stock clients never
// see (docs/events-resume.md). A connection opened with resume=1 gets a
// resume_id in its Ready, and every frame after Ready carries seq, one
// more than the frame before (a Bulk is one frame). Its connection keeps
// its last frames (at most resume.MaxFrames and resume.MaxBytes, as
// references to frames shared with other connections: 32 bytes each).
//
// When the connection closes it is held: for ResumeHold it keeps
// following its topics and routing what arrives exactly as if it were
// connected, permission checks and subscription changes included, but
// writes the frames into its stream in the shared state (resume.Streams)
// instead of a socket. Its last frames go there first, so the frames
// written just before the socket died, which the client may never have
// read, are kept too.
//
// A reconnect with resume=<id>&seq=<n>, on any node, takes the stream
// over from the connection holding it (held, or still open because the
// server has not yet seen the old socket die) in two steps on the bus
// topic event.Resume(id), which only the holder and the new connection
// follow:
//
//  1. prepare: the holder writes its scope (servers and roles, channels,
//     followed users) into the stream; the new connection follows the
//     same topics, keeping what arrives for after the handover.
//  2. seal: the holder writes the frames not yet in the stream, marks it
//     sealed with its last number and whether its scope changed since
//     prepare, and stops. The new connection drops what it kept up to
//     its own seal request (the holder recorded those: the bus delivers
//     to every node in one order), replays the stream after n and goes
//     live.
//
// Whenever that cannot be done exactly — no such stream, another user's,
// another format, frames after n no longer held, the scope changed during
// the handover, the holder not answering within resumeWait — the
// connection gets a full Ready and a new resume id, as a stock one.

// Defaults of the resume options.
const (
	// DefaultResumeHold is how long a closed resumable connection keeps
	// recording its stream.
	DefaultResumeHold = 3 * time.Minute
	// resumeLiveTTL is how long the stream of an open connection is
	// known to the shared state without being renewed; a connection open
	// longer is resumed with a full Ready.
	resumeLiveTTL = 24 * time.Hour
	// resumeWait bounds each step of a takeover.
	resumeWait = 2 * time.Second
	// nodeBeat is how often a node renews its mark of life in the
	// shared state, which lasts nodeAlive: a node dead for longer is
	// known to be (a resume of a stream it recorded gets a full Ready
	// at once instead of waiting resumeWait for its answer).
	nodeBeat  = time.Second
	nodeAlive = 3 * time.Second
)

// evResumed answers a resume: the missed frames follow.
const evResumed = "Resumed"

// evTakeover is the gateways' own packet on a resume topic; it never
// reaches a client.
const evTakeover = "ResumeTakeover"

// takeover is a step of a takeover, published on event.Resume(id).
type takeover struct {
	Type  string  `json:"type"`
	Step  string  `json:"step"` // "prepare" or "seal"
	Nonce string  `json:"nonce"`
	User  chat.ID `json:"user"`
}

// resumedPacket is the Resumed packet.
type resumedPacket struct {
	Type string `json:"type"`
	Seq  uint64 `json:"seq"`
}

// resumeState is a resumable connection's stream. The fields without
// atomics are touched only by the writer (see writer.go) once the
// connection has a queue, and by the read loop before.
type resumeState struct {
	id       string
	numbered bool   // Ready or Resumed written: frames carry seq
	seq      uint64 // number of the last frame
	ring     []resume.Frame
	start    int // ring[start:] are kept
	bytes    int // data bytes in ring[start:]
	stored   uint64
	prepared *scopeCopy // the scope at the last prepare
	own      string     // nonce of the takeover that gave the connection its stream
	// Once held: when, and what went into the stream since.
	heldFrames, heldBytes int

	held   atomic.Bool // the socket is gone: frames go to the stream
	heldAt atomic.Int64
	sealed atomic.Bool // taken over: the stream is the new connection's
	over   atomic.Bool // nothing more is recorded
}

// keep adds a frame to the ring, dropping the oldest beyond the bounds.
func (r *resumeState) keep(f resume.Frame) {
	r.ring = append(r.ring, f)
	r.bytes += len(f.Data)
	for len(r.ring)-r.start > resume.MaxFrames || r.bytes > resume.MaxBytes && len(r.ring)-r.start > 1 {
		r.bytes -= len(r.ring[r.start].Data)
		r.ring[r.start] = resume.Frame{}
		r.start++
	}
	if r.start >= 256 && 2*r.start >= len(r.ring) {
		n := copy(r.ring, r.ring[r.start:])
		clear(r.ring[n:])
		r.ring, r.start = r.ring[:n], 0
	}
}

// kept returns the frames in the ring and empties it.
func (r *resumeState) take() []resume.Frame {
	out := slices.Clone(r.ring[r.start:])
	clear(r.ring)
	r.ring, r.start, r.bytes = r.ring[:0], 0, 0
	return out
}

// resumeQuery is what an events URL asks of resume.
type resumeQuery struct {
	want  bool   // resume=1 or resume=<id>
	id    string // the stream to resume; empty for resume=1
	after uint64 // seq: the last frame the client received
}

// parseResume reads the resume and seq query parameters. Anything but
// resume=1 or a well-formed id with a seq is a stock connection, or for
// a malformed id a new stream.
func parseResume(resumeParam, seqParam string) resumeQuery {
	switch {
	case resumeParam == "":
		return resumeQuery{}
	case resumeParam == "1":
		return resumeQuery{want: true}
	case !validResumeID(resumeParam):
		return resumeQuery{want: true}
	}
	after, err := strconv.ParseUint(seqParam, 10, 64)
	if err != nil {
		return resumeQuery{want: true}
	}
	return resumeQuery{want: true, id: resumeParam, after: after}
}

// newResumeID returns a fresh resume id: 26 lower-case base-32 letters
// and digits (128 random bits).
func newResumeID() string { return strings.ToLower(rand.Text()) }

// validResumeID reports whether id has the form newResumeID gives.
func validResumeID(id string) bool {
	if len(id) != 26 {
		return false
	}
	for i := range len(id) {
		if c := id[i]; (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// extend appends to dst the encoded map b with extra entries: JSON
// members (`"k":v,...`) or msgpack key-value pairs, count of them. A b
// that is not a map is appended as is.
func extend(dst, b []byte, binary bool, count int, entries []byte) []byte {
	if !binary {
		end := len(b) - 1
		for end >= 0 && b[end] != '}' {
			end--
		}
		if end < 0 {
			return append(dst, b...)
		}
		body := b[:end]
		dst = append(dst, body...)
		last := len(body) - 1
		for last >= 0 && (body[last] == ' ' || body[last] == '\n' || body[last] == '\t' || body[last] == '\r') {
			last--
		}
		if last < 0 || body[last] != '{' {
			dst = append(dst, ',')
		}
		dst = append(dst, entries...)
		return append(dst, '}')
	}
	if len(b) == 0 {
		return dst
	}
	var n, head int
	switch c := b[0]; {
	case c >= 0x80 && c <= 0x8f:
		n, head = int(c&0x0f), 1
	case c == 0xde && len(b) >= 3:
		n, head = int(binaryBE16(b[1:])), 3
	case c == 0xdf && len(b) >= 5:
		n, head = int(binaryBE32(b[1:])), 5
	default:
		return append(dst, b...)
	}
	switch n += count; {
	case n <= 15:
		dst = append(dst, 0x80|byte(n))
	case n <= 0xffff:
		dst = append(dst, 0xde, byte(n>>8), byte(n))
	default:
		dst = append(dst, 0xdf, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	dst = append(dst, b[head:]...)
	return append(dst, entries...)
}

func binaryBE16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }
func binaryBE32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }

// appendSeqEntry appends the entry seq=n in a format's encoding.
func appendSeqEntry(dst []byte, binary bool, n uint64) []byte {
	if !binary {
		return strconv.AppendUint(append(dst, `"seq":`...), n, 10)
	}
	dst = append(dst, 0xa3, 's', 'e', 'q')
	return appendMsgpackUint(dst, n)
}

// appendMsgpackUint appends n as a msgpack unsigned integer, in the
// fewest bytes.
func appendMsgpackUint(dst []byte, n uint64) []byte {
	switch {
	case n < 128:
		return append(dst, byte(n))
	case n <= 0xff:
		return append(dst, 0xcc, byte(n))
	case n <= 0xffff:
		return append(dst, 0xcd, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		return append(dst, 0xce, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0xcf), n)
}

// resumableReady returns Ready with the stream's id and seq 0.
func resumableReady(ready []byte, binary bool, id string) []byte {
	var e []byte
	if binary {
		e = append(e, 0xa9)
		e = append(e, "resume_id"...)
		e = append(e, 0xd9, byte(len(id))) // str8: ids are 26 bytes
		e = append(e, id...)
	} else {
		e = append(strconv.AppendQuote([]byte(`"resume_id":`), id), ',')
	}
	return extend(nil, ready, binary, 2, appendSeqEntry(e, binary, 0))
}

// record numbers a frame, keeps it in the ring and adds it to the batch
// unless the socket is gone. Run in a round.
func (c *conn) record(b []byte) {
	r := c.res
	if r.over.Load() || c.closeCode != 0 {
		return
	}
	r.seq++
	r.keep(resume.Frame{Seq: r.seq, Data: b})
	c.writeNumbered(r.seq, b)
}

// stampBuffers hold a frame while its number is added.
var stampBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1<<10); return &b }}

// writeNumbered adds frame b numbered n to the batch. Run in a round.
func (c *conn) writeNumbered(n uint64, b []byte) {
	if c.closing.Load() || c.closeCode != 0 {
		return
	}
	var e [16]byte
	entries := appendSeqEntry(e[:0], c.binary, n)
	op := byte(opText)
	if c.binary {
		op = opBinary
	}
	buf := stampBuffers.Get().(*[]byte)
	*buf = extend((*buf)[:0], b, c.binary, 1, entries)
	*c.out = appendFrame(*c.out, op, *buf)
	if cap(*buf) <= keepBuffer {
		stampBuffers.Put(buf)
	}
	c.batched++
}

// stopped reports whether nothing more is done for c: it is closing and
// not recording a stream.
func (c *conn) stopped() bool {
	if !c.closing.Load() {
		return false
	}
	r := c.res
	return r == nil || r.over.Load()
}

// holdForResume keeps a closed resumable connection recording its
// stream. It reports false when the connection is not to be held.
func (c *conn) holdForResume() bool {
	r := c.res
	if r == nil || !c.authenticated() || c.failed.Load() || r.over.Load() {
		return false
	}
	g := c.g
	if !g.hold(c) {
		return false
	}
	r.heldAt.Store(time.Now().UnixNano())
	g.unregister(c)
	g.userDisconnected(c.me())
	c.pending.Add(1)
	c.push(job{f: c.startHold})
	return true
}

// startHold moves the ring into the stream; from now on each round's
// frames follow it there. Run on the queue.
func (c *conn) startHold() {
	r := c.res
	r.held.Store(true)
	frames := r.take()
	for _, f := range frames {
		r.heldBytes += len(f.Data)
	}
	if err := c.g.streams.Append(c.g.ctx, r.id, frames, c.g.resumeHold); err != nil {
		c.g.log.Warn("events: hold stream", "err", err)
		c.endHold(true)
		return
	}
	r.stored = r.seq
}

// storeHeld writes the frames recorded in this round into the stream,
// ending the hold when the stream outgrows what can be resumed. Run at
// the end of a round.
func (c *conn) storeHeld() {
	r := c.res
	if r.over.Load() || !r.held.Load() || r.seq == r.stored {
		return
	}
	frames := r.take()
	r.heldFrames += len(frames)
	for _, f := range frames {
		r.heldBytes += len(f.Data)
	}
	if r.heldFrames > resume.MaxFrames || r.heldBytes > resume.MaxBytes {
		c.endHold(true) // frames the client needs would be dropped
		return
	}
	if err := c.g.streams.Append(c.g.ctx, r.id, frames, c.g.resumeHold); err != nil {
		c.g.log.Warn("events: record held stream", "err", err)
		c.endHold(true)
		return
	}
	r.stored = r.seq
}

// endHold stops a held connection: it follows nothing more and its stream
// is deleted unless it was taken over (del false, or sealed).
func (c *conn) endHold(del bool) {
	r := c.res
	if r.over.Swap(true) {
		return
	}
	g := c.g
	if err := g.hub.removeAll(c); err != nil {
		g.log.Error("events: leave topics", "err", err)
	}
	c.mu.Lock()
	if c.members != nil && c.members.timer != nil {
		c.members.timer.Stop()
	}
	c.mu.Unlock()
	g.unhold(c)
	if del && !r.sealed.Load() {
		if err := g.streams.Delete(g.ctx, r.id); err != nil {
			g.log.Warn("events: delete stream", "err", err)
		}
	}
}

// takeover answers a step of a takeover of the connection's stream. Run
// in a round.
func (c *conn) takeover(in *incoming) {
	r := c.res
	var p takeover
	if r == nil || r.over.Load() || json.Unmarshal(in.frame.JSON, &p) != nil || p.User != c.me() || p.Nonce == r.own {
		return
	}
	ctx := c.g.ctx
	switch p.Step {
	case "prepare":
		r.prepared = c.copyScope()
		// A new connection on this node gets the scope handed over in
		// memory (the same copy: the seal only reads r.prepared, and the
		// new connection changes its scope only once the seal is
		// answered); the stream records only that it was prepared.
		scope := ""
		if hv := c.g.localHandover(event.Resume(r.id), p.Nonce); hv != nil {
			hv.give(c, r.prepared)
		} else {
			scope = c.scope()
		}
		if err := c.g.streams.Prepare(ctx, r.id, p.Nonce, scope); err != nil {
			c.g.log.Warn("events: prepare takeover", "err", err)
			return
		}
		c.ack(p, "prepared")
	case "seal":
		intact := r.prepared != nil && c.scopeEquals(r.prepared)
		frames := r.take()
		if err := c.g.streams.Seal(ctx, r.id, p.Nonce, frames, r.seq, intact); err != nil {
			c.g.log.Warn("events: seal takeover", "err", err)
		}
		r.sealed.Store(true)
		c.ack(p, "sealed")
		if r.held.Load() {
			c.endHold(false)
			return
		}
		r.over.Store(true)
		c.closeAfter(closeGoingAway) // the client is on the new connection
	}
}

// ack tells the new connection of takeover p that step is done.
func (c *conn) ack(p takeover, step string) {
	if err := c.g.publishTakeover(c.res.id, step, p.Nonce, p.User); err != nil {
		c.g.log.Warn("events: answer takeover", "err", err)
	}
}

// scopeEquals reports whether what routing knows of the user is sc.
func (c *conn) scopeEquals(sc *scopeCopy) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.EqualFunc(c.servers.entries, sc.servers.entries, func(a, b idEntry[[]chat.ID]) bool {
		return a.id == b.id && slices.Equal(a.v, b.v)
	}) && (c.channels.same(sc.channels) || slices.Equal(c.channels.entries, sc.channels.entries)) &&
		(c.users.same(sc.users) || slices.Equal(c.users.entries, sc.users.entries))
}

// scope renders what routing knows of the user: one line per server
// ("s" id, tab, roles comma-separated), visible channel ("c" id, tab,
// its server or nothing) and followed user ("u" id), in id order.
func (c *conn) scope() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var b strings.Builder
	b.Grow(32 * (len(c.servers.entries) + len(c.channels.entries) + len(c.users.entries)))
	for _, e := range c.servers.entries {
		b.WriteByte('s')
		b.WriteString(string(e.id))
		b.WriteByte('\t')
		for i, role := range e.v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(string(role))
		}
		b.WriteByte('\n')
	}
	for _, e := range c.channels.entries {
		b.WriteByte('c')
		b.WriteString(string(e.id))
		b.WriteByte('\t')
		b.WriteString(string(e.v))
		b.WriteByte('\n')
	}
	for _, e := range c.users.entries {
		b.WriteByte('u')
		b.WriteString(string(e.id))
		b.WriteByte('\n')
	}
	return b.String()
}

// scopeCopy is what routing knows of a user, as scope renders it.
type scopeCopy struct {
	servers  idMap[[]chat.ID]
	channels idMap[chat.ID]
	users    idMap[struct{}]
}

// copyScope copies what scope renders, without rendering it. An idMap
// is never changed in place, so the channels and users (thousands for a
// user of many servers) are copied by taking their slices; the servers
// are copied entry by entry, their roles normalised.
func (c *conn) copyScope() *scopeCopy {
	c.mu.RLock()
	defer c.mu.RUnlock()
	sc := &scopeCopy{
		servers:  idMap[[]chat.ID]{slices.Clone(c.servers.entries)},
		channels: c.channels,
		users:    c.users,
	}
	for i, e := range sc.servers.entries {
		if len(e.v) == 0 {
			sc.servers.entries[i].v = nil // as parseScope reads no roles
		} else {
			sc.servers.entries[i].v = slices.Clone(e.v)
		}
	}
	return sc
}

// parseScope reads what scope wrote back into the three maps, sorted as
// they were. The ids are slices of s.
func parseScope(s string) (servers idMap[[]chat.ID], channels idMap[chat.ID], users idMap[struct{}], ok bool) {
	for line := range strings.SplitSeq(s, "\n") {
		if line == "" {
			continue
		}
		body := line[1:]
		switch line[0] {
		case 's':
			id, roles, found := strings.Cut(body, "\t")
			if !found {
				return servers, channels, users, false
			}
			var rs []chat.ID
			for role := range strings.SplitSeq(roles, ",") {
				if role != "" {
					rs = append(rs, chat.ID(role))
				}
			}
			servers.entries = append(servers.entries, idEntry[[]chat.ID]{chat.ID(id), rs})
		case 'c':
			id, server, found := strings.Cut(body, "\t")
			if !found {
				return servers, channels, users, false
			}
			channels.entries = append(channels.entries, idEntry[chat.ID]{chat.ID(id), chat.ID(server)})
		case 'u':
			users.entries = append(users.entries, idEntry[struct{}]{id: chat.ID(body)})
		default:
			return servers, channels, users, false
		}
	}
	return servers, channels, users, true
}

// publishTakeover publishes a step of a takeover of stream id.
func (g *Gateway) publishTakeover(id, step, nonce string, user chat.ID) error {
	f, err := event.Encode(evTakeover, takeover{Type: evTakeover, Step: step, Nonce: nonce, User: user})
	if err != nil {
		return err
	}
	return g.bus.Publish(g.ctx, event.Resume(id), f.Marshal())
}

// handover is a takeover under way on this node: the new connection
// waits on acks for the holder's answers.
type handover struct {
	nonce string

	// The holder's answers (prepared, sealed) as noteTakeover meets
	// them, and the connection waiting for one of them outside the gate
	// (awaitAck): want, and admit, which noteTakeover hands to the gate
	// when the answer comes so that the connection wakes once, holding
	// its place again, rather than once for the answer and once more for
	// the gate. During a reconnect storm those wakes were a good part of
	// the goroutines the API's requests waited behind.
	answered map[string]bool
	want     string
	admit    chan struct{}

	mu     sync.Mutex
	scope  *scopeCopy // given by a holder on this node
	holder *conn      // that holder
	// A takeover from a holder on this node moves the holder's topics to
	// the new connection (conn) where dispatch meets the seal request
	// (noteTakeover): frames before it go to the holder, which records
	// them, and frames after it to the new connection. Swapped reports
	// that the move was made.
	conn    *conn
	topics  []string
	swapped bool
}

// give hands the scope of holder, a connection on this node, over in
// memory.
func (hv *handover) give(holder *conn, sc *scopeCopy) {
	hv.mu.Lock()
	hv.scope, hv.holder = sc, holder
	hv.mu.Unlock()
}

// swapAtSeal asks dispatch to move topics from the holder to c when it
// meets the seal request.
func (hv *handover) swapAtSeal(c *conn, topics []string) {
	hv.mu.Lock()
	hv.conn, hv.topics = c, topics
	hv.mu.Unlock()
}

// wasSwapped reports whether the holder's topics were moved.
func (hv *handover) wasSwapped() bool {
	hv.mu.Lock()
	defer hv.mu.Unlock()
	return hv.swapped
}

// given returns the scope a holder on this node gave, or nil.
func (hv *handover) given() *scopeCopy {
	hv.mu.Lock()
	defer hv.mu.Unlock()
	return hv.scope
}

// localHandover returns the takeover nonce of topic under way on this
// node, or nil.
func (g *Gateway) localHandover(topic, nonce string) *handover {
	g.mu.Lock()
	defer g.mu.Unlock()
	if hv := g.handovers[topic]; hv != nil && hv.nonce == nonce {
		return hv
	}
	return nil
}

// noteTakeover passes a holder's answer on a resume topic to the
// connection waiting for it on this node. Run by dispatch.
func (g *Gateway) noteTakeover(topic string, in *incoming) {
	if in.frame.Type != evTakeover {
		return
	}
	g.mu.Lock()
	hv := g.handovers[topic]
	g.mu.Unlock()
	var p takeover
	if hv == nil || json.Unmarshal(in.frame.JSON, &p) != nil || p.Nonce != hv.nonce {
		return
	}
	if p.Step == "seal" {
		hv.mu.Lock()
		if hv.holder != nil && hv.conn != nil && !hv.swapped {
			hv.swapped = g.hub.swap(hv.holder, hv.conn, hv.topics)
		}
		hv.mu.Unlock()
		return
	}
	if p.Step == "prepared" || p.Step == "sealed" {
		hv.mu.Lock()
		hv.answered[p.Step] = true
		var admit chan struct{}
		if hv.admit != nil && hv.want == p.Step {
			admit, hv.admit = hv.admit, nil
		}
		hv.mu.Unlock()
		if admit != nil {
			g.gate.enterFor(admit)
		}
	}
}

// awaitAck waits, outside the handshake gate, for the holder's answer
// step, for at most resumeWait, and comes back into the gate either way;
// it reports whether the answer came. The answer queues the connection
// at the gate (noteTakeover), so it wakes once, with its place.
func (c *conn) awaitAck(hv *handover, step string, timer *time.Timer) bool {
	admit := make(chan struct{})
	hv.mu.Lock()
	if hv.answered[step] {
		hv.mu.Unlock()
		return true // keeps its place
	}
	hv.want, hv.admit = step, admit
	hv.mu.Unlock()
	c.g.gate.leave()
	timer.Reset(resumeWait)
	select {
	case <-admit:
		runtime.Gosched() // as admitted does
		return true
	case <-timer.C:
	}
	hv.mu.Lock()
	queued := hv.admit == nil // the answer came as the time ran out
	hv.want, hv.admit = "", nil
	hv.mu.Unlock()
	if queued {
		admitted(admit)
		return true
	}
	c.g.gate.enter(true)
	return false
}

// resumeFrom takes the stream q.id over for the connection, whose user's
// own topics it already follows, and queues Authenticated, Resumed and the
// missed frames. It reports false, having undone what it did, when the
// connection must get a full Ready instead. Run on the read loop.
func (c *conn) resumeFrom(caller *app.Caller, q resumeQuery) bool {
	g := c.g
	me := caller.User.ID
	format := "json"
	if c.binary {
		format = "msgpack"
	}
	h, ok, err := g.streams.Fetch(g.ctx, q.id)
	if err != nil {
		g.log.Warn("events: fetch stream", "err", err)
		return false
	}
	if !ok || h.User != string(me) || h.Format != format || h.Sealed != "" {
		return false
	}
	if h.Node != "" && h.Node != g.node {
		// A node that stopped beating recorded nothing since: the
		// frames the client missed are not in the stream, and no one
		// will answer the takeover.
		if alive, err := g.streams.Alive(g.ctx, h.Node); err != nil {
			g.log.Warn("events: is the stream's node alive", "err", err)
		} else if !alive {
			return false
		}
	}
	own := []string{event.Private(me), event.Of(me)}
	followed := false
	undo := func() bool {
		if followed {
			c.mu.Lock()
			c.servers, c.channels, c.users = idMap[[]chat.ID]{}, idMap[chat.ID]{}, idMap[struct{}]{}
			c.mu.Unlock()
			var extra []string
			g.hub.mu.RLock()
			for _, t := range c.topics {
				if !slices.Contains(own, t) {
					extra = append(extra, t)
				}
			}
			g.hub.mu.RUnlock()
			c.unfollow(extra...)
		}
		return false
	}
	topic := event.Resume(q.id)
	nonce := rand.Text()
	hv := &handover{nonce: nonce, answered: map[string]bool{}}
	g.mu.Lock()
	g.handovers[topic] = hv
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		if g.handovers[topic] == hv {
			delete(g.handovers, topic)
		}
		g.mu.Unlock()
	}()
	timer := time.NewTimer(resumeWait)
	defer timer.Stop()
	followed = true
	if err := g.hub.add(c, topic); err != nil {
		return undo()
	}
	if err := g.publishTakeover(q.id, "prepare", nonce, me); err != nil {
		return undo()
	}
	if !c.awaitAck(hv, "prepared", timer) {
		return undo()
	}
	if h, ok, err = g.streams.Fetch(g.ctx, q.id); err != nil || !ok || h.Prepared != nonce {
		return undo()
	}
	var servers idMap[[]chat.ID]
	var channels idMap[chat.ID]
	var users idMap[struct{}]
	sc := hv.given()
	if sc != nil {
		servers, channels, users = sc.servers, sc.channels, sc.users
	} else if servers, channels, users, ok = parseScope(h.Scope); !ok {
		return undo()
	}
	c.caller = caller
	c.mu.Lock()
	c.servers, c.channels, c.users = servers, channels, users
	c.sections = nil
	c.mu.Unlock()
	// The three lists are sorted by id, as topics are: merged, they need
	// no sort (a bot's member topics are added and sorted after).
	topics := mergeTopics(users.entries, servers.entries, channels.entries)
	if caller.IsBot() {
		for _, e := range servers.entries {
			topics = append(topics, event.Members(e.id))
		}
		slices.Sort(topics)
	}
	if sc != nil {
		// The holder is on this node: its topics become this
		// connection's where dispatch meets the seal request, in place
		// of this connection following them all beside it until the
		// holder leaves them.
		hv.swapAtSeal(c, topics)
	} else if err := g.hub.add(c, topics...); err != nil {
		return undo()
	}
	if err := g.publishTakeover(q.id, "seal", nonce, me); err != nil {
		return undo()
	}
	if !c.awaitAck(hv, "sealed", timer) {
		return undo()
	}
	if sc != nil && !hv.wasSwapped() {
		return undo() // the holder had left some of them: not intact
	}
	if h, ok, err = g.streams.Fetch(g.ctx, q.id); err != nil || !ok || h.Sealed != nonce || !h.Intact || q.after > h.Last {
		return undo()
	}
	frames, err := g.streams.Frames(g.ctx, q.id, q.after)
	if err != nil || uint64(len(frames)) != h.Last-q.after {
		return undo()
	}
	for i, f := range frames {
		if f.Seq != q.after+1+uint64(i) {
			return undo()
		}
	}
	// The seal request may reach this node after the holder answered
	// it: the frames before it here are the holder's.
	if !c.sealSeen(topic, nonce) && !c.awayFromGate(func() bool {
		deadline := time.Now().Add(resumeWait)
		for !c.sealSeen(topic, nonce) {
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(200 * time.Microsecond)
		}
		return true
	}) {
		return undo()
	}
	if err := g.streams.Open(g.ctx, q.id, string(me), format, g.node, resumeLiveTTL); err != nil {
		return undo()
	}
	authBytes, err := c.encode(chat.TypeOnly{Type: chat.EvAuthenticated})
	if err != nil {
		return undo()
	}
	resumedBytes, err := c.encode(resumedPacket{Type: evResumed, Seq: q.after})
	if err != nil {
		return undo()
	}
	// The connection keeps of its session only what routing reads.
	if se := caller.Session; se != nil {
		kept := *caller
		kept.Session = &chat.Session{ID: se.ID, UserID: se.UserID}
		c.caller = &kept
	}
	r := c.res
	r.id, r.seq, r.stored, r.own = q.id, h.Last, 0, nonce
	for _, f := range frames {
		r.keep(f)
	}
	if !c.reserve() {
		return true // cut meanwhile: nothing more to do
	}
	c.push(job{f: func() {
		c.write(authBytes)
		c.write(resumedBytes)
		for _, f := range frames {
			c.writeNumbered(f.Seq, f.Data)
		}
		r.numbered = true
	}})
	// What arrived up to the seal request was recorded by the holder;
	// the rest is the connection's.
	c.mu.Lock()
	cut := c.marker(topic, nonce)
	for i, p := range c.early {
		if i <= cut {
			c.pending.Add(-1) // reserved by deliver
			continue
		}
		c.push(job{topic: p.topic, in: p.in})
	}
	c.early = nil
	c.live.Store(true)
	c.mu.Unlock()
	return true
}

// sealSeen reports whether the seal request nonce published on topic
// has reached the connection.
func (c *conn) sealSeen(topic, nonce string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.marker(topic, nonce) >= 0
}

// awayFromGate runs wait, which waits on something other than the CPU
// (the bus), outside the handshake gate (gate.go). The holder's answers
// are waited for by awaitAck.
func (c *conn) awayFromGate(wait func() bool) bool {
	c.g.gate.leave()
	defer c.g.gate.enter(true)
	return wait()
}

// marker returns the index in c.early of the seal request nonce published
// on topic, or -1. c.mu held.
func (c *conn) marker(topic, nonce string) int {
	for i, p := range c.early {
		if p.topic == topic && p.in.frame.Type == evTakeover {
			var t takeover
			if json.Unmarshal(p.in.frame.JSON, &t) == nil && t.Nonce == nonce && t.Step == "seal" {
				return i
			}
		}
	}
	return -1
}

// beat renews the node's mark of life.
func (g *Gateway) beat() {
	ctx, cancel := context.WithTimeout(g.ctx, nodeBeat)
	defer cancel()
	if err := g.streams.Beat(ctx, g.node, nodeAlive); err != nil {
		g.log.Warn("events: node beat", "err", err)
	}
}

// beatLoop beats every nodeBeat until stop is closed.
func (g *Gateway) beatLoop(stop <-chan struct{}) {
	t := time.NewTicker(nodeBeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			g.beat()
		}
	}
}

// hold adds c to the held connections, unless shutting down.
func (g *Gateway) hold(c *conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.held[c] = struct{}{}
	return true
}

// unhold removes c from the held connections.
func (g *Gateway) unhold(c *conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.held, c)
}

// expireHeld ends the holds older than ResumeHold at now, or all of them.
func (g *Gateway) expireHeld(now time.Time, all bool) {
	by := now.Add(-g.resumeHold).UnixNano()
	var ended []*conn
	g.mu.Lock()
	for c := range g.held {
		if all || c.res.heldAt.Load() < by {
			ended = append(ended, c)
		}
	}
	g.mu.Unlock()
	for _, c := range ended {
		c.endHold(true)
	}
}

// mergeTopics returns the topics of the ids of three lists sorted by id,
// as one sorted list. A user of many servers has far more channels than
// servers and users: each of the few is placed among the channels by a
// binary search and the runs between are copied, where a walk comparing
// the three heads would compare every channel's id two or three times
// (ids made in the same millisecond share their first ten bytes).
func mergeTopics[U, S, C any](us []idEntry[U], ss []idEntry[S], cs []idEntry[C]) []string {
	few := make([]chat.ID, 0, len(us)+len(ss))
	for len(us)+len(ss) > 0 {
		if len(ss) == 0 || (len(us) > 0 && us[0].id < ss[0].id) {
			few, us = append(few, us[0].id), us[1:]
		} else {
			few, ss = append(few, ss[0].id), ss[1:]
		}
	}
	topics := make([]string, 0, len(few)+len(cs))
	for _, id := range few {
		i, _ := slices.BinarySearchFunc(cs, id, func(e idEntry[C], id chat.ID) int { return strings.Compare(string(e.id), string(id)) })
		for _, e := range cs[:i] {
			topics = append(topics, event.Of(e.id))
		}
		topics, cs = append(topics, event.Of(id)), cs[i:]
	}
	for _, e := range cs {
		topics = append(topics, event.Of(e.id))
	}
	return topics
}
