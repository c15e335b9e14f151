package gateway_test

import (
	"context"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
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
func TestRelationshipDuringHandshake(t *testing.T) {
	sq, bus := newStore(t), newBus(t)
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

func (s *hintStore) FetchSessionReadyFacts(ctx context.Context, token string, user chat.ID) (*store.SessionReady, error) {
	s.reads.Add(1)
	s.once.Do(s.before)
	return s.Store.FetchSessionReadyFacts(ctx, token, user)
}

// A connection whose token connected before reads its session and Ready
// in one read, after following its user's topics: a UserRelationship
// published meanwhile reaches it after Ready, as on a first connection.
func TestRelationshipDuringHintedHandshake(t *testing.T) {
	sq, bus := newStore(t), newBus(t)
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
	h := newHarness(t, gateway.Options{})
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
