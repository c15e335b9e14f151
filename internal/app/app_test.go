package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/pubsub/inproc"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

// testApp is an App over a fresh SQLite store and an in-process bus.
type testApp struct {
	*App
	st  store.Store
	bus *inproc.Bus
}

func newTestApp(t *testing.T) *testApp {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ermine.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bus := inproc.New(0)
	t.Cleanup(func() { bus.Close() })
	return &testApp{App: New(Deps{Store: st, Bus: bus, Settings: Settings{Limits: DefaultLimits()}}), st: st, bus: bus}
}

// user stores a user and returns its caller.
func (ta *testApp) user(t *testing.T, name string) *Caller {
	t.Helper()
	u := &chat.User{ID: chat.NewID(), Username: name, Discriminator: "0100"}
	if err := ta.st.InsertUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return &Caller{User: u, Session: &chat.Session{ID: chat.NewID(), UserID: u.ID}}
}

// friends makes two users friends.
func (ta *testApp) friends(t *testing.T, a, b *Caller) {
	t.Helper()
	ctx := context.Background()
	if err := ta.st.SetRelationship(ctx, a.ID(), b.ID(), chat.RelationFriend); err != nil {
		t.Fatal(err)
	}
	if err := ta.st.SetRelationship(ctx, b.ID(), a.ID(), chat.RelationFriend); err != nil {
		t.Fatal(err)
	}
}

// seen is an event seen on the bus.
type seen struct {
	topic, typ string
	body       map[string]any
}

// events records what the bus carries on some topics.
type events struct {
	t  *testing.T
	ch chan seen
}

func (ta *testApp) listen(t *testing.T, topics ...string) *events {
	t.Helper()
	e := &events{t: t, ch: make(chan seen, 256)}
	sub, err := ta.bus.Subscribe(func(topic string, msg []byte) {
		f, err := event.Unmarshal(msg)
		if err != nil {
			return
		}
		var body map[string]any
		_ = json.Unmarshal(f.JSON, &body)
		e.ch <- seen{topic: topic, typ: f.Type, body: body}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close() })
	if err := sub.Add(topics...); err != nil {
		t.Fatal(err)
	}
	return e
}

// next returns the next event, failing after a second.
func (e *events) next() seen {
	e.t.Helper()
	select {
	case s := <-e.ch:
		return s
	case <-time.After(time.Second):
		e.t.Fatal("no event within 1s")
		return seen{}
	}
}

// expect checks the next events have these types on these topics, in
// order, and returns them.
func (e *events) expect(want ...[2]string) []seen {
	e.t.Helper()
	out := make([]seen, len(want))
	for i, w := range want {
		s := e.next()
		if s.typ != w[0] || s.topic != w[1] {
			e.t.Fatalf("event %d = %s on %s (%v), want %s on %s", i, s.typ, s.topic, s.body, w[0], w[1])
		}
		out[i] = s
	}
	return out
}

// none checks no event arrives for a short while.
func (e *events) none() {
	e.t.Helper()
	select {
	case s := <-e.ch:
		e.t.Fatalf("unexpected %s on %s: %v", s.typ, s.topic, s.body)
	case <-time.After(100 * time.Millisecond):
	}
}

// storeQuery asks for the latest messages of a channel.
func storeQuery(ch chat.ID) store.MessageQuery {
	return store.MessageQuery{Channel: ch, Limit: 100}
}
