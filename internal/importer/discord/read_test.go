package discord_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"ermine/internal/importer/discord"
	"ermine/internal/importer/discord/discordtest"
)

func TestReadFixture(t *testing.T) {
	for _, media := range []bool{false, true} {
		t.Run(map[bool]string{false: "remote", true: "media"}[media], func(t *testing.T) {
			dir := t.TempDir()
			fx, err := discordtest.Write(dir, discordtest.Options{Media: media})
			if err != nil {
				t.Fatal(err)
			}
			files, err := discord.Find([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(fx.Files) {
				t.Fatalf("Find: %d files, want %d", len(files), len(fx.Files))
			}
			for _, path := range fx.Files {
				h, err := discord.ReadHeader(path)
				if err != nil {
					t.Fatal(err)
				}
				var want *discord.Header
				for i := range fx.Channels {
					if fx.Channels[i].Channel.ID == h.Channel.ID {
						want = &fx.Channels[i]
					}
				}
				if want == nil {
					t.Fatalf("%s: channel %s not written", path, h.Channel.ID)
				}
				if d := cmp.Diff(want.Channel, h.Channel); d != "" {
					t.Errorf("header (-want +got):\n%s", d)
				}
				var got []discord.Message
				r, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				err = discord.Read(r, nil, func(m *discord.Message) error {
					got = append(got, *m)
					return nil
				})
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(fx.Messages[h.Channel.ID], got); d != "" {
					t.Errorf("messages (-want +got):\n%s", d)
				}
				for _, m := range got {
					ts, err := discord.ParseTime(m.Timestamp)
					if err != nil {
						t.Fatal(err)
					}
					st, ok := discord.SnowflakeTime(m.ID)
					if !ok || !st.Equal(ts) {
						t.Fatalf("message %s: snowflake time %v, timestamp %v", m.ID, st, ts)
					}
				}
			}
			if media {
				for rel, data := range fx.Media {
					b, err := os.ReadFile(filepath.Join(dir, rel))
					if err != nil || string(b) != string(data) {
						t.Fatalf("media %s: %q, %v", rel, b, err)
					}
				}
			}
		})
	}
}

// TestReadFeatures checks the fixture holds every feature the importer
// maps, so the import tests exercise each.
func TestReadFeatures(t *testing.T) {
	fx, err := discordtest.Write(t.TempDir(), discordtest.Options{Media: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, h := range fx.Channels {
		if h.Channel.IsThread() {
			seen["thread"] = true
		}
		for _, m := range fx.Messages[h.Channel.ID] {
			seen["edit"] = seen["edit"] || m.TimestampEdited != nil
			seen["pin"] = seen["pin"] || m.IsPinned
			seen["reply"] = seen["reply"] || m.Reference != nil
			seen["mention"] = seen["mention"] || len(m.Mentions) > 0
			seen["attachment"] = seen["attachment"] || len(m.Attachments) > 0
			seen["embed"] = seen["embed"] || len(m.Embeds) > 0
			seen["sticker"] = seen["sticker"] || len(m.Stickers) > 0
			seen["bot"] = seen["bot"] || m.Author.IsBot
			seen["emoji in text"] = seen["emoji in text"] || len(m.InlineEmojis) > 0
			for _, r := range m.Reactions {
				seen["reaction users"] = seen["reaction users"] || len(r.Users) > 0
				seen["custom emoji"] = seen["custom emoji"] || r.Emoji.ID != ""
			}
		}
	}
	for _, f := range []string{"thread", "edit", "pin", "reply", "mention", "attachment", "embed", "sticker", "bot", "reaction users", "custom emoji", "emoji in text"} {
		if !seen[f] {
			t.Errorf("fixture has no %s", f)
		}
	}
}

func TestReadBadInput(t *testing.T) {
	for _, tc := range []struct{ name, doc string }{
		{"empty", ""},
		{"array", `[{"id":"1"}]`},
		{"other json", `{"hello":"world"}`},
		{"no channel", `{"guild":{"id":"1","name":"g"},"messages":[]}`},
		{"messages not array", `{"guild":{"id":"1","name":"g"},"channel":{"id":"2","name":"c"},"messages":{}}`},
		{"truncated", `{"guild":{"id":"1","name":"g"},"channel":{"id":"2","name":"c"},"messages":[{"id":"3","timestamp":"2020-01-01T00:00:00+00:00"}`},
		{"message without timestamp", `{"guild":{"id":"1","name":"g"},"channel":{"id":"2","name":"c"},"messages":[{"id":"3"}]}`},
		{"bad field type", `{"guild":{"id":"1","name":"g"},"channel":{"id":"2","name":"c"},"messages":[{"id":"3","timestamp":"x","isPinned":"yes"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := discord.Read(strings.NewReader(tc.doc), nil, nil)
			if !errors.Is(err, discord.ErrNotExport) {
				t.Fatalf("Read: %v, want ErrNotExport", err)
			}
		})
	}
	t.Run("callback error", func(t *testing.T) {
		boom := errors.New("boom")
		doc := `{"guild":{"id":"1","name":"g"},"channel":{"id":"2","name":"c"},"messages":[{"id":"3","timestamp":"2020-01-01T00:00:00+00:00"}]}`
		if err := discord.Read(strings.NewReader(doc), nil, func(*discord.Message) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("Read: %v, want the callback's error", err)
		}
	})
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2020-06-01T10:00:00+00:00":         time.Date(2020, 6, 1, 10, 0, 0, 0, time.UTC),
		"2020-06-01T12:00:00.123+02:00":     time.Date(2020, 6, 1, 10, 0, 0, 123e6, time.UTC),
		"2020-06-01T05:00:00.1234567-05:00": time.Date(2020, 6, 1, 10, 0, 0, 123456700, time.UTC),
	} {
		got, err := discord.ParseTime(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, ok := discord.SnowflakeTime("not a number"); ok {
		t.Error("SnowflakeTime accepted a non-number")
	}
}
