package discord_test

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
	"ermine/internal/importer/discord"
	"ermine/internal/importer/discord/discordtest"
	"ermine/internal/store/sqlite"
)

// BenchmarkImportDiscord imports a generated guild of
// ERMINE_BENCH_DISCORD_MESSAGES messages (default 100,000: 20 channels
// of 5,000, no media) into a new SQLite store per iteration and reports
// messages per second. Bounded: run it with -benchtime=1x.
//
//	go test -run '^$' -bench ImportDiscord -benchtime=1x ./internal/importer/discord/
func BenchmarkImportDiscord(b *testing.B) {
	total := 100_000
	if s := os.Getenv("ERMINE_BENCH_DISCORD_MESSAGES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1000 {
			b.Fatalf("ERMINE_BENCH_DISCORD_MESSAGES=%q: want a number of at least 1000", s)
		}
		total = n
	}
	chans := 20
	fx, err := discordtest.Write(b.TempDir(), discordtest.Options{Messages: total / (chans + len(fixedChannels)), ExtraChannels: chans})
	if err != nil {
		b.Fatal(err)
	}
	files, err := discord.Find([]string{fx.Dir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	var msgs int64
	var elapsed, cpu time.Duration
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		st, err := sqlite.Open(ctx, dir+"/ermine.db")
		if err != nil {
			b.Fatal(err)
		}
		blobs, err := disk.Open(dir + "/files")
		if err != nil {
			b.Fatal(err)
		}
		owner := &chat.User{ID: chat.NewID(), Username: "owner", Discriminator: "0001"}
		if err := st.InsertUser(ctx, owner); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "discord", Into: true})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		sum, err := discord.Import(ctx, p, files, discord.Options{ServerName: "Bench", Owner: owner.ID, DefaultPermissions: 0,
			Name: func(_ context.Context, name, _ string, _ map[string]bool) (string, string, error) {
				n++
				return name, fmt.Sprintf("%04d", 2+n), nil
			}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Finish(ctx); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		cpu += cpuTime() - cpu0
		msgs += sum.Messages
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(msgs)/elapsed.Seconds(), "msgs/s")
	// On a machine shared with other work the wall clock says little;
	// messages per second of this process's CPU time say what one core
	// of its own would do.
	b.ReportMetric(float64(msgs)/cpu.Seconds(), "msgs/cpu-s")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fixedChannels are the channels discordtest always writes.
var fixedChannels = []string{"general", "random", "announcements", "help-with-setup"}
