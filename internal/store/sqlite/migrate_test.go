package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
	"ermine/internal/store/storetest"
)

// TestMigrateCompactMessages opens a database made by migrations
// 0001–0009 with today's code (storetest.MigrateCompactMessages).
func TestMigrateCompactMessages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	exec := func(q string, args ...any) error { _, err := raw.Exec(q, args...); return err }
	storetest.ApplyMigrations(t, exec, "migrations", 9)
	storetest.MigrateCompactMessages(t, exec, func() store.Store {
		s, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatalf("open the old database: %v", err)
		}
		return s
	}, func(id chat.ID) string {
		var data string
		if err := raw.QueryRow(`SELECT data FROM messages WHERE id = ?`, id).Scan(&data); err != nil {
			t.Fatal(err)
		}
		return data
	})
}

// TestMigrateFromFirstRelease opens a database of Ermine's first release
// (migrations 0001–0003) with today's code.
func TestMigrateFromFirstRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "first.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	exec := func(q string, args ...any) error { _, err := raw.Exec(q, args...); return err }
	storetest.ApplyMigrations(t, exec, "migrations", 3)
	storetest.MigrateFromFirstRelease(t, exec, func() store.Store {
		s, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatalf("open the first release's database: %v", err)
		}
		return s
	}, shipped(t), func() []int { return recorded(t, raw) })
}

// shipped lists the migration numbers in migrations/.
func shipped(t *testing.T) []int {
	t.Helper()
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range files {
		v, err := strconv.Atoi(filepath.Base(f)[:4])
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, v)
	}
	return out
}

// recorded lists the migration numbers the database has applied.
func recorded(t *testing.T, db *sql.DB) []int {
	t.Helper()
	rows, err := db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
