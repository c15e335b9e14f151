package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"ermine/internal/store"
	"ermine/internal/store/sqlite"
	"ermine/internal/store/storetest"
)

// oldDatabase makes a database as an Ermine that shipped migrations up to
// upTo left it, and returns it raw and a way to open it with today's code.
func oldDatabase(t *testing.T, upTo int) (storetest.Raw, func() store.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	raw := storetest.Raw{DB: db, Rebind: func(q string) string { return q }}
	storetest.ApplyMigrations(t, raw, "migrations", upTo)
	return raw, func() store.Store {
		s, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatalf("open the old database: %v", err)
		}
		return s
	}
}

// TestMigrations opens databases of older schemas with today's code
// (storetest.RunMigrations).
func TestMigrations(t *testing.T) {
	storetest.RunMigrations(t, "migrations", oldDatabase)
}
