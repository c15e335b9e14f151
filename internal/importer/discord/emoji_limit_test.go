package discord_test

import (
	"context"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/importer"
	"ermine/internal/importer/discord"
	"ermine/internal/importer/discord/discordtest"
	"ermine/internal/importer/importertest"
	"ermine/internal/store"
)

// TestImportEmojiLimit imports with room for one custom emoji: the most
// used one is kept (reactions with it too), the others are reported,
// and a second run keeps the same one.
func TestImportEmojiLimit(t *testing.T) {
	fx, err := discordtest.Write(t.TempDir(), discordtest.Options{Media: true, Messages: 30})
	if err != nil {
		t.Fatal(err)
	}
	files, err := discord.Find([]string{fx.Dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tg := importertest.SQLite(t)
	st := tg.Store
	owner := &chat.User{ID: chat.NewID(), Username: "owner", Discriminator: "0001"}
	if err := st.InsertUser(ctx, owner); err != nil {
		t.Fatal(err)
	}
	opt := discord.Options{ServerName: "Limited", Owner: owner.ID, EmojiLimit: 1, Name: numbered()}
	for run := range 2 {
		var sum *discord.Summary
		rep, _ := importertest.Import(t, tg, importer.Options{Source: "discord", Into: true}, func(ctx context.Context, p *importer.Pipeline) error {
			var err error
			sum, err = discord.Import(ctx, p, files, opt)
			return err
		})
		es, err := st.FetchServerEmojis(ctx, []chat.ID{sum.Server})
		if err != nil {
			t.Fatal(err)
		}
		// "Blob Cat!" and "blob_cat" are used as often as the missing
		// one and more than partyparrot; the lower id wins the tie.
		if len(es) != 1 || es[0].Name != "blob_cat" {
			t.Fatalf("run %d: server emoji %+v, want blob_cat alone", run, es)
		}
		kept := es[0].ID
		if run == 0 {
			if got := rep.Skipped("emoji", "beyond the server's limit of 1"); got != 2 {
				t.Errorf("%d emoji reported beyond the limit, want 2", got)
			}
			if got := rep.Skipped("emoji", "image is not in the export"); got != 1 {
				t.Errorf("%d emoji reported without an image, want 1", got)
			}
		}
		chans, err := st.FetchServerChannels(ctx, sum.Server)
		if err != nil {
			t.Fatal(err)
		}
		with := 0
		for _, ch := range chans {
			msgs, err := st.FetchMessages(ctx, store.MessageQuery{Channel: ch.ID, Sort: store.SortOldest, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				for key := range m.Reactions {
					switch {
					case key == string(kept):
						with++
					case key != "👍":
						t.Errorf("message %s keeps a reaction %q", m.ID, key)
					}
				}
			}
		}
		if with == 0 {
			t.Error("no reaction with the kept emoji")
		}
	}
}
