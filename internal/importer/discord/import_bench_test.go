package discord_test

import (
	"context"
	"fmt"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/importer"
	"ermine/internal/importer/discord"
	"ermine/internal/importer/discord/discordtest"
	"ermine/internal/importer/importertest"
)

// BenchmarkImportDiscord imports a generated guild of
// ERMINE_BENCH_DISCORD_MESSAGES messages (default 100,000: 20 channels
// of 5,000, no media) into a new SQLite store per iteration (and a
// PostgreSQL schema with ERMINE_TEST_POSTGRES) and reports messages per
// second. Bounded: run it with -benchtime=1x.
//
//	go test -run '^$' -bench ImportDiscord -benchtime=1x ./internal/importer/discord/
func BenchmarkImportDiscord(b *testing.B) {
	total := importertest.Size(b, "ERMINE_BENCH_DISCORD_MESSAGES", 100_000, 1000)
	chans := 20
	fx, err := discordtest.Write(b.TempDir(), discordtest.Options{Messages: total / (chans + len(fixedChannels)), ExtraChannels: chans})
	if err != nil {
		b.Fatal(err)
	}
	files, err := discord.Find([]string{fx.Dir})
	if err != nil {
		b.Fatal(err)
	}
	for name, open := range importertest.Engines() {
		b.Run(name, func(b *testing.B) {
			var msgs int64
			var took importertest.Timing
			for range b.N {
				b.StopTimer()
				tg := open(b)
				owner := &chat.User{ID: chat.NewID(), Username: "owner", Discriminator: "0001"}
				if err := tg.Store.InsertUser(context.Background(), owner); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				var sum *discord.Summary
				_, t := importertest.Import(b, tg, importer.Options{Source: "discord", Into: true}, func(ctx context.Context, p *importer.Pipeline) error {
					var err error
					sum, err = discord.Import(ctx, p, files, discord.Options{ServerName: "Bench", Owner: owner.ID, Name: numbered()})
					return err
				})
				b.StopTimer()
				msgs += sum.Messages
				took.Add(t)
			}
			importertest.Report(b, "", msgs, took)
		})
	}
}

// numbered gives every author its own name as is and the next
// discriminator.
func numbered() func(context.Context, string, string, map[string]bool) (string, string, error) {
	n := 0
	return func(_ context.Context, name, _ string, _ map[string]bool) (string, string, error) {
		n++
		return name, fmt.Sprintf("%04d", 2+n), nil
	}
}

// fixedChannels are the channels discordtest always writes.
var fixedChannels = []string{"general", "random", "announcements", "help-with-setup"}
