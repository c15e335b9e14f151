package gateway_test

import (
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/test"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
	"ermine/internal/perm"
	"ermine/internal/pubsub/nats"
	"ermine/internal/redistest"
	"ermine/internal/resume"

	"crypto/rand"
	"os"
)

// seqOf returns a packet's seq, or -1 when it has none.
func seqOf(p packet) int64 {
	switch v := p["seq"].(type) {
	case float64:
		return int64(v)
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case int64:
		return v
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint64:
		return int64(v)
	}
	return -1
}

// resumable connects asking for resume and returns the client, its
// resume id and Ready.
func (h *harness) resumable(t *testing.T, token, format string) (*client, string, packet) {
	t.Helper()
	cl, ready := h.connect(t, token, format, "resume", "1")
	id := str(ready, "resume_id")
	if id == "" || seqOf(ready) != 0 {
		t.Fatalf("Ready without resume_id and seq 0: resume_id %q seq %d", id, seqOf(ready))
	}
	return cl, id, ready
}

// reconnect dials with resume=id&seq=after and reads Authenticated.
func (h *harness) reconnect(t *testing.T, token, format, id string, after int64) *client {
	t.Helper()
	cl := h.dial(t, url.Values{"version": {"1"}, "format": {format}, "token": {token},
		"resume": {id}, "seq": {strconv.FormatInt(after, 10)}})
	cl.expect("Authenticated")
	cl.seq = after
	return cl
}

// numbered reads packets up to the next of type typ, checking that each
// is numbered one more than the one before (presence updates, which
// depend on when the server saw a connection close, are skipped unless
// typ is UserUpdate), and returns it.
func (cl *client) numbered(typ string) packet {
	cl.t.Helper()
	for {
		p := cl.next()
		got := seqOf(p)
		if got != cl.seq+1 {
			cl.t.Fatalf("%s seq = %d, want %d (%v)", p.Type(), got, cl.seq+1, p)
		}
		cl.seq = got
		if p.Type() == typ {
			return p
		}
		if !isPresence(p) {
			cl.t.Fatalf("got %s %v, want %s", p.Type(), p, typ)
		}
	}
}

// onlyPresence checks that nothing but presence updates arrives for a
// moment.
func (cl *client) onlyPresence() {
	cl.t.Helper()
	until := time.After(quiet)
	for {
		select {
		case f := <-cl.frames:
			if p := cl.decode(f); !isPresence(p) {
				cl.t.Fatalf("unexpected packet %v", p)
			}
		case <-until:
			return
		}
	}
}

// resumed reads Resumed, which must resume after the client's last seq.
func (cl *client) resumed() {
	cl.t.Helper()
	p := cl.next()
	if p.Type() != "Resumed" || seqOf(p) != cl.seq {
		cl.t.Fatalf("got %v, want Resumed after %d", p, cl.seq)
	}
}

// drop closes the client's socket without a close frame and waits until
// the gateway holds the connection.
func (h *harness) drop(t *testing.T, cl *client) {
	t.Helper()
	held := h.gw.Stats().Held
	_ = cl.c.CloseNow()
	deadline := time.Now().Add(wait)
	for h.gw.Stats().Held <= held {
		if time.Now().After(deadline) {
			t.Fatal("connection not held after closing")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestResumeOneNode drops a resumable connection and resumes it from a
// frame it had been sent, in both formats; a stock connection beside it
// sees no seq.
func TestResumeOneNode(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			alice, aliceToken := h.user("alice")
			bob, bobToken := h.user("bob")
			s, general := h.server(alice.ID)
			h.join(s.ID, bob.ID)

			stock, ready := h.connect(t, aliceToken, format)
			if _, ok := ready["resume_id"]; ok || seqOf(ready) != -1 {
				t.Fatalf("stock Ready carries resume fields: %v", ready)
			}
			cl, id, _ := h.resumable(t, bobToken, format)
			cl.numbered("UserUpdate") // own presence
			message(h, general.ID, alice.ID, "one")
			one := seqOf(cl.numbered("Message"))
			message(h, general.ID, alice.ID, "two")
			cl.numbered("Message")
			for range 4 { // presence, own and bob's, then the messages
				if p := stock.next(); seqOf(p) != -1 {
					t.Fatalf("stock connection got seq: %v", p)
				}
			}

			h.drop(t, cl)
			message(h, general.ID, alice.ID, "three")
			message(h, general.ID, alice.ID, "four")

			// The client last read "one": "two" was written to the
			// socket before it died and comes again.
			cl = h.reconnect(t, bobToken, format, id, one)
			cl.resumed()
			for _, want := range []string{"two", "three", "four"} {
				if p := cl.numbered("Message"); str(p, "content") != want {
					t.Fatalf("got %v, want %q", p, want)
				}
			}
			message(h, general.ID, alice.ID, "live")
			if p := cl.numbered("Message"); str(p, "content") != "live" {
				t.Fatalf("live frame = %v", p)
			}
			cl.send(map[string]any{"type": "Ping", "data": 7})
			cl.numbered("Pong")

			// Resumed once, the stream goes on under the same id.
			h.drop(t, cl)
			message(h, general.ID, alice.ID, "again")
			cl = h.reconnect(t, bobToken, format, id, cl.seq)
			cl.resumed()
			if p := cl.numbered("Message"); str(p, "content") != "again" {
				t.Fatalf("got %v", p)
			}
		})
	}
}

// TestResumeManyTopics resumes, twice, a user in more servers than the
// connection has topics of its own, so that the holder hands its topics
// over by giving the new connection its follower (see hub.swap): each
// server's frames reach the new connection once, in order, and keep
// reaching it after the holder has gone.
func TestResumeManyTopics(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	alice, _ := h.user("alice")
	bob, bobToken := h.user("bob")
	var channels []chat.ID
	for range 5 {
		s, general := h.server(alice.ID)
		h.join(s.ID, bob.ID)
		channels = append(channels, general.ID)
	}
	cl, id, _ := h.resumable(t, bobToken, "json")
	cl.numbered("UserUpdate") // own presence
	for round := range 2 {
		h.drop(t, cl)
		message(h, channels[round], alice.ID, "missed")
		cl = h.reconnect(t, bobToken, "json", id, cl.seq)
		cl.resumed()
		if p := cl.numbered("Message"); str(p, "content") != "missed" {
			t.Fatalf("round %d: got %v, want the missed message", round, p)
		}
		for i, ch := range channels {
			message(h, ch, alice.ID, fmt.Sprint(round, i))
		}
		message(h, channels[0], alice.ID, "end")
		for i := range channels {
			if p, want := cl.numbered("Message"), fmt.Sprint(round, i); str(p, "content") != want {
				t.Fatalf("got %v, want %q once", p, want)
			}
		}
		if p := cl.numbered("Message"); str(p, "content") != "end" {
			t.Fatalf("got %v, want the last message", p)
		}
	}
}

// TestResumeStillOpen resumes while the old connection is still open (the
// server has not seen it die, as after a network switch): the old one is
// closed and the new one gets what it missed.
func TestResumeStillOpen(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	alice, _ := h.user("alice")
	bob, bobToken := h.user("bob")
	s, general := h.server(alice.ID)
	h.join(s.ID, bob.ID)
	old, id, _ := h.resumable(t, bobToken, "json")
	old.numbered("UserUpdate")
	message(h, general.ID, alice.ID, "one")
	message(h, general.ID, alice.ID, "two")
	old.numbered("Message")
	old.numbered("Message")

	cl := h.reconnect(t, bobToken, "json", id, 1)
	cl.resumed()
	cl.numbered("Message")
	cl.numbered("Message")
	if code := old.closedWith(); code != 1001 {
		t.Fatalf("old connection closed with %d, want 1001", code)
	}
	message(h, general.ID, alice.ID, "three")
	cl.numbered("Message")
}

// TestResumeAcrossNodes drops a connection on one node and resumes it on
// the other, over NATS, with the streams in Redis when ERMINE_TEST_REDIS
// is set (else one in-process store both nodes share).
func TestResumeAcrossNodes(t *testing.T) {
	t.Parallel()
	opts := test.DefaultTestOptions
	opts.Port = -1
	srv := test.RunServer(&opts)
	t.Cleanup(srv.Shutdown)
	st := newStore(t)
	var streams resume.Streams = resume.NewMemory(nil)
	if os.Getenv("ERMINE_TEST_REDIS") != "" {
		streams = resume.NewRedis(redistest.Client(t), "ermine-test:resume:"+rand.Text()+":")
	}
	prefix := "ermt." + strconv.FormatInt(time.Now().UnixNano(), 36) + "."
	var nodes [2]*harness
	for i := range nodes {
		bus, err := nats.Open(srv.ClientURL(), nats.WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { bus.Close() })
		nodes[i] = newNode(t, st, bus, gateway.Options{Streams: streams})
	}
	one, two := nodes[0], nodes[1]
	alice, _ := one.user("alice")
	bob, bobToken := one.user("bob")
	s, general := one.server(alice.ID)
	one.join(s.ID, bob.ID)

	for _, format := range formats {
		cl, id, _ := one.resumable(t, bobToken, format)
		message(one, general.ID, alice.ID, "before")
		cl.numbered("Message")
		one.drop(t, cl)
		message(two, general.ID, alice.ID, "away")

		cl = two.reconnect(t, bobToken, format, id, cl.seq)
		cl.resumed()
		if p := cl.numbered("Message"); str(p, "content") != "away" {
			t.Fatalf("%s: got %v", format, p)
		}
		message(one, general.ID, alice.ID, "live")
		if p := cl.numbered("Message"); str(p, "content") != "live" {
			t.Fatalf("%s: got %v", format, p)
		}
		// And back to the first node, still open on the second.
		back := one.reconnect(t, bobToken, format, id, cl.seq)
		back.resumed()
		message(two, general.ID, alice.ID, "back")
		back.numbered("Message")
		_ = back.c.CloseNow()
	}
}

// fullReady reads a full Ready with a new resume id after Authenticated.
func fullReady(t *testing.T, cl *client, old string) packet {
	t.Helper()
	p := cl.expect("Ready")
	if id := str(p, "resume_id"); id == "" || id == old || seqOf(p) != 0 {
		t.Fatalf("Ready resume_id %q (old %q) seq %d", id, old, seqOf(p))
	}
	return p
}

// TestResumeRefused checks the cases answered with a full Ready: a hold
// that expired, more frames missed than a stream keeps, a seq the stream
// never reached, another format, another user's resume id (whose stream
// stays resumable by its user) and an unknown id.
func TestResumeRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	alice, aliceToken := h.user("alice")
	bob, bobToken := h.user("bob")
	s, general := h.server(alice.ID)
	h.join(s.ID, bob.ID)

	t.Run("expired", func(t *testing.T) {
		h := newHarness(t, gateway.Options{ResumeHold: 300 * time.Millisecond, Keepalive: 2 * time.Second, AuthTimeout: 2 * time.Second})
		_, bobToken := h.user("bob")
		cl, id, _ := h.resumable(t, bobToken, "json")
		h.drop(t, cl)
		deadline := time.Now().Add(wait)
		for h.gw.Stats().Held > 0 {
			if time.Now().After(deadline) {
				t.Fatal("hold did not expire")
			}
			time.Sleep(20 * time.Millisecond)
		}
		fullReady(t, h.reconnect(t, bobToken, "json", id, 0), id)
	})
	t.Run("too many missed", func(t *testing.T) {
		cl, id, _ := h.resumable(t, bobToken, "msgpack")
		h.drop(t, cl)
		for i := range resume.MaxFrames + 10 {
			message(h, general.ID, alice.ID, fmt.Sprint(i))
			if i%100 == 99 {
				time.Sleep(20 * time.Millisecond) // the bus drops what overflows its queue
			}
		}
		fullReady(t, h.reconnect(t, bobToken, "msgpack", id, 0), id)
	})
	t.Run("future seq", func(t *testing.T) {
		cl, id, _ := h.resumable(t, bobToken, "json")
		h.drop(t, cl)
		fullReady(t, h.reconnect(t, bobToken, "json", id, 99), id)
	})
	t.Run("other format", func(t *testing.T) {
		cl, id, _ := h.resumable(t, bobToken, "json")
		h.drop(t, cl)
		fullReady(t, h.reconnect(t, bobToken, "msgpack", id, 0), id)
	})
	t.Run("other user", func(t *testing.T) {
		// Bob's connections of the cases above, closed as they ended, are
		// gone: this one brings him online (the UserUpdate read below).
		deadline := time.Now().Add(wait)
		for h.gw.Stats().Connections > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("earlier connections still open: %+v", h.gw.Stats())
			}
			time.Sleep(5 * time.Millisecond)
		}
		cl, id, _ := h.resumable(t, bobToken, "json")
		cl.numbered("UserUpdate")
		h.drop(t, cl)
		message(h, general.ID, alice.ID, "for bob")
		other := h.reconnect(t, aliceToken, "json", id, 0)
		ready := fullReady(t, other, id)
		if str(ready, "users") == string(bob.ID) {
			t.Fatal("unreachable") // keeps ready used
		}
		// Bob's stream was not touched.
		cl = h.reconnect(t, bobToken, "json", id, cl.seq)
		cl.resumed()
		if p := cl.numbered("Message"); str(p, "content") != "for bob" {
			t.Fatalf("got %v", p)
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		fullReady(t, h.reconnect(t, bobToken, "json", "abcdefghijklmnopqrstuvwxyz", 0), "")
	})
}

// TestResumePermissionChange hides a channel from a user while away: the
// replayed frames hide it exactly as a fresh Ready does, and its messages
// stay away after the resume.
func TestResumePermissionChange(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			ctx := t.Context()
			alice, _ := h.user("alice")
			bob, bobToken := h.user("bob")
			s, general := h.server(alice.ID)
			secret := h.channel(s, "secret", nil)
			h.join(s.ID, bob.ID)

			cl, id, ready := h.resumable(t, bobToken, format)
			if _, ok := ids(list(ready, "channels"), "")[string(secret.ID)]; !ok {
				t.Fatal("secret not visible at first")
			}
			cl.numbered("UserUpdate")
			h.drop(t, cl)

			secret.DefaultPermissions = &chat.Override{D: int64(perm.ViewChannel)}
			if err := h.store.UpdateChannel(ctx, secret); err != nil {
				t.Fatal(err)
			}
			h.publish(chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: secret.ID,
				Data: chat.Partial{"default_permissions": secret.DefaultPermissions}, Clear: []string{}}, event.Of(s.ID))
			message(h, secret.ID, alice.ID, "hidden")
			message(h, general.ID, alice.ID, "seen")

			cl = h.reconnect(t, bobToken, format, id, cl.seq)
			cl.resumed()
			types, got := bulkTypes(t, cl.numbered("Bulk"))
			if !equal(types, []string{"ChannelDelete"}) || len(got) != 1 || got[0] != string(secret.ID) {
				t.Fatalf("replayed %v %v, want ChannelDelete of secret", types, got)
			}
			if p := cl.numbered("Message"); str(p, "content") != "seen" {
				t.Fatalf("got %v", p)
			}
			message(h, secret.ID, alice.ID, "still hidden")
			cl.onlyPresence()

			// A fresh Ready agrees: secret is not among the channels.
			_, fresh := h.connect(t, bobToken, format)
			if _, ok := ids(list(fresh, "channels"), "")[string(secret.ID)]; ok {
				t.Fatal("fresh Ready shows the channel")
			}
			if _, ok := ids(list(fresh, "channels"), "")[string(general.ID)]; !ok {
				t.Fatal("fresh Ready lacks general")
			}
		})
	}
}
