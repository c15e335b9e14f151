package clients_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/vmihailenco/msgpack/v5"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
)

// TestMsgpackEvents connects to the events WebSocket with format=msgpack,
// as revoltgo always does, and checks what its generated decoders need:
// binary frames of maps with named fields, Authenticated then Ready with
// every list, timestamps as integer milliseconds (in Ready and in events),
// msgpack Ping answered by Pong, and protocol pings answered.
func TestMsgpackEvents(t *testing.T) {
	h := apitest.Start(t)
	if res := h.Get("/events", ""); res.Status == http.StatusNotFound && res.Map(t)["location"] == "router" {
		t.Fatal("GET /events answers the router's NotFound: the events gateway is not mounted")
	}
	alice := h.NewUser("alice")
	ctx := t.Context()
	st := h.Server.Store

	// A server membership made directly in the store, with a joined_at
	// whose milliseconds are not zero.
	joined := chat.TimeOf(time.Date(2024, 3, 5, 6, 7, 8, 9_000_000, time.UTC))
	server := &chat.Server{ID: chat.NewID(), Owner: alice.ID, Name: "msgpack", DefaultPermissions: 1 << 20}
	channel := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: server.ID, Name: "general"}
	server.Channels = []chat.ID{channel.ID}
	for _, err := range []error{
		st.InsertServer(ctx, server),
		st.InsertChannel(ctx, channel),
		st.InsertMember(ctx, &chat.Member{ID: chat.MemberID{Server: server.ID, User: alice.ID}, JoinedAt: joined}),
	} {
		if err != nil {
			t.Fatalf("store: %v", err)
		}
	}

	url := fmt.Sprintf("ws://%s/events?version=1&format=msgpack&token=%s", h.Server.Addr(), alice.Token)
	conn, _, err := websocket.Dial(ctx, url, nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	defer func() { _ = conn.CloseNow() }()
	frames := readFrames(t, conn)

	// Authenticated may come first; then exactly one Ready.
	ready := frames.next(t, 10*time.Second)
	if ready["type"] == "Authenticated" {
		ready = frames.next(t, 10*time.Second)
	}
	if ready["type"] != "Ready" {
		t.Fatalf("first frames: want [Authenticated] Ready, got %v", ready)
	}
	for _, key := range []string{"users", "servers", "channels", "members", "emojis", "voice_states", "policy_changes"} {
		if _, ok := ready[key].([]any); !ok {
			t.Errorf("Ready.%s = %T %v, want a list", key, ready[key], ready[key])
		}
	}
	self := find(ready["users"], func(u map[string]any) bool { return u["_id"] == string(alice.ID) })
	if self == nil || self["relationship"] != "User" || self["username"] != alice.Username {
		t.Errorf("Ready.users lacks the user itself with relationship User: %v", ready["users"])
	}
	srv := find(ready["servers"], func(s map[string]any) bool { return s["_id"] == string(server.ID) })
	if srv == nil {
		t.Fatalf("Ready.servers lacks the server: %v", ready["servers"])
	}
	checkInt(t, "Ready server default_permissions", srv["default_permissions"], server.DefaultPermissions)
	if find(ready["channels"], func(c map[string]any) bool { return c["_id"] == string(channel.ID) }) == nil {
		t.Errorf("Ready.channels lacks the server's channel: %v", ready["channels"])
	}
	member := find(ready["members"], func(m map[string]any) bool {
		id, _ := m["_id"].(map[string]any)
		return id["server"] == string(server.ID) && id["user"] == string(alice.ID)
	})
	if member == nil {
		t.Fatalf("Ready.members lacks the membership: %v", ready["members"])
	}
	checkInt(t, "Ready member joined_at", member["joined_at"], joined.UnixMilli())

	// A msgpack Ping is answered by a Pong with the same data.
	ping, err := msgpack.Marshal(map[string]any{"type": "Ping", "data": 1234567})
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(ctx, websocket.MessageBinary, ping); err != nil {
		t.Fatalf("write Ping: %v", err)
	}
	pong := frames.wait(t, "Pong", 5*time.Second)
	checkInt(t, "Pong data", pong["data"], 1234567)

	// Protocol-level pings (revoltgo's and revolt.py's heartbeat) are answered.
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		t.Errorf("protocol ping: %v", err)
	}

	// An event with a timestamp, published as the app publishes: encoded
	// once, fanned out in the connection's format. The bus is at most
	// once, so publish until it arrives.
	timeout := chat.TimeOf(time.Date(2030, 1, 2, 3, 4, 5, 678_000_000, time.UTC))
	frame, err := event.Encode(chat.EvServerMemberUpdate, chat.ServerMemberUpdateEvent{
		Type: chat.EvServerMemberUpdate, ID: chat.MemberID{Server: server.ID, User: alice.ID},
		Data: chat.Partial{"timeout": timeout}, Clear: []string{},
	})
	if err != nil {
		t.Fatal(err)
	}
	var update map[string]any
	for i := 0; update == nil && i < 20; i++ {
		if err := h.Server.Bus.Publish(ctx, event.Of(server.ID), frame.Marshal()); err != nil {
			t.Fatalf("publish: %v", err)
		}
		update = frames.poll("ServerMemberUpdate", 250*time.Millisecond)
	}
	if update == nil {
		t.Fatal("no ServerMemberUpdate reached the msgpack connection")
	}
	data, _ := update["data"].(map[string]any)
	checkInt(t, "ServerMemberUpdate data.timeout", data["timeout"], timeout.UnixMilli())
	conn.Close(websocket.StatusNormalClosure, "")
}

// frameReader decodes the connection's frames in the background: a Read
// whose context ends would close the connection.
type frameReader struct {
	ch   chan map[string]any
	errs chan error
}

func readFrames(t *testing.T, conn *websocket.Conn) *frameReader {
	t.Helper()
	r := &frameReader{ch: make(chan map[string]any, 64), errs: make(chan error, 1)}
	go func() {
		for {
			typ, b, err := conn.Read(context.Background())
			if err != nil {
				r.errs <- err
				return
			}
			if typ != websocket.MessageBinary {
				r.errs <- fmt.Errorf("a %v frame on a msgpack connection: %q", typ, b)
				return
			}
			var m map[string]any
			if err := msgpack.Unmarshal(b, &m); err != nil {
				r.errs <- fmt.Errorf("frame is not a msgpack map: %w (% x)", err, b)
				return
			}
			r.ch <- m
		}
	}()
	return r
}

// next returns the next frame, failing the test after d.
func (r *frameReader) next(t *testing.T, d time.Duration) map[string]any {
	t.Helper()
	select {
	case m := <-r.ch:
		return m
	case err := <-r.errs:
		t.Fatalf("read: %v", err)
	case <-time.After(d):
		t.Fatalf("no frame within %s", d)
	}
	return nil
}

// wait skips frames until one of type typ, failing the test after d.
func (r *frameReader) wait(t *testing.T, typ string, d time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		m := r.next(t, time.Until(deadline))
		if m["type"] == typ {
			return m
		}
	}
}

// poll returns the first frame of type typ within d, or nil.
func (r *frameReader) poll(typ string, d time.Duration) map[string]any {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case m := <-r.ch:
			if m["type"] == typ {
				return m
			}
		case <-timer.C:
			return nil
		}
	}
}

func find(list any, pred func(map[string]any) bool) map[string]any {
	items, _ := list.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && pred(m) {
			return m
		}
	}
	return nil
}

// checkInt fails unless v decoded as a msgpack integer equal to want:
// revoltgo's generated decoders reject floats and strings.
func checkInt(t *testing.T, what string, v any, want int64) {
	t.Helper()
	var got int64
	switch n := v.(type) {
	case int8:
		got = int64(n)
	case int16:
		got = int64(n)
	case int32:
		got = int64(n)
	case int64:
		got = n
	case uint8:
		got = int64(n)
	case uint16:
		got = int64(n)
	case uint32:
		got = int64(n)
	case uint64:
		got = int64(n)
	default:
		t.Errorf("%s = %T %v, want an integer", what, v, v)
		return
	}
	if got != want {
		t.Errorf("%s = %d, want %d", what, got, want)
	}
}
