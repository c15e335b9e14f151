package gateway_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
	"ermine/internal/perm"
)

func TestTyping(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			owner, ownerToken := h.user("owner")
			me, token := h.user("me")
			s, general := h.server(owner.ID)
			hidden := h.channel(s, "hidden", &chat.Override{D: int64(perm.ViewChannel)})
			h.join(s.ID, me.ID)
			o, _ := h.connect(t, ownerToken, format)
			o.expect("UserUpdate")
			cl, _ := h.connect(t, token, format)
			cl.expect("UserUpdate")
			o.expect("UserUpdate")

			for _, tc := range []struct{ packet, event string }{{"BeginTyping", "ChannelStartTyping"}, {"EndTyping", "ChannelStopTyping"}} {
				cl.send(map[string]any{"type": tc.packet, "channel": string(general.ID)})
				for _, c := range []*client{cl, o} {
					p := c.expect(tc.event)
					if str(p, "id") != string(general.ID) || str(p, "user") != string(me.ID) {
						t.Errorf("got %v", p)
					}
				}
			}
			// Channels the user cannot see, or that do not exist: nothing.
			cl.send(map[string]any{"type": "BeginTyping", "channel": string(hidden.ID)})
			cl.send(map[string]any{"type": "BeginTyping", "channel": "nope"})
			nothingAll(t, cl, o)
		})
	}
}

func TestPingPong(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	_, token := h.user("me")
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			cl, _ := h.connect(t, token, format)
			for _, data := range []any{int64(1735787045678), "text", map[string]any{"a": []any{int64(1), "b"}}, nil} {
				cl.send(map[string]any{"type": "Ping", "data": data})
				p := cl.next()
				// The user's own presence: coming online, and the previous
				// subtest's connection going offline, which may be announced
				// after this one connected.
				for p.Type() == "UserUpdate" {
					p = cl.next()
				}
				if p.Type() != "Pong" {
					t.Fatalf("got %v", p)
				}
				want, _ := json.Marshal(data)
				got, _ := json.Marshal(normalise(p["data"]))
				if string(got) != string(want) {
					t.Errorf("pong data = %s, want %s", got, want)
				}
			}
			// A ping frame is answered too.
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			if err := cl.c.Ping(ctx); err != nil {
				t.Errorf("ping frame: %v", err)
			}
		})
	}
	t.Run("msgpack binary data", func(t *testing.T) {
		cl, _ := h.connect(t, token, "msgpack")
		cl.send(map[string]any{"type": "Ping", "data": []byte{1, 2, 3}})
		p := cl.expect("Pong")
		if b, ok := p["data"].([]byte); !ok || string(b) != "\x01\x02\x03" {
			t.Errorf("pong data = %#v", p["data"])
		}
	})
}

// normalise turns msgpack's integer types into int64 for comparison.
func normalise(v any) any {
	switch v := v.(type) {
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint64:
		return int64(v)
	case float64:
		return int64(v)
	case []any:
		for i := range v {
			v[i] = normalise(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = normalise(v[k])
		}
	}
	return v
}

func TestKeepalive(t *testing.T) {
	t.Parallel()
	// The pinging clients send every tenth of it: on a loaded machine a
	// third (the test's old pace, with 300 ms) once left one silent for
	// longer than that.
	const keepalive = time.Second
	h := newHarness(t, gateway.Options{Keepalive: keepalive})
	_, token := h.user("me")

	silent, _ := h.connect(t, token, "json")
	pinger, _ := h.connect(t, token, "json")
	packets, _ := h.connect(t, token, "json")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(keepalive / 10)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				_ = pinger.c.Ping(ctx)
				_ = packets.c.Write(ctx, websocket.MessageText, []byte(`{"type":"Ping","data":0}`))
				cancel()
			}
		}
	}()
	start := time.Now()
	silent.closedWith()
	if d := time.Since(start); d > 3*keepalive {
		t.Errorf("silent connection dropped after %v", d)
	}
	time.Sleep(3 * keepalive)
	close(stop)
	<-done
	for name, cl := range map[string]*client{"ping frames": pinger, "Ping packets": packets} {
		select {
		case <-cl.closed:
			t.Errorf("%s: connection dropped: %v", name, cl.err)
		default:
		}
	}
}

func TestMalformedPackets(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{MaxPacket: 1024})
	_, token := h.user("me")
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			cl, _ := h.connect(t, token, format)
			other := websocket.MessageBinary
			if format == "msgpack" {
				other = websocket.MessageText
			}
			junk := [][]byte{[]byte("{"), []byte("\xc1\xff"), []byte(`{"type":5}`), []byte(`[]`), []byte(`{"type":"Pong","data":1}`), {}}
			for _, b := range junk {
				cl.sendRaw(websocket.MessageText, b)
				cl.sendRaw(websocket.MessageBinary, b)
			}
			cl.sendRaw(other, []byte(`{"type":"Ping","data":1}`))
			cl.send(map[string]any{"type": "Unknown", "data": 1})
			cl.send(map[string]any{"type": "Subscribe", "server_id": 12})
			cl.send(map[string]any{"type": "BeginTyping", "channel": map[string]any{"x": 1}})
			cl.send(map[string]any{"type": "Ping", "data": 2})
			// Presence updates of the user's connections from the other
			// subtest may come first, in either order.
			p := cl.next()
			for p.Type() == "UserUpdate" {
				p = cl.next()
			}
			if p.Type() != "Pong" || normalise(p["data"]) != int64(2) {
				t.Fatalf("got %v, want the Pong of the only valid Ping", p)
			}
			// An oversized packet ends this connection only.
			cl.send(map[string]any{"type": "Ping", "data": strings.Repeat("x", 2048)})
			cl.mustCloseWith(websocket.StatusMessageTooBig)
			// Whether the new connection announces the user online again
			// depends on whether the server finished closing the old one
			// first; expect skips presence updates either way.
			again, _ := h.connect(t, token, format)
			again.send(map[string]any{"type": "Ping", "data": 3})
			again.expect("Pong")
		})
	}
}

func TestSlowReaderDisconnected(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{SendQueue: 8})
	owner, _ := h.user("owner")
	slowUser, slowToken := h.user("slow")
	_, fastToken := h.user("fast")
	s, general := h.server(owner.ID)
	h.join(s.ID, slowUser.ID)

	// The slow client completes the handshake and then never reads.
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	slow, _, err := websocket.Dial(ctx, h.url+"?"+url.Values{"token": {slowToken}}.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = slow.CloseNow() }()
	deadline := time.Now().Add(wait)
	for h.gw.Stats().Connections == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // Ready written, subscriptions in place

	big := strings.Repeat("x", 60<<10)
	for i := 0; i < 400 && h.gw.Stats().SlowDisconnects == 0; i++ {
		message(h, general.ID, owner.ID, big)
		if i%20 == 19 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	deadline = time.Now().Add(wait)
	for h.gw.Stats().SlowDisconnects == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if h.gw.Stats().SlowDisconnects != 1 {
		t.Fatalf("slow disconnects = %d, want 1", h.gw.Stats().SlowDisconnects)
	}
	// The server carries on.
	cl, _ := h.connect(t, fastToken, "json")
	cl.send(map[string]any{"type": "Ping", "data": 1})
	if p := cl.next(); p.Type() != "Pong" && p.Type() != "UserUpdate" {
		t.Errorf("got %v", p)
	}
}

func TestSubscribeMemberList(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	owner, ownerToken := h.user("owner")
	me, token := h.user("me")
	outsider, outsiderToken := h.user("outsider")
	s, _ := h.server(owner.ID)
	other, _ := h.server(outsider.ID)
	h.join(s.ID, me.ID)
	bot, botToken := h.bot("robot", owner.ID)
	h.join(s.ID, bot.ID)

	cl, _ := h.connect(t, token, "json")
	cl.expect("UserUpdate")
	out, _ := h.connect(t, outsiderToken, "json")
	out.expect("UserUpdate")
	b, _ := h.connect(t, botToken, "json")
	b.expect("UserUpdate")
	cl.expect("UserUpdate") // the bot came online in the server

	profile := func(server *chat.Server) {
		h.publish(chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: owner.ID, Data: chat.Partial{"display_name": "O"}, Clear: []string{}}, event.Members(server.ID))
	}
	profile(s)
	b.expect("UserUpdate") // bots follow every member list
	nothingAll(t, cl, out)

	cl.send(map[string]any{"type": "Subscribe", "server_id": string(s.ID)})
	out.send(map[string]any{"type": "Subscribe", "server_id": string(s.ID)}) // not a member
	cl.send(map[string]any{"type": "Subscribe", "server_id": string(other.ID)})
	cl.send(map[string]any{"type": "Ping", "data": 1})
	out.send(map[string]any{"type": "Ping", "data": 1})
	cl.expect("Pong")
	out.expect("Pong")
	profile(s)
	cl.expect("UserUpdate")
	b.expect("UserUpdate")
	out.nothing()
	profile(other)
	cl.nothing()
	_ = ownerToken
}

func TestPresence(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	watcher, watcherToken := h.user("watcher")
	friend, friendToken := h.user("friend")
	ghost, ghostToken := h.user("ghost")
	invisible := chat.PresenceInvisible
	ghost.Status = &chat.UserStatus{Presence: &invisible}
	if err := h.store.UpdateUser(t.Context(), ghost); err != nil {
		t.Fatal(err)
	}
	h.relate(watcher.ID, friend.ID, chat.RelationFriend, chat.RelationFriend)
	h.relate(watcher.ID, ghost.ID, chat.RelationFriend, chat.RelationFriend)
	// Watcher and friend also share a server: the presence goes to both
	// topics but arrives once.
	s, _ := h.server(watcher.ID)
	h.join(s.ID, friend.ID)

	w, _ := h.connect(t, watcherToken, "json")
	w.expect("UserUpdate")

	online := func(p packet, who chat.ID, want bool) {
		t.Helper()
		if p.Type() != "UserUpdate" || str(p, "id") != string(who) || p["data"].(map[string]any)["online"] != want {
			t.Fatalf("got %v, want %s online=%v", p, who, want)
		}
		if _, ok := p["event_id"]; p["event_id"] != nil || !ok {
			t.Errorf("presence shape: %v", p)
		}
	}
	f1, _ := h.connect(t, friendToken, "msgpack")
	online(w.next(), friend.ID, true)
	online(f1.next(), friend.ID, true)
	f2, _ := h.connect(t, friendToken, "json")
	w.nothing()

	_, ready := h.connect(t, watcherToken, "json")
	if u := ids(list(ready, "users"), "")[string(friend.ID)]; u["online"] != true {
		t.Errorf("friend in Ready = %v, want online", u)
	}
	if u := ids(list(ready, "users"), "")[string(ghost.ID)]; u["online"] != false {
		t.Errorf("invisible friend in Ready = %v", u)
	}

	g, ready := h.connect(t, ghostToken, "json")
	users := list(ready, "users")
	if self := users[len(users)-1].(map[string]any); self["online"] != false || self["status"] != nil {
		t.Errorf("invisible user's own user = %v", self)
	}
	w.nothing()
	g.c.Close(websocket.StatusNormalClosure, "")
	g.closedWith()

	f1.c.Close(websocket.StatusNormalClosure, "")
	f1.closedWith()
	w.nothing()
	f2.c.Close(websocket.StatusNormalClosure, "")
	f2.closedWith()
	online(w.next(), friend.ID, false)
}

func TestAuthenticationRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	for i := 0; i < 20; i++ {
		cl := h.dial(t, url.Values{"token": {"bad"}})
		cl.expect("Error")
		cl.mustCloseWith(websocket.StatusNormalClosure)
	}
	cl := h.dial(t, url.Values{"token": {"bad"}})
	cl.mustCloseWith(websocket.StatusTryAgainLater)
	// A valid token from the same address is turned away too until the
	// window closes: the block is per address, before any lookup.
	_, token := h.user("me")
	cl = h.dial(t, url.Values{"token": {token}})
	cl.mustCloseWith(websocket.StatusTryAgainLater)
}

func TestSuccessfulAuthenticationsNotLimited(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	_, token := h.user("me")
	for i := 0; i < 30; i++ {
		cl, _ := h.connect(t, token, "json")
		_ = cl.c.CloseNow()
	}
}

func TestShutdown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	_, token := h.user("me")
	cl, _ := h.connect(t, token, "msgpack")
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	if err := h.gw.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	cl.mustCloseWith(websocket.StatusGoingAway)
	if _, _, err := websocket.Dial(ctx, h.url, nil); err == nil { //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
		t.Error("new connection accepted after shutdown")
	}
}
