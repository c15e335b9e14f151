package bulk_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/importer"
	"ermine/internal/importer/bulk"
	"ermine/internal/importer/importertest"
	"ermine/internal/store"
)

// BenchmarkBulkRoundTrip fills a SQLite store with
// ERMINE_BENCH_BULK_MESSAGES messages (default 200,000, in 10 channels of
// a server of 50 members), exports it to a directory and imports that
// into a new SQLite store, reporting both speeds (wall clock and per
// second of the process's CPU time). Bounded: run it with -benchtime=1x.
//
//	go test -run '^$' -bench BulkRoundTrip -benchtime=1x ./internal/importer/bulk/
func BenchmarkBulkRoundTrip(b *testing.B) {
	total := importertest.Size(b, "ERMINE_BENCH_BULK_MESSAGES", 200_000, 1000)
	ctx := context.Background()
	src := importertest.SQLite(b)
	seed(b, src.Store, total)
	b.ResetTimer()
	var exp, imp importertest.Timing
	for i := range b.N {
		dir := fmt.Sprintf("%s/export-%d/", b.TempDir(), i)
		sink, err := bulk.Create(dir)
		if err != nil {
			b.Fatal(err)
		}
		var counts map[string]int64
		t, err := importertest.Measure(func() error {
			var err error
			if counts, err = bulk.Export(ctx, src.Store, src.Blobs, sink, bulk.ExportOptions{Generator: "bench"}); err != nil {
				return err
			}
			return sink.Close()
		})
		if err != nil {
			b.Fatal(err)
		}
		exp.Add(t)
		if counts[bulk.TypeMessage] != int64(total) {
			b.Fatalf("exported %d messages, want %d", counts[bulk.TypeMessage], total)
		}

		b.StopTimer()
		to := importertest.SQLite(b)
		b.StartTimer()
		r, t := importertest.Import(b, to, importer.Options{Source: "bulk"}, func(ctx context.Context, p *importer.Pipeline) error {
			_, err := bulk.Import(ctx, p, dir)
			return err
		})
		imp.Add(t)
		if r.Imported("messages") != int64(total) {
			b.Fatalf("imported %d messages, want %d", r.Imported("messages"), total)
		}
	}
	n := int64(total * b.N)
	importertest.Report(b, "export-", n, exp)
	importertest.Report(b, "import-", n, imp)
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
