package server_test

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/server"
)

// TestAdminRelaysAccessChanges: a change the admin command makes to
// sessions reaches the running node's access cache the way its events
// reach the node's sockets, as a frame on event.Access() relayed through
// the store (the node publishes it on its in-process bus). Without it the
// node would accept the ended sessions' sends until the cache's rows aged.
func TestAdminRelaysAccessChanges(t *testing.T) {
	ctx := t.Context()
	cfg := localConfig(t)
	st := openStore(t, cfg)
	u := &chat.User{ID: chat.NewID(), Username: "bob", Discriminator: "0001"}
	se := &chat.Session{ID: chat.NewID(), UserID: u.ID, Token: chat.NewToken(64)}
	for _, err := range []error{
		st.InsertAccount(ctx, &chat.Account{ID: u.ID, Email: "bob@example.com", EmailNormalised: "bob@example.com", Verified: true}),
		st.InsertUser(ctx, u), st.InsertSession(ctx, se),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	ad, err := server.OpenAdmin(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !ad.Relayed {
		t.Fatal("the admin command does not relay through the store with the in-process bus")
	}
	if err := ad.App.AdminSetDisabled(ctx, app.Operator(), u.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := ad.Close(); err != nil {
		t.Fatal(err)
	}

	st = openStore(t, cfg)
	defer st.Close()
	evs, err := st.TakeRelayEvents(ctx, 100, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Topic == event.Access() && bytes.Contains(e.Frame, []byte("u"+string(u.ID))) {
			return
		}
	}
	t.Fatalf("no frame on %s names the disabled user's sessions among %d relayed frames", event.Access(), len(evs))
}
