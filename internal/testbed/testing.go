package testbed

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BuildErmine builds cmd/ermine into the test's temporary directory and
// returns the binary's path.
func BuildErmine(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ermine")
	if err := Build(t.Context(), "ermine/cmd/ermine", bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Ermine runs bin as StartErmine does, failing the test if it does not
// start. The test's end stops it (an error if it does not stop well) and,
// when the test failed, prints its log.
func Ermine(t testing.TB, bin, data string, env ...string) *Process {
	t.Helper()
	p, err := StartErmine(t.Context(), bin, data, env...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("node %s: %v", p.Addr, err)
		}
		if t.Failed() {
			t.Logf("log of node %s:\n%s", p.Addr, p.Log())
		}
	})
	return p
}

// Postgres is the PostgreSQL URL of ERMINE_TEST_POSTGRES. Without it the
// test is skipped, or fails under CI (CI set), where it must be set.
func Postgres(t testing.TB) string {
	t.Helper()
	return Env(t, "ERMINE_TEST_POSTGRES")[0]
}

// Env returns the values of the environment variables names, all of
// which the test needs: it is skipped without one of them, or fails
// under CI (CI set), where they must be set.
func Env(t testing.TB, names ...string) []string {
	t.Helper()
	values := make([]string, len(names))
	for i, n := range names {
		if values[i] = os.Getenv(n); values[i] == "" {
			msg := "the test needs " + n + " (docs/testing.md)"
			if os.Getenv("CI") != "" {
				t.Fatal(msg + "; it must be set under CI")
			}
			t.Skip(msg)
		}
	}
	return values
}

// Database creates a fresh database on the PostgreSQL server of dsn,
// dropped when the test ends (closing what is still connected), and
// returns its URL.
func Database(t testing.TB, dsn string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, drop, err := FreshDatabase(ctx, dsn, "ermine_test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("drop database: %v", err)
		}
	})
	return db
}

// Schema creates a fresh schema in the PostgreSQL database at dsn,
// dropped when the test ends, and returns a URL selecting it.
func Schema(t testing.TB, dsn string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, drop, err := FreshSchema(ctx, dsn, "ermine_test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	return u
}
