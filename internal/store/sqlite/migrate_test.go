package sqlite_test

import (
	"database/sql"
	"path/filepath"
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
