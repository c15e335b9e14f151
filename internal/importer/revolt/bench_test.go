package revolt_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ermine/internal/blob/disk"
	"ermine/internal/importer"
	"ermine/internal/importer/revolt"
	"ermine/internal/importer/revolt/revolttest"
	"ermine/internal/store"
	"ermine/internal/store/postgres"
	"ermine/internal/store/sqlite"
)

// BenchmarkImport imports a generated dump with ERMINE_BENCH_MESSAGES
// messages (default 20,000; the figure is taken with 1,000,000)
// into SQLite and, with ERMINE_TEST_POSTGRES, into PostgreSQL, and
// reports messages per second over the whole import. Run it alone:
//
//	ERMINE_BENCH_MESSAGES=1000000 go test -run NONE -bench Import -benchtime 1x ./internal/importer/revolt
func BenchmarkImport(b *testing.B) {
	n := 20_000
	if s := os.Getenv("ERMINE_BENCH_MESSAGES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	f, err := revolttest.Write(dir, revolttest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := revolttest.AppendMessages(f, n); err != nil {
		b.Fatal(err)
	}
	total := int64(n + len(f.Messages) + 1)
	engines := map[string]func(b *testing.B) store.Store{
		"sqlite": func(b *testing.B) store.Store {
			st, err := sqlite.Open(b.Context(), b.TempDir()+"/ermine.db")
			if err != nil {
				b.Fatal(err)
			}
			return st
		},
	}
	if dsn := os.Getenv("ERMINE_TEST_POSTGRES"); dsn != "" {
		engines["postgres"] = func(b *testing.B) store.Store {
			st, err := postgres.Open(b.Context(), freshSchema(b, dsn))
			if err != nil {
				b.Fatal(err)
			}
			return st
		}
	}
	for name, open := range engines {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				st := open(b)
				blobs, err := disk.Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				d, err := revolt.OpenDump(f.Dump, "")
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start, cpu0 := time.Now(), cpuTime()
				p, err := importer.Begin(b.Context(), st, blobs, importer.Options{Source: "revolt"})
				if err != nil {
					b.Fatal(err)
				}
				if err := revolt.Import(b.Context(), p, d, revolt.Options{Files: f.Files, Key: mustKey(b, f.Key)}); err != nil {
					b.Fatal(err)
				}
				r, err := p.Finish(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				took, cpu := time.Since(start), cpuTime()-cpu0
				b.StopTimer()
				if got := r.Imported("messages"); got != total {
					b.Fatalf("imported %d messages, want %d", got, total)
				}
				b.ReportMetric(float64(total)/took.Seconds(), "msg/s")
				b.ReportMetric(float64(total)/cpu.Seconds(), "msg/cpu-s")
				fmt.Fprintf(os.Stderr, "%s: %d messages in %s: %.0f msg/s; this process used %s of CPU: %.0f msg per CPU-second (load average %s)\n",
					name, total, took.Round(time.Millisecond), float64(total)/took.Seconds(), cpu.Round(time.Millisecond), float64(total)/cpu.Seconds(), loadAverage())
				st.Close()
				d.Close()
			}
		})
	}
}

func mustKey(b *testing.B, s string) []byte {
	k, err := revolt.DecodeKey(s)
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// cpuTime is the CPU time (user and system) this process has used: on a
// machine shared with other work it says more than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
