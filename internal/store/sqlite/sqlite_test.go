package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
	"ermine/internal/store/storetest"
	"ermine/internal/testbed"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ermine.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestReopen checks migrations are applied once (a second Open of a
// migrated file succeeds) and that what was written before Close is read
// back after reopening, and the reopened store still takes writes.
func TestReopen(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ermine.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	u := &chat.User{ID: chat.NewID(), Username: "reopen", Discriminator: "0042", Relationship: chat.RelationNone}
	settings := map[string]chat.Setting{"theme": {Timestamp: 1700000000000, Value: `{"dark":true}`}}
	if err := s.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSettings(ctx, u.ID, settings); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for round := range 2 {
		s, err = sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("reopen %d: %v", round, err)
		}
		got, err := s.FetchUser(ctx, u.ID)
		if err != nil {
			t.Fatalf("reopen %d: fetch user: %v", round, err)
		}
		if diff := cmp.Diff(u, got); diff != "" {
			t.Errorf("reopen %d: user (-wrote +read):\n%s", round, diff)
		}
		gotSettings, err := s.FetchSettings(ctx, u.ID, []string{"theme", "lang"})
		if err != nil {
			t.Fatalf("reopen %d: fetch settings: %v", round, err)
		}
		if diff := cmp.Diff(settings, gotSettings); diff != "" {
			t.Errorf("reopen %d: settings (-wrote +read):\n%s", round, diff)
		}
		// Still writable: the second round reads this back too.
		settings["lang"] = chat.Setting{Timestamp: int64(round), Value: "en"}
		if err := s.SetSettings(ctx, u.ID, map[string]chat.Setting{"lang": settings["lang"]}); err != nil {
			t.Fatalf("reopen %d: write: %v", round, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSynchronous checks that the durability setting reaches every
// connection: PRAGMA synchronous is 1 for NORMAL and 2 for FULL.
func TestSynchronous(t *testing.T) {
	for _, tc := range []struct{ opt, want string }{{"", "1"}, {sqlite.SyncNormal, "1"}, {sqlite.SyncFull, "2"}, {"full", "2"}} {
		s, err := sqlite.OpenWith(t.Context(), filepath.Join(t.TempDir(), "ermine.db"), sqlite.Options{Synchronous: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		w, r, err := s.ConnValue(t.Context(), "PRAGMA synchronous")
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if w != tc.want || r != tc.want {
			t.Errorf("synchronous %q: write pool %s, read pool %s, want %s", tc.opt, w, r, tc.want)
		}
	}
	if _, err := sqlite.OpenWith(t.Context(), filepath.Join(t.TempDir(), "x.db"), sqlite.Options{Synchronous: "OFF"}); err == nil {
		t.Error("synchronous OFF accepted")
	}
}

// BenchmarkInsertMessage measures one write transaction per message with
// each synchronous setting (docs/configuration.md, "Durability"):
// go test -run '^$' -bench InsertMessage -benchtime 2000x ./internal/store/sqlite/
func BenchmarkInsertMessage(b *testing.B) {
	for _, sync := range []string{sqlite.SyncNormal, sqlite.SyncFull} {
		b.Run(sync, func(b *testing.B) {
			s, err := sqlite.OpenWith(b.Context(), filepath.Join(b.TempDir(), "ermine.db"), sqlite.Options{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			channel, author := chat.NewID(), chat.NewID()
			content := "a message of ordinary length, about as long as most chat lines are"
			for b.Loop() {
				if err := s.InsertMessage(b.Context(), &chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: &content}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFetchSessionUser measures the read that authenticates every
// request and events connection, among 10,000 sessions.
func BenchmarkFetchSessionUser(b *testing.B) {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "ermine.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tokens := make([]string, 10000)
	for i := range tokens {
		u := &chat.User{ID: chat.NewID(), Username: "user" + strconv.Itoa(i), Discriminator: "0001"}
		if err := s.InsertUser(b.Context(), u); err != nil {
			b.Fatal(err)
		}
		tokens[i] = chat.NewToken(64)
		if err := s.InsertSession(b.Context(), &chat.Session{ID: chat.NewID(), UserID: u.ID, Token: tokens[i], Name: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		if _, _, err := s.FetchSessionUser(b.Context(), tokens[i%len(tokens)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkFetchSessionReadyFacts measures the read of a first events
// connection (its session, user and Ready facts) for a member of one
// server of 1,000 members, with a context that can be cancelled (as a
// request's) and with one that cannot (as the gateway's handshake):
// go test -run '^$' -bench SessionReadyFacts ./internal/store/sqlite/
func BenchmarkFetchSessionReadyFacts(b *testing.B) {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "ermine.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	seed := &testbed.Seeder{Store: s, Name: "bench"}
	users, err := seed.Users(b.Context(), 1000, testbed.UserOptions{Account: true, Invisible: true})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := seed.Server(b.Context(), users[0].ID, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := seed.Join(b.Context(), srv.ID, users, nil); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		ctx  context.Context
	}{{"cancellable", b.Context()}, {"uncancellable", context.WithoutCancel(b.Context())}} {
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				sr, err := s.FetchSessionReadyFacts(bc.ctx, users[i%len(users)].Token)
				if err != nil || len(sr.Facts.Servers) != 1 {
					b.Fatal(sr, err)
				}
				i++
			}
		})
	}
}

// TestIdleRelayReadsOnly: asking for relayed events when there are none
// must not take the write lock (an idle node asks twice a second); here
// another connection holds it, and the call still answers at once.
func TestIdleRelayReadsOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ermine.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	conn, err := raw.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), `ROLLBACK`) //nolint:errcheck // cleanup
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	start := time.Now()
	evs, err := s.TakeRelayEvents(ctx, 10, time.Now().Add(-time.Minute))
	if err != nil || len(evs) != 0 || time.Since(start) > time.Second {
		t.Fatalf("TakeRelayEvents with none kept = %v, %v after %s (waited for the write lock?)", evs, err, time.Since(start))
	}
}
