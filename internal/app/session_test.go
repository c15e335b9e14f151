package app

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/pubsub/inproc"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

// countingStore counts the reads a message send may make to learn who
// sends and what they hold in the channel.
type countingStore struct {
	store.Store
	sessionUser, channelAccess, sessionChannel atomic.Int64
}

func (s *countingStore) FetchSessionUser(ctx context.Context, token string) (*chat.Session, *chat.User, error) {
	s.sessionUser.Add(1)
	return s.Store.FetchSessionUser(ctx, token)
}

func (s *countingStore) FetchChannelAccess(ctx context.Context, channel, user chat.ID) (*chat.Channel, *chat.Server, *chat.Member, error) {
	s.channelAccess.Add(1)
	return s.Store.FetchChannelAccess(ctx, channel, user)
}

func (s *countingStore) FetchSessionChannelAccess(ctx context.Context, token string, channel chat.ID) (*store.SessionChannel, error) {
	s.sessionChannel.Add(1)
	return s.Store.FetchSessionChannelAccess(ctx, token, channel)
}

func (s *countingStore) counts() [3]int64 {
	return [3]int64{s.sessionUser.Load(), s.channelAccess.Load(), s.sessionChannel.Load()}
}

// TestAuthenticateForChannel: a send authenticated with its channel makes
// one read for the session and the channel, or none when the access cache
// holds them, decides as a send authenticated alone would (member,
// stranger, missing channel, another channel), and reads the store again
// for a second look.
func TestAuthenticateForChannel(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "ermine.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bus := inproc.New(0)
	t.Cleanup(func() { bus.Close() })
	cs := &countingStore{Store: st}
	ta := &testApp{App: New(Deps{Store: cs, Bus: bus, Settings: Settings{Limits: DefaultLimits()}}), st: st, bus: bus}

	owner, stranger := ta.user(t, "owner"), ta.user(t, "stranger")
	created, err := ta.CreateServer(ctx, owner, chat.ServerCreate{Name: "Talk"})
	if err != nil {
		t.Fatal(err)
	}
	general := created.Channels[0].ID
	other, err := ta.CreateServerChannel(ctx, owner, created.Server.ID, chat.ServerChannelCreate{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	token := func(c *Caller) string {
		c.Session.Token = chat.NewToken(64)
		if err := st.InsertSession(ctx, c.Session); err != nil {
			t.Fatal(err)
		}
		return c.Session.Token
	}
	ownerToken, strangerToken := token(owner), token(stranger)
	content := "hello"
	send := func(c *Caller, channel chat.ID) error {
		_, err := ta.SendMessage(ctx, c, channel, chat.MessageSend{Content: &content}, "")
		return err
	}
	expect := func(what string, want [3]int64) {
		t.Helper()
		if got := cs.counts(); got != want {
			t.Fatalf("%s: reads (session user, channel access, both) %v, want %v", what, got, want)
		}
		cs.sessionUser.Store(0)
		cs.channelAccess.Store(0)
		cs.sessionChannel.Store(0)
	}

	c, err := ta.AuthenticateForChannel(ctx, ownerToken, "", general)
	if err != nil || c.ID() != owner.ID() || c.Session.ID != owner.Session.ID {
		t.Fatalf("authenticate: %v, %+v", err, c)
	}
	if err := send(c, general); err != nil {
		t.Fatal(err)
	}
	expect("send", [3]int64{0, 0, 1})
	if err := send(c, general); err != nil {
		t.Fatal(err)
	}
	expect("second send with the same caller", [3]int64{0, 1, 0})

	c, err = ta.AuthenticateForChannel(ctx, ownerToken, "", general)
	if err != nil {
		t.Fatal(err)
	}
	if err := send(c, other.ID); err != nil {
		t.Fatal(err)
	}
	// The session and the channel were kept by the first read (the access
	// cache): the second authentication reads nothing.
	expect("send to another channel", [3]int64{0, 1, 0})

	c, err = ta.AuthenticateForChannel(ctx, strangerToken, "", general)
	if err != nil {
		t.Fatal(err)
	}
	if err := send(c, general); !errors.Is(err, chat.ErrNotFound) {
		t.Fatalf("stranger's send: %v, want NotFound", err)
	}
	expect("stranger's send", [3]int64{0, 0, 1})

	missing := chat.NewID()
	c, err = ta.AuthenticateForChannel(ctx, ownerToken, "", missing)
	if err != nil {
		t.Fatal(err)
	}
	if err := send(c, missing); !errors.Is(err, chat.ErrNotFound) {
		t.Fatalf("send to a missing channel: %v, want NotFound", err)
	}
	expect("send to a missing channel", [3]int64{0, 0, 1})

	if _, err := ta.AuthenticateForChannel(ctx, chat.NewToken(64), "", general); !errors.Is(err, chat.ErrInvalidSession) {
		t.Fatalf("unknown token: %v, want InvalidSession", err)
	}
	if _, err := ta.AuthenticateForChannel(ctx, "short", "", general); !errors.Is(err, chat.ErrInvalidSession) {
		t.Fatalf("malformed token: %v, want InvalidSession", err)
	}
	pending := &chat.Session{ID: chat.NewID(), UserID: chat.NewID(), Token: chat.NewToken(64)}
	if err := st.InsertSession(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if c, err := ta.AuthenticateForChannel(ctx, pending.Token, "", general); !errors.Is(err, ErrOnboardingNotFinished) || c.Session.ID != pending.ID {
		t.Fatalf("session without a user: %v, %+v", err, c)
	}
}
