package gateway_test

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
	"ermine/internal/pubsub"
	"ermine/internal/store"
)

// hookStore runs before once, the first time Ready reads the user's
// facts (relationships among them): it stands for a change made by someone else while the
// connection is between authentication and Ready.
type hookStore struct {
	store.Store
	once   sync.Once
	before func()
}

func (s *hookStore) FetchReadyFacts(ctx context.Context, user chat.ID) (*store.ReadyFacts, error) {
	s.once.Do(s.before)
	return s.Store.FetchReadyFacts(ctx, user)
}

// friendRequest returns a hook that stores and publishes other's friend
// request to me: run inside the handshake, after Ready read nothing yet
// of it and before the connection is live.
func friendRequest(t *testing.T, h *harness, st store.Store, me chat.ID, other *chat.User) func() {
	return func() {
		if err := st.SetRelationship(context.Background(), me, other.ID, chat.RelationIncoming); err != nil {
			t.Error(err)
		}
		h.publish(chat.UserRelationshipEvent{Type: chat.EvUserRelationship, ID: me, User: other,
			Status: chat.RelationIncoming}, event.Private(me))
	}
}

// expectFriendRequest reads Authenticated, Ready and then the friend
// request from other.
func expectFriendRequest(t *testing.T, cl *client, other chat.ID) {
	t.Helper()
	cl.expect("Authenticated")
	cl.expect("Ready")
	p := cl.expect(chat.EvUserRelationship)
	if p["status"] != string(chat.RelationIncoming) || p["user"].(map[string]any)["_id"] != string(other) {
		t.Fatalf("UserRelationship = %v", p)
	}
}

// webclient.md item 2: a UserRelationship published while a connection is
// being set up (after authentication, while Ready is built) reaches it,
// after Ready.
// On a bus of several nodes (no marks) the connection follows its
// user's topics before Ready reads.
func TestRelationshipDuringHandshake(t *testing.T) {
	sq, bus := newStore(t), unmarkedBus{newBus(t)}
	hs := &hookStore{Store: sq}
	h := newNode(t, hs, bus, gateway.Options{})
	me, token := h.user("ann")
	other, _ := h.user("bo")
	hs.before = friendRequest(t, h, sq, me.ID, other)
	cl := h.dial(t, url.Values{"version": {"1"}, "format": {"json"}, "token": {token}})
	expectFriendRequest(t, cl, other.ID)
}

// hintStore is hookStore for a connection whose token was seen before,
// which reads its session with Ready's facts.
type hintStore struct {
	store.Store
	once   sync.Once
	before func()
	reads  atomic.Int32 // FetchSessionReadyFacts calls
}

func (s *hintStore) FetchSessionReadyFacts(ctx context.Context, token string) (*store.SessionReady, error) {
	s.reads.Add(1)
	s.once.Do(s.before)
	return s.Store.FetchSessionReadyFacts(ctx, token)
}

// A connection whose token connected before reads its session and Ready
// in one read, after following its user's topics: a UserRelationship
// published meanwhile reaches it after Ready, as on a first connection.
func TestRelationshipDuringHintedHandshake(t *testing.T) {
	sq, bus := newStore(t), unmarkedBus{newBus(t)}
	hs := &hintStore{Store: sq}
	h := newNode(t, hs, bus, gateway.Options{})
	me, token := h.user("ann")
	other, _ := h.user("bo")
	hs.before = friendRequest(t, h, sq, me.ID, other)
	first, _ := h.connect(t, token, "json")
	first.c.Close(websocket.StatusNormalClosure, "")
	if n := hs.reads.Load(); n != 0 {
		t.Fatalf("first connection: %d reads of session and facts together, want 0", n)
	}
	cl := h.dial(t, url.Values{"version": {"1"}, "format": {"json"}, "token": {token}})
	expectFriendRequest(t, cl, other.ID)
	if n := hs.reads.Load(); n != 1 {
		t.Fatalf("second connection: %d reads of session and facts together, want 1", n)
	}
}

// A token seen before whose session is gone is refused as any unknown
// token is; one that is now a session of someone else (a wrong hint)
// authenticates as that user, with nothing of the hinted user's.
func TestHintedHandshakeWrongHint(t *testing.T) {
	h := newNode(t, newStore(t), unmarkedBus{newBus(t)}, gateway.Options{})
	ann, token := h.user("ann")
	bo, _ := h.user("bo")
	first, _ := h.connect(t, token, "json")
	first.c.Close(websocket.StatusNormalClosure, "")

	t.Run("session deleted", func(t *testing.T) {
		if err := h.store.DeleteSession(t.Context(), h.sessionOf(token).ID); err != nil {
			t.Fatal(err)
		}
		cl := h.dial(t, url.Values{"version": {"1"}, "format": {"json"}, "token": {token}})
		if p := cl.expect("Error"); str(p, "data", "type") != "InvalidSession" {
			t.Fatalf("error = %v", p)
		}
		cl.mustCloseWith(websocket.StatusNormalClosure)
	})
	t.Run("session of another user", func(t *testing.T) {
		// The token comes back as bo's: ann's hint is stale.
		se := &chat.Session{ID: chat.NewID(), UserID: bo.ID, Token: token, Name: "test"}
		if err := h.store.InsertSession(t.Context(), se); err != nil {
			t.Fatal(err)
		}
		// Seed the stale hint again (the refusal above dropped it).
		gateway.RememberHint(h.gw, token, ann.ID)
		cl, ready := h.connect(t, token, "json")
		users := list(ready, "users")
		if self := users[len(users)-1].(map[string]any); str(self, "_id") != string(bo.ID) {
			t.Fatalf("Ready's own user = %v, want bo", self)
		}
		cl.send(map[string]any{"type": "Ping", "data": 7})
		for p := cl.next(); p["type"] != "Pong"; p = cl.next() {
		}
		h.publish(chat.UserRelationshipEvent{Type: chat.EvUserRelationship, ID: ann.ID, User: bo,
			Status: chat.RelationIncoming}, event.Private(ann.ID))
		h.publish(chat.TypeOnly{Type: chat.EvLogout}, event.Private(ann.ID))
		cl.nothing()
	})
}

// unmarkedBus hides the in-process bus's marks (pubsub.Marker), as a bus
// of several nodes has none.
type unmarkedBus struct{ pubsub.Bus }

// markedStore counts a connection's reads and runs after once, after
// the first read of a session with Ready's facts returns: between the
// read and the connection following its user's topics.
type markedStore struct {
	store.Store
	once                                  sync.Once
	after                                 func()
	sessionReady, sessionUser, readyFacts atomic.Int32
}

func (s *markedStore) FetchSessionReadyFacts(ctx context.Context, token string) (*store.SessionReady, error) {
	s.sessionReady.Add(1)
	defer s.once.Do(s.after)
	return s.Store.FetchSessionReadyFacts(ctx, token)
}

func (s *markedStore) FetchSessionUser(ctx context.Context, token string) (*chat.Session, *chat.User, error) {
	s.sessionUser.Add(1)
	return s.Store.FetchSessionUser(ctx, token)
}

func (s *markedStore) FetchReadyFacts(ctx context.Context, user chat.ID) (*store.ReadyFacts, error) {
	s.readyFacts.Add(1)
	return s.Store.FetchReadyFacts(ctx, user)
}

// reads reports the store reads so far: session with Ready's facts,
// session with its user, Ready's facts.
func (s *markedStore) reads() [3]int32 {
	return [3]int32{s.sessionReady.Load(), s.sessionUser.Load(), s.readyFacts.Load()}
}

// On the in-process bus a first connection reads its session and Ready's
// facts at once, then follows its user's topics: a UserRelationship
// published between the two is in a Ready read again, and one published
// on a topic of nobody's there costs no second read.
func TestRelationshipDuringMarkedHandshake(t *testing.T) {
	t.Run("on the user's topic", func(t *testing.T) {
		sq := newStore(t)
		ms := &markedStore{Store: sq}
		h := newNode(t, ms, newBus(t), gateway.Options{})
		me, token := h.user("ann")
		other, _ := h.user("bo")
		ms.after = friendRequest(t, h, sq, me.ID, other)
		cl := h.dial(t, url.Values{"version": {"1"}, "format": {"json"}, "token": {token}})
		cl.expect("Authenticated")
		ready := cl.expect("Ready")
		found := false
		for _, u := range list(ready, "users") {
			if u := u.(map[string]any); str(u, "_id") == string(other.ID) {
				found = str(u, "relationship") == string(chat.RelationIncoming)
			}
		}
		if !found {
			t.Fatalf("Ready's users = %v, want bo with an incoming request", list(ready, "users"))
		}
		if got := ms.reads(); got != [3]int32{1, 0, 1} {
			t.Fatalf("reads (session with facts, session, facts) = %v, want [1 0 1]", got)
		}
	})
	t.Run("on another topic", func(t *testing.T) {
		ms := &markedStore{Store: newStore(t)}
		h := newNode(t, ms, newBus(t), gateway.Options{})
		me, token := h.user("ann")
		// A topic that shares no mark with ann's own.
		own := []int{pubsub.MarkSlot(event.Private(me.ID)), pubsub.MarkSlot(event.Of(me.ID))}
		var elsewhere string
		for elsewhere == "" || slices.Contains(own, pubsub.MarkSlot(elsewhere)) {
			elsewhere = event.Of(chat.NewID())
		}
		ms.after = func() {
			h.publish(chat.TypeOnly{Type: chat.EvLogout}, elsewhere)
		}
		cl := h.dial(t, url.Values{"version": {"1"}, "format": {"json"}, "token": {token}})
		cl.expect("Authenticated")
		cl.expect("Ready")
		if got := ms.reads(); got != [3]int32{1, 0, 0} {
			t.Fatalf("reads (session with facts, session, facts) = %v, want [1 0 0]", got)
		}
		// Live after Ready: a request published now arrives.
		other, _ := h.user("bo")
		friendRequest(t, h, ms.Store, me.ID, other)()
		p := cl.expect(chat.EvUserRelationship)
		if p["status"] != string(chat.RelationIncoming) {
			t.Fatalf("UserRelationship = %v", p)
		}
	})
}
