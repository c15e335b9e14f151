package storetest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ermine/internal/chat"
	"ermine/internal/store"
)

func testImports(t *testing.T, s store.Store) {
	c := ctx(t)
	if _, err := s.FetchImport(c); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("FetchImport on a fresh store = %v, want ErrNotFound", err)
	}
	must(t, s.DeleteImport(c)) // nothing to remove is fine

	st := &store.ImportState{
		Source: "revolt", Command: "ermine import revolt --dump /d", Started: chat.TimeFromMillis(1700000000123),
		Done: map[string]int64{"users": 3}, Imported: map[string]int64{"users": 2},
		Skipped: map[string]map[string]int64{"users": {"duplicate username": 1}},
	}
	must(t, s.SetImport(c, st))
	st.Done["users"], st.Complete = 5, []string{"users"}
	must(t, s.SetImport(c, st)) // replaces, never a second row
	got, err := s.FetchImport(c)
	must(t, err)
	if d := cmp.Diff(st, got); d != "" {
		t.Errorf("FetchImport (-want +got):\n%s", d)
	}

	// A marker written in a transaction that rolls back is not kept.
	boom := errors.New("boom")
	err = s.InTx(c, func(tx store.Store) error {
		must(t, tx.SetImport(c, &store.ImportState{Source: "other", Done: map[string]int64{}}))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v", err)
	}
	if got, _ := s.FetchImport(c); got == nil || got.Source != "revolt" {
		t.Errorf("after rollback marker = %+v, want the committed one", got)
	}

	must(t, s.DeleteImport(c))
	if _, err := s.FetchImport(c); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("FetchImport after DeleteImport = %v, want ErrNotFound", err)
	}
}
