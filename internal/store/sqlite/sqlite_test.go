package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
	"ermine/internal/store/storetest"
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
