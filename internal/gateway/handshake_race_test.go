package gateway_test

import (
	"context"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
	"ermine/internal/pubsub/inproc"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
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

// webclient.md item 2: a UserRelationship published while a connection is
// being set up (after authentication, while Ready is built) reaches it,
// after Ready.
func TestRelationshipDuringHandshake(t *testing.T) {
	sq, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ermine.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	bus := inproc.New(0)
	t.Cleanup(func() { bus.Close() })
	hs := &hookStore{Store: sq}
	h := newNode(t, hs, bus, gateway.Options{})
	me, token := h.user("ann")
	other, _ := h.user("bo")
	hs.before = func() {
		// Bo's friend request lands now: stored after Ready read nothing
		// yet of it, published before the connection is live.
		if err := sq.SetRelationship(context.Background(), me.ID, other.ID, chat.RelationIncoming); err != nil {
			t.Error(err)
		}
		h.publish(chat.UserRelationshipEvent{Type: chat.EvUserRelationship, ID: me.ID, User: other,
			Status: chat.RelationIncoming}, event.Private(me.ID))
	}
	cl := h.dial(t, url.Values{"version": {"1"}, "format": {"json"}, "token": {token}})
	cl.expect("Authenticated")
	cl.expect("Ready")
	p := cl.expect(chat.EvUserRelationship)
	if p["status"] != string(chat.RelationIncoming) || p["user"].(map[string]any)["_id"] != string(other.ID) {
		t.Fatalf("UserRelationship = %v", p)
	}
}
