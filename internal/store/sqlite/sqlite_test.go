package sqlite_test

import (
	"path/filepath"
	"testing"

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

// TestReopen checks migrations are applied once and data survives a restart.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ermine.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetSettings(t.Context(), "01ARZ3NDEKTSV4RRFFQ69G5FAV", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if err := s.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
}
