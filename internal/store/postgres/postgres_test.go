package postgres_test

import (
	"os"
	"strings"
	"testing"

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
