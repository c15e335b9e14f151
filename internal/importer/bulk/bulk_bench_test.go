package bulk_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"ermine/internal/blob/disk"
	"ermine/internal/chat"
	"ermine/internal/importer"
	"ermine/internal/importer/bulk"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

// BenchmarkBulkRoundTrip fills a SQLite store with
// ERMINE_BENCH_BULK_MESSAGES messages (default 200,000, in 10 channels of
// a server of 50 members), exports it to a directory and imports that
// into a new SQLite store, reporting both speeds (wall clock and per
// second of the process's CPU time). Bounded: run it with -benchtime=1x.
//
//	go test -run '^$' -bench BulkRoundTrip -benchtime=1x ./internal/importer/bulk/
func BenchmarkBulkRoundTrip(b *testing.B) {
	total := 200_000
	if s := os.Getenv("ERMINE_BENCH_BULK_MESSAGES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1000 {
			b.Fatalf("ERMINE_BENCH_BULK_MESSAGES=%q: want a number of at least 1000", s)
		}
		total = n
	}
	ctx := context.Background()
	src := b.TempDir()
	st := openStore(b, src)
	blobs, err := disk.Open(src + "/files")
	if err != nil {
		b.Fatal(err)
	}
	seed(b, st, total)
	b.ResetTimer()
	var exp, imp, expCPU, impCPU time.Duration
	for i := range b.N {
		dir := fmt.Sprintf("%s/export-%d/", b.TempDir(), i)
		sink, err := bulk.Create(dir)
		if err != nil {
			b.Fatal(err)
		}
		start, cpu0 := time.Now(), cpuTime()
		counts, err := bulk.Export(ctx, st, blobs, sink, bulk.ExportOptions{Generator: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if err := sink.Close(); err != nil {
			b.Fatal(err)
		}
		exp += time.Since(start)
		expCPU += cpuTime() - cpu0
		if counts[bulk.TypeMessage] != int64(total) {
			b.Fatalf("exported %d messages, want %d", counts[bulk.TypeMessage], total)
		}

		b.StopTimer()
		dst := b.TempDir()
		to := openStore(b, dst)
		toBlobs, err := disk.Open(dst + "/files")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, cpu0 = time.Now(), cpuTime()
		p, err := importer.Begin(ctx, to, toBlobs, importer.Options{Source: "bulk"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bulk.Import(ctx, p, dir); err != nil {
			b.Fatal(err)
		}
		r, err := p.Finish(ctx)
		if err != nil {
			b.Fatal(err)
		}
		imp += time.Since(start)
		impCPU += cpuTime() - cpu0
		if r.Imported("messages") != int64(total) {
			b.Fatalf("imported %d messages, want %d", r.Imported("messages"), total)
		}
	}
	n := float64(total * b.N)
	b.ReportMetric(n/exp.Seconds(), "export-msgs/s")
	b.ReportMetric(n/expCPU.Seconds(), "export-msgs/cpu-s")
	b.ReportMetric(n/imp.Seconds(), "import-msgs/s")
	b.ReportMetric(n/impCPU.Seconds(), "import-msgs/cpu-s")
}

func openStore(b *testing.B, dir string) store.Store {
	b.Helper()
	st, err := sqlite.Open(context.Background(), dir+"/ermine.db")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// seed writes a server of 50 members and total messages in 10 channels.
func seed(b *testing.B, st store.Store, total int) {
	b.Helper()
	ctx := context.Background()
	users := make([]chat.ID, 50)
	for i := range users {
		users[i] = chat.NewID()
		if err := st.InsertUser(ctx, &chat.User{ID: users[i], Username: fmt.Sprintf("user%d", i), Discriminator: "0001"}); err != nil {
			b.Fatal(err)
		}
	}
	s := &chat.Server{ID: chat.NewID(), Owner: users[0], Name: "bench"}
	for range 10 {
		c := &chat.Channel{ID: chat.NewID(), ChannelType: chat.ChannelText, Server: s.ID, Name: "channel"}
		if err := st.InsertChannel(ctx, c); err != nil {
			b.Fatal(err)
		}
		s.Channels = append(s.Channels, c.ID)
	}
	if err := st.InsertServer(ctx, s); err != nil {
		b.Fatal(err)
	}
	for _, u := range users {
		if err := st.InsertMember(ctx, &chat.Member{ID: chat.MemberID{Server: s.ID, User: u}, JoinedAt: chat.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]*chat.Message, 0, 200)
	for i := range total {
		content := fmt.Sprintf("message number %d, with a few words of text as people write them", i)
		batch = append(batch, &chat.Message{ID: chat.NewIDAt(t0.Add(time.Duration(i) * time.Second)), Channel: s.Channels[i%10],
			Author: users[i%len(users)], Content: &content})
		if len(batch) == cap(batch) || i == total-1 {
			if err := st.InsertMessages(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
