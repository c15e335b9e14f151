package sqlite_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"ermine/internal/store"
	"ermine/internal/store/sqlite"
	"ermine/internal/store/sqlstore"
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

// TestNewerSchemaRefused opens a database that a newer Ermine migrated
// (a migration this binary lacks): Open refuses it, naming both schema
// versions, and changes nothing.
func TestNewerSchemaRefused(t *testing.T) {
	for _, tc := range []struct{ name, migration string }{
		{"newer", "9999_from_the_future.sql"},
		{"unknown in between", "0005_x_from_a_fork.sql"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ermine.db")
			s, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			version := tc.migration[:4]
			if _, err := db.Exec(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, 9999, tc.migration); tc.name == "newer" && err != nil {
				t.Fatal(err)
			}
			if tc.name != "newer" {
				// A fork's migration under a number this binary also uses
				// is not told apart by number; one it lacks is.
				if _, err := db.Exec(`UPDATE schema_migrations SET version = 5000, name = ? WHERE version = 9999`, tc.migration); err != nil {
					t.Fatal(err)
				}
				version = "5000"
			}
			_, err = sqlite.Open(t.Context(), path)
			if !errors.Is(err, sqlstore.ErrSchemaTooNew) {
				t.Fatalf("open = %v, want ErrSchemaTooNew", err)
			}
			for _, want := range []string{"schema version " + strings.TrimLeft(version, "0"), tc.migration} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n < 2 {
				t.Errorf("migrations after the refusal: %d, %v", n, err)
			}
		})
	}
}
