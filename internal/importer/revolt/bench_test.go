package revolt_test

import (
	"context"
	"testing"

	"ermine/internal/importer"
	"ermine/internal/importer/importertest"
	"ermine/internal/importer/revolt"
	"ermine/internal/importer/revolt/revolttest"
)

// BenchmarkImport imports a generated dump with ERMINE_BENCH_MESSAGES
// messages (default 20,000; the figure is taken with 1,000,000)
// into SQLite and, with ERMINE_TEST_POSTGRES, into PostgreSQL, and
// reports messages per second over the whole import. Run it alone:
//
//	ERMINE_BENCH_MESSAGES=1000000 go test -run NONE -bench Import -benchtime 1x ./internal/importer/revolt
func BenchmarkImport(b *testing.B) {
	n := importertest.Size(b, "ERMINE_BENCH_MESSAGES", 20_000, 1)
	f, err := revolttest.Write(b.TempDir(), revolttest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := revolttest.AppendMessages(f, n); err != nil {
		b.Fatal(err)
	}
	key, err := revolt.DecodeKey(f.Key)
	if err != nil {
		b.Fatal(err)
	}
	total := int64(n + len(f.Messages) + 1)
	for name, open := range importertest.Engines() {
		b.Run(name, func(b *testing.B) {
			var took importertest.Timing
			for range b.N {
				b.StopTimer()
				tg := open(b)
				d, err := revolt.OpenDump(f.Dump, "")
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				r, t := importertest.Import(b, tg, importer.Options{Source: "revolt"}, func(ctx context.Context, p *importer.Pipeline) error {
					return revolt.Import(ctx, p, d, revolt.Options{Files: f.Files, Key: key})
				})
				b.StopTimer()
				d.Close()
				if got := r.Imported("messages"); got != total {
					b.Fatalf("imported %d messages, want %d", got, total)
				}
				b.Log(importertest.Describe(name, total, t))
				took.Add(t)
			}
			importertest.Report(b, "", total*int64(b.N), took)
		})
	}
}
