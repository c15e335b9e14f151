package gateway_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/vmihailenco/msgpack/v5"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
	"ermine/internal/perm"
	"ermine/internal/pubsub"
	"ermine/internal/pubsub/inproc"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

// wait is how long a test waits for a frame that should come.
const wait = 3 * time.Second

// quiet is how long a test waits to be sure a frame does not come.
const quiet = 150 * time.Millisecond

// harness is one gateway over a temporary SQLite store and an in-process
// bus, served by httptest.
type harness struct {
	t     testing.TB
	store store.Store
	bus   pubsub.Bus
	app   *app.App
	gw    *gateway.Gateway
	url   string
}

func newHarness(t testing.TB, opts gateway.Options) *harness {
	t.Helper()
	return newNode(t, newStore(t), newBus(t), opts)
}

// newStore opens a SQLite store in a temporary directory for the test.
func newStore(t testing.TB) store.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ermine.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newBus starts an in-process bus for the test.
func newBus(t testing.TB) pubsub.Bus {
	bus := inproc.New(0)
	t.Cleanup(func() { bus.Close() })
	return bus
}

// newNode starts a gateway over a given store and bus; several nodes
// sharing both behave like a cluster.
func newNode(t testing.TB, st store.Store, bus pubsub.Bus, opts gateway.Options) *harness {
	t.Helper()
	a := app.New(app.Deps{Store: st, Bus: bus, Settings: app.Settings{Limits: app.DefaultLimits()}})
	opts.App, opts.Bus = a, bus
	gw, err := gateway.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := gw.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		srv.Close()
	})
	return &harness{t: t, store: st, bus: bus, app: a, gw: gw,
		url: "ws" + strings.TrimPrefix(srv.URL, "http") + "/events"}
}

// user creates an onboarded user with a session and returns them with
// the session token.
func (h *harness) user(name string) (*chat.User, string) {
	h.t.Helper()
	u := &chat.User{ID: chat.NewID(), Username: name, Discriminator: "0001"}
	if err := h.store.InsertUser(h.t.Context(), u); err != nil {
		h.t.Fatal(err)
	}
	return u, h.session(u.ID)
}

// session adds a session for a user id and returns its token.
func (h *harness) session(user chat.ID) string {
	h.t.Helper()
	se := &chat.Session{ID: chat.NewID(), UserID: user, Token: chat.NewToken(64), Name: "test"}
	if err := h.store.InsertSession(h.t.Context(), se); err != nil {
		h.t.Fatal(err)
	}
	return se.Token
}

// sessionOf returns the session holding token.
func (h *harness) sessionOf(token string) *chat.Session {
	h.t.Helper()
	se, err := h.store.FetchSessionByToken(h.t.Context(), token)
	if err != nil {
		h.t.Fatal(err)
	}
	return se
}

// bot creates a bot owned by owner and returns its user and token.
func (h *harness) bot(name string, owner chat.ID) (*chat.User, string) {
	h.t.Helper()
	u := &chat.User{ID: chat.NewID(), Username: name, Discriminator: "0001", Bot: &chat.BotInformation{Owner: owner}}
	if err := h.store.InsertUser(h.t.Context(), u); err != nil {
		h.t.Fatal(err)
	}
	b := &chat.Bot{ID: u.ID, Owner: owner, Token: chat.NewToken(64)}
	if err := h.store.InsertBot(h.t.Context(), b); err != nil {
		h.t.Fatal(err)
	}
	return u, b.Token
}

// server creates a server owned by owner with a text channel "general"
// and returns both.
func (h *harness) server(owner chat.ID) (*chat.Server, *chat.Channel) {
	h.t.Helper()
	s := &chat.Server{ID: chat.NewID(), Owner: owner, Name: "server", DefaultPermissions: int64(perm.DefaultServer)}
	general := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: s.ID, Name: "general"}
	s.Channels = []chat.ID{general.ID}
	if err := h.store.InsertServer(h.t.Context(), s); err != nil {
		h.t.Fatal(err)
	}
	if err := h.store.InsertChannel(h.t.Context(), general); err != nil {
		h.t.Fatal(err)
	}
	h.join(s.ID, owner)
	return s, general
}

// channel adds a text channel to a server, with an optional default
// override.
func (h *harness) channel(s *chat.Server, name string, def *chat.Override) *chat.Channel {
	h.t.Helper()
	c := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: s.ID, Name: name, DefaultPermissions: def}
	if err := h.store.InsertChannel(h.t.Context(), c); err != nil {
		h.t.Fatal(err)
	}
	s.Channels = append(s.Channels, c.ID)
	if err := h.store.UpdateServer(h.t.Context(), s); err != nil {
		h.t.Fatal(err)
	}
	return c
}

// join makes user a member of server with roles.
func (h *harness) join(server, user chat.ID, roles ...chat.ID) *chat.Member {
	h.t.Helper()
	m := &chat.Member{ID: chat.MemberID{Server: server, User: user}, JoinedAt: chat.Now(), Roles: roles}
	if err := h.store.InsertMember(h.t.Context(), m); err != nil {
		h.t.Fatal(err)
	}
	return m
}

// relate sets a relationship both ways.
func (h *harness) relate(a, b chat.ID, ab, ba chat.RelationshipStatus) {
	h.t.Helper()
	ctx := h.t.Context()
	if err := h.store.SetRelationship(ctx, a, b, ab); err != nil {
		h.t.Fatal(err)
	}
	if err := h.store.SetRelationship(ctx, b, a, ba); err != nil {
		h.t.Fatal(err)
	}
}

// publish sends an event the way the app does: encoded once, on topics.
func (h *harness) publish(ev any, topics ...string) {
	h.t.Helper()
	b, err := json.Marshal(ev)
	if err != nil {
		h.t.Fatal(err)
	}
	var typed struct{ Type string }
	if err := json.Unmarshal(b, &typed); err != nil || typed.Type == "" {
		h.t.Fatalf("event without type: %s", b)
	}
	f, err := event.Encode(typed.Type, ev)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, topic := range topics {
		if err := h.bus.Publish(h.t.Context(), topic, f.Marshal()); err != nil {
			h.t.Fatal(err)
		}
	}
}

// client is a test WebSocket client reading every frame into a channel.
type client struct {
	t      *testing.T
	c      *websocket.Conn
	binary bool
	frames chan frame
	closed chan struct{} // closed when the read loop ended
	err    error         // why the read loop ended
	seq    int64         // the last seq read, for resumable connections
}

// frame is one frame received by a client.
type frame struct {
	binary bool
	data   []byte
}

// packet is a decoded server packet.
type packet map[string]any

// Type returns the packet's type.
func (p packet) Type() string { s, _ := p["type"].(string); return s }

// dial opens a connection with the query given (format, token, ready...).
func (h *harness) dial(t *testing.T, query url.Values) *client {
	t.Helper()
	cl, err := h.tryDial(t, query)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return cl
}

// dialLater is dial in the background. A connection that authenticates
// with its URL's token has its upgrade answered with its Authenticated
// and Ready: a test that holds the handshake up dials this way.
func (h *harness) dialLater(t *testing.T, query url.Values) <-chan *client {
	out := make(chan *client, 1)
	go func() {
		cl, err := h.tryDial(t, query)
		if err != nil {
			t.Errorf("dial: %v", err)
		}
		out <- cl
	}()
	return out
}

func (h *harness) tryDial(t *testing.T, query url.Values) (*client, error) {
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, h.url+"?"+query.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(8 << 20)
	cl := &client{t: t, c: c, binary: query.Get("format") == "msgpack",
		frames: make(chan frame, 1024), closed: make(chan struct{})}
	go cl.readLoop()
	t.Cleanup(func() { _ = c.CloseNow() })
	return cl, nil
}

func (cl *client) readLoop() {
	defer close(cl.closed)
	for {
		typ, b, err := cl.c.Read(context.Background())
		if err != nil {
			cl.err = err
			return
		}
		cl.frames <- frame{binary: typ == websocket.MessageBinary, data: b}
	}
}

// connect dials with a token in the URL and reads Authenticated and
// Ready; it returns the client and the Ready packet.
func (h *harness) connect(t *testing.T, token, format string, extra ...string) (*client, packet) {
	t.Helper()
	q := url.Values{"version": {"1"}, "format": {format}, "token": {token}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Add(extra[i], extra[i+1])
	}
	cl := h.dial(t, q)
	cl.expect("Authenticated")
	return cl, cl.expect("Ready")
}

// next returns the next packet, failing the test after wait.
func (cl *client) next() packet {
	cl.t.Helper()
	select {
	case f := <-cl.frames:
		return cl.decode(f)
	case <-cl.closed:
		select {
		case f := <-cl.frames:
			return cl.decode(f)
		default:
		}
		cl.t.Fatalf("connection closed while waiting for a packet: %v", cl.err)
	case <-time.After(wait):
		cl.t.Fatal("no packet within", wait)
	}
	return nil
}

func (cl *client) decode(f frame) packet {
	cl.t.Helper()
	if f.binary != cl.binary {
		cl.t.Fatalf("frame kind binary=%v on a binary=%v connection", f.binary, cl.binary)
	}
	var p packet
	var err error
	if cl.binary {
		err = msgpack.Unmarshal(f.data, &p)
	} else {
		err = json.Unmarshal(f.data, &p)
	}
	if err != nil {
		cl.t.Fatalf("decode %q: %v", f.data, err)
	}
	return p
}

// expect returns the next packet, which must have type typ. Presence
// updates (UserUpdate with only online) are skipped unless typ is
// UserUpdate: whether a reconnecting user's connection announces them
// online depends on when their previous one was seen to close.
func (cl *client) expect(typ string) packet {
	cl.t.Helper()
	p := cl.next()
	for typ != "UserUpdate" && isPresence(p) {
		p = cl.next()
	}
	if p.Type() != typ {
		cl.t.Fatalf("got %s %v, want %s", p.Type(), p, typ)
	}
	return p
}

// nothing checks that no packet arrives for a moment.
func (cl *client) nothing() {
	cl.t.Helper()
	select {
	case f := <-cl.frames:
		cl.t.Fatalf("unexpected packet %v", cl.decode(f))
	case <-time.After(quiet):
	}
}

// send writes a packet in the client's format.
func (cl *client) send(p map[string]any) {
	cl.t.Helper()
	var b []byte
	var err error
	typ := websocket.MessageText
	if cl.binary {
		b, err = msgpack.Marshal(p)
		typ = websocket.MessageBinary
	} else {
		b, err = json.Marshal(p)
	}
	if err != nil {
		cl.t.Fatal(err)
	}
	cl.sendRaw(typ, b)
}

// sendRaw writes one frame as is.
func (cl *client) sendRaw(typ websocket.MessageType, b []byte) {
	cl.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := cl.c.Write(ctx, typ, b); err != nil {
		cl.t.Fatalf("write: %v", err)
	}
}

// closedWith waits for the connection to close and returns the close
// code the server sent (-1 when it sent none).
func (cl *client) closedWith() websocket.StatusCode {
	cl.t.Helper()
	select {
	case <-cl.closed:
	case <-time.After(wait):
		cl.t.Fatal("connection still open")
	}
	return websocket.CloseStatus(cl.err)
}

// mustBeClosed drains what is left and checks the server closed with code.
func (cl *client) mustCloseWith(code websocket.StatusCode) {
	cl.t.Helper()
	if got := cl.closedWith(); got != code {
		cl.t.Fatalf("closed with %d (%v), want %d", got, cl.err, code)
	}
}

// str returns a string field of a packet, or of a nested object by path.
func str(p map[string]any, path ...string) string {
	var cur any = p
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[k]
	}
	s, _ := cur.(string)
	return s
}

// list returns an array field of a packet.
func list(p map[string]any, key string) []any {
	l, _ := p[key].([]any)
	return l
}

func jsonOf(v any) ([]byte, error)        { return json.Marshal(v) }
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// nothingAll checks that none of the clients receives a packet for a
// moment, waiting once for all of them.
func nothingAll(t *testing.T, clients ...*client) {
	t.Helper()
	time.Sleep(quiet)
	for _, cl := range clients {
		select {
		case f := <-cl.frames:
			t.Fatalf("unexpected packet %v", cl.decode(f))
		default:
		}
	}
}

// isPresence reports whether p is a presence update.
func isPresence(p packet) bool {
	data, _ := p["data"].(map[string]any)
	_, online := data["online"]
	return p.Type() == "UserUpdate" && online && len(data) == 1
}
