package postgres_test

import (
	"database/sql"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/postgres"
	"ermine/internal/store/sqlstore"
	"ermine/internal/store/storetest"
)

// TestMigrateCompactMessages opens a database made by migrations
// 0001–0009 with today's code (storetest.MigrateCompactMessages).
func TestMigrateCompactMessages(t *testing.T) {
	u := freshSchema(t, dsn(t))
	raw, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	exec := func(q string, args ...any) error { _, err := raw.Exec(sqlstore.Rebind(q), args...); return err }
	storetest.ApplyMigrations(t, exec, "migrations", 9)
	storetest.MigrateCompactMessages(t, exec, func() store.Store {
		s, err := postgres.Open(t.Context(), u)
		if err != nil {
			t.Fatalf("open the old database: %v", err)
		}
		return s
	}, func(id chat.ID) string {
		var data string
		if err := raw.QueryRow(`SELECT data FROM messages WHERE id = $1`, id).Scan(&data); err != nil {
			t.Fatal(err)
		}
		return data
	})
}
