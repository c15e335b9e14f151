package postgres_test

import (
	"database/sql"
	"testing"

	"ermine/internal/store"
	"ermine/internal/store/postgres"
	"ermine/internal/store/sqlstore"
	"ermine/internal/store/storetest"
)

// oldDatabase makes a database (a fresh schema) as an Ermine that shipped
// migrations up to upTo left it, and returns it raw and a way to open it
// with today's code.
func oldDatabase(t *testing.T, upTo int) (storetest.Raw, func() store.Store) {
	t.Helper()
	u := freshSchema(t, dsn(t))
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	raw := storetest.Raw{DB: db, Rebind: sqlstore.Rebind}
	storetest.ApplyMigrations(t, raw, "migrations", upTo)
	return raw, func() store.Store {
		s, err := postgres.Open(t.Context(), u)
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
