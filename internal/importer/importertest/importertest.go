// Package importertest is what the import benchmarks share: how big a
// run is (an environment variable), a new empty target to import into
// (SQLite, or a fresh PostgreSQL schema), and one timed import through
// the pipeline, reported as messages per second of the wall clock and of
// the process's CPU time (on a machine shared with other work the
// second says what the import costs).
package importertest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"ermine/internal/blob"
	"ermine/internal/blob/disk"
	"ermine/internal/importer"
	"ermine/internal/store"
	"ermine/internal/store/postgres"
	"ermine/internal/store/sqlite"
	"ermine/internal/testbed"
)

// Size is the number in the environment variable env, def when it is
// unset; a value that is not a number of at least least fails tb.
func Size(tb testing.TB, env string, def, least int) int {
	tb.Helper()
	s := os.Getenv(env)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		tb.Fatalf("%s=%q: want a number of at least %d", env, s, least)
	}
	return n
}

// Target is an empty instance to import into, closed when tb ends.
type Target struct {
	Store store.Store
	Blobs blob.Store
}

// Engine opens a new Target on one store engine.
type Engine func(tb testing.TB) *Target

// Engines are the store engines a benchmark imports into: SQLite, and
// PostgreSQL (a fresh schema per Target) when ERMINE_TEST_POSTGRES names
// a server.
func Engines() map[string]Engine {
	e := map[string]Engine{"sqlite": SQLite}
	if dsn := os.Getenv("ERMINE_TEST_POSTGRES"); dsn != "" {
		e["postgres"] = func(tb testing.TB) *Target { return Postgres(tb, dsn) }
	}
	return e
}

// SQLite is a new SQLite Target in a temporary directory.
func SQLite(tb testing.TB) *Target {
	tb.Helper()
	dir := tb.TempDir()
	st, err := sqlite.Open(context.Background(), dir+"/ermine.db")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return &Target{Store: st, Blobs: blobs(tb, dir)}
}

// Postgres is a new Target in a fresh schema of the PostgreSQL database
// at dsn, dropped when tb ends.
func Postgres(tb testing.TB, dsn string) *Target {
	tb.Helper()
	ctx := context.Background()
	url, drop, err := testbed.FreshSchema(ctx, dsn, "ermine_import_bench")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = drop() })
	st, err := postgres.Open(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return &Target{Store: st, Blobs: blobs(tb, tb.TempDir())}
}

func blobs(tb testing.TB, dir string) blob.Store {
	tb.Helper()
	b, err := disk.Open(dir + "/files")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Timing is what an import took, by the wall clock and in this
// process's CPU time.
type Timing struct {
	Wall, CPU time.Duration
}

// Add sums timings over a benchmark's iterations.
func (t *Timing) Add(u Timing) {
	t.Wall += u.Wall
	t.CPU += u.CPU
}

// Measure times fn.
func Measure(fn func() error) (Timing, error) {
	start, cpu := time.Now(), testbed.CPUTime()
	err := fn()
	return Timing{Wall: time.Since(start), CPU: testbed.CPUTime() - cpu}, err
}

// Import runs one whole import into t and times it: the pipeline begins
// with opt, read hands it the source's documents, and it finishes with
// its report.
func Import(tb testing.TB, t *Target, opt importer.Options, read func(context.Context, *importer.Pipeline) error) (*importer.Report, Timing) {
	tb.Helper()
	ctx := context.Background()
	var r *importer.Report
	took, err := Measure(func() error {
		p, err := importer.Begin(ctx, t.Store, t.Blobs, opt)
		if err != nil {
			return err
		}
		if err := read(ctx, p); err != nil {
			return err
		}
		r, err = p.Finish(ctx)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return r, took
}

// Report reports n messages over t as prefix+"msgs/s" and
// prefix+"msgs/cpu-s" (prefix "import-" or "export-" where a benchmark
// measures both).
func Report(b *testing.B, prefix string, n int64, t Timing) {
	b.ReportMetric(float64(n)/t.Wall.Seconds(), prefix+"msgs/s")
	b.ReportMetric(float64(n)/t.CPU.Seconds(), prefix+"msgs/cpu-s")
}

// Describe is one line for the log: n messages, the two speeds and the
// machine's load average (which says how far the wall clock can be
// trusted).
func Describe(name string, n int64, t Timing) string {
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil && len(strings.Fields(string(b))) >= 3 {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return fmt.Sprintf("%s: %d messages in %s: %.0f msg/s; %s of CPU: %.0f msg per CPU-second (load average %s)",
		name, n, t.Wall.Round(time.Millisecond), float64(n)/t.Wall.Seconds(), t.CPU.Round(time.Millisecond), float64(n)/t.CPU.Seconds(), load)
}
