package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/postgres"
	"ermine/internal/store/storetest"
	"ermine/internal/testbed"
)

// openFreshSchema opens a store in a new, empty schema of the database at
// dsn and drops the schema when the test ends.
func openFreshSchema(t *testing.T, dsn string) store.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), freshSchema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// freshSchema creates a new, empty schema in the database at dsn, dropped
// when the test ends, and returns a URL whose search_path selects it.
func freshSchema(t *testing.T, dsn string) string { return testbed.Schema(t, dsn) }

// dsn returns the test database, skipping when none is configured except
// in CI, where a missing database is a failure.
func dsn(t *testing.T) string {
	d := os.Getenv("ERMINE_TEST_POSTGRES")
	if d == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("ERMINE_TEST_POSTGRES not set in CI")
		}
		t.Skip("ERMINE_TEST_POSTGRES not set; set it to a postgres:// URL to run the PostgreSQL suite")
	}
	if !strings.HasPrefix(d, "postgres") {
		t.Fatalf("ERMINE_TEST_POSTGRES = %q, want a postgres:// URL", d)
	}
	return d
}

func TestConformance(t *testing.T) {
	d := dsn(t)
	storetest.Run(t, func(t *testing.T) store.Store { return openFreshSchema(t, d) })
}

// TestWarm: the pool opens every connection at once, each having run the
// statements of nearly every request, and the store works after it.
func TestWarm(t *testing.T) {
	d := dsn(t)
	name := "ermine_warm_" + strings.ToLower(string(chat.NewID()))
	u, err := url.Parse(freshSchema(t, d))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	s, err := postgres.Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Warm(t.Context(), postgres.Conns); err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("pgx", d)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var n int
	if err := admin.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != postgres.Conns {
		t.Errorf("%d connections open after Warm, want %d", n, postgres.Conns)
	}
	if _, _, err := s.FetchSessionUser(t.Context(), "no such token"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("FetchSessionUser after Warm: %v, want ErrNotFound", err)
	}

	// A warm-up that cannot finish says how much of it failed.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Warm(ctx, 2); err == nil || !strings.Contains(err.Error(), "2 of 2 connections") || !errors.Is(err, context.Canceled) {
		t.Errorf("Warm with a cancelled context: %v", err)
	}
}
