// Package discordtest writes DiscordChatExporter JSON exports for tests
// and benchmarks: a guild of channels under categories, with a thread,
// and messages carrying every feature the importer maps (edits, pins,
// replies, reactions with their users, mentions, attachments (as local
// media or remote addresses), embeds, stickers, notices). The shape is
// the tool's documented JSON output; the content is generated,
// deterministic for given Options.
package discordtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"ermine/internal/importer/discord"
)

// Options choose what Write generates.
type Options struct {
	// Messages is how many messages each channel gets (default 40).
	Messages int
	// ExtraChannels adds that many plain text channels after the fixed
	// ones (for benchmarks: many channels of Messages each).
	ExtraChannels int
	// Media writes attachments and avatars as local files next to the
	// exports (as the tool's --media option does); without it they are
	// Discord addresses.
	Media bool
	// Users is how many distinct authors write (default 6, one a bot).
	Users int
	// Start is the first message's time (default 2019-03-04 12:00:00.123 UTC).
	Start time.Time
}

// Fixture is what Write wrote.
type Fixture struct {
	Dir   string
	Files []string // one per channel, in the guild's channel order
	Guild discord.Guild
	// Channels are the headers in the guild's order (Position order).
	Channels []discord.Header
	// Messages holds each channel's messages by channel id, in file order.
	Messages map[string][]discord.Message
	// Users are the authors by Discord id.
	Users map[string]discord.Author
	// Media maps the relative path of each local file to its bytes.
	Media map[string][]byte
}

// chanSpec is one fixed channel.
type chanSpec struct {
	name, typ, category, topic string
	offset                     string // the timestamps' UTC offset
}

var fixed = []chanSpec{
	{"general", discord.ChannelText, "Text Channels", "Talk about anything", "+00:00"},
	{"random", discord.ChannelText, "Text Channels", "", "+02:00"},
	{"announcements", discord.ChannelNews, "Info", "News of the guild", "-05:00"},
	{"help-with-setup", discord.ChannelPublicThread, "general", "", "+00:00"},
}

// Write writes the export files into dir and returns what they hold.
func Write(dir string, o Options) (*Fixture, error) {
	if o.Messages <= 0 {
		o.Messages = 40
	}
	if o.Users <= 0 {
		o.Users = 6
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2019, 3, 4, 12, 0, 0, 123e6, time.UTC)
	}
	f := &Fixture{Dir: dir, Messages: map[string][]discord.Message{}, Users: map[string]discord.Author{}, Media: map[string][]byte{}}
	rnd := rand.New(rand.NewPCG(uint64(o.Messages), uint64(o.ExtraChannels)))
	f.Guild = discord.Guild{ID: snowflake(o.Start.Add(-1000*time.Hour), 1), Name: "Test Guild", IconURL: "https://cdn.discordapp.com/icons/1/a.png"}

	roles := []discord.Role{{ID: snowflake(o.Start.Add(-900*time.Hour), 2), Name: "Moderator", Color: "#E91E63", Position: 2}}
	users := make([]discord.Author, o.Users)
	for i := range users {
		id := snowflake(o.Start.Add(-time.Duration(800-i)*time.Hour), uint64(i))
		users[i] = discord.Author{ID: id, Name: fmt.Sprintf("user%d", i), Discriminator: "0000", Nickname: fmt.Sprintf("User %d", i),
			AvatarURL: "https://cdn.discordapp.com/avatars/" + id + "/a.png"}
		if i == 0 {
			users[i].Roles = roles
			users[i].Color = "#E91E63"
		}
		if i == o.Users-1 {
			users[i].IsBot = true
			users[i].Name = "helper-bot"
			users[i].Nickname = "Helper Bot"
			users[i].Discriminator = "4821"
		}
		f.Users[id] = users[i]
	}

	specs := append([]chanSpec(nil), fixed...)
	for i := range o.ExtraChannels {
		specs = append(specs, chanSpec{fmt.Sprintf("extra-%d", i), discord.ChannelText, "More", "", "+00:00"})
	}
	t := o.Start
	for ci, sp := range specs {
		h := discord.Header{Guild: f.Guild, Channel: discord.Channel{
			ID: snowflake(o.Start.Add(-time.Duration(500-ci)*time.Hour), uint64(ci)), Type: sp.typ,
			CategoryID: snowflake(o.Start.Add(-600*time.Hour), uint64(len(sp.category))), Category: sp.category, Name: sp.name,
		}, ExportedAt: "2024-01-01T00:00:00+00:00"}
		if sp.topic != "" {
			h.Channel.Topic = &sp.topic
		}
		pos := ci
		h.Channel.Position = &pos
		loc, _ := time.Parse("-07:00", sp.offset)
		file := filepath.Join(dir, fmt.Sprintf("Test Guild - %s - %s [%s].json", sp.category, sp.name, h.Channel.ID))
		media := filepath.Base(file) + "_Files"
		var msgs []discord.Message
		for i := range o.Messages {
			t = t.Add(time.Duration(1+rnd.IntN(90000)) * time.Millisecond)
			au := users[rnd.IntN(len(users))]
			m := discord.Message{
				ID: snowflake(t, uint64(i)), Type: discord.MessageDefault,
				Timestamp: t.In(loc.Location()).Format("2006-01-02T15:04:05.000-07:00"),
				Content:   fmt.Sprintf("message %d in %s by %s", i, sp.name, au.Name),
				Author:    au, Attachments: []discord.Attachment{}, Embeds: []discord.Embed{}, Stickers: []discord.Sticker{},
				Reactions: []discord.Reaction{}, Mentions: []discord.Author{},
			}
			if i%7 == 3 {
				e := t.Add(90 * time.Second).In(loc.Location()).Format("2006-01-02T15:04:05.000-07:00")
				m.TimestampEdited = &e
				m.Content += " (edited)"
			}
			if i%11 == 5 {
				m.IsPinned = true
			}
			if i%5 == 4 && len(msgs) > 0 {
				target := msgs[rnd.IntN(len(msgs))].ID
				m.Type = discord.MessageReply
				m.Reference = &discord.Reference{MessageID: &target, ChannelID: &h.Channel.ID, GuildID: &f.Guild.ID}
			}
			if i%3 == 1 {
				r := discord.Reaction{Emoji: discord.Emoji{Name: "👍", Code: "thumbsup"}, Count: 2,
					Users: []discord.Author{users[0], users[1%len(users)]}}
				m.Reactions = append(m.Reactions, r)
			}
			if i%13 == 6 || i%13 == 7 {
				// Custom emoji: with media, the tool writes their images
				// beside the export and imageUrl is the relative path.
				for k, e := range CustomEmoji {
					if i%13 == 7 && k == 0 {
						continue
					}
					if o.Media {
						e.ImageURL = media + "/" + e.Name + "-" + e.ID + filepath.Ext(e.ImageURL)
						if e.ID != MissingEmoji {
							f.Media[e.ImageURL] = emojiImage(k)
						}
					}
					m.Reactions = append(m.Reactions, discord.Reaction{Emoji: e, Count: 1, Users: []discord.Author{users[(2+k)%len(users)]}})
				}
			}
			if i%26 == 8 {
				// The first custom emoji in the text, as the tool writes it.
				e := CustomEmoji[0]
				if o.Media {
					e.ImageURL = media + "/" + e.Name + "-" + e.ID + filepath.Ext(e.ImageURL)
					f.Media[e.ImageURL] = emojiImage(0)
				}
				m.Content += " :" + e.Name + ":"
				m.InlineEmojis = append(m.InlineEmojis, e)
			}
			if i%9 == 2 {
				mu := users[(i/9)%len(users)]
				m.Mentions = append(m.Mentions, mu)
				m.Content += " @" + mu.Name
			}
			if i%17 == 8 {
				name := fmt.Sprintf("photo-%d.txt", i)
				data := []byte(fmt.Sprintf("attachment %d of %s\n", i, sp.name))
				a := discord.Attachment{ID: snowflake(t, 99), FileName: name, FileSizeBytes: int64(len(data)),
					URL: "https://cdn.discordapp.com/attachments/" + h.Channel.ID + "/" + name}
				if o.Media {
					rel := media + "/" + strconv.Itoa(i) + "-" + name
					a.URL = rel
					f.Media[rel] = data
				}
				m.Attachments = append(m.Attachments, a)
			}
			if i%19 == 10 {
				w, hh := 640, 480
				m.Embeds = append(m.Embeds, discord.Embed{Title: "A linked page", URL: "https://example.com/page/" + strconv.Itoa(i),
					Description: "What the page is about", Color: "#3498DB",
					Thumbnail: &discord.EmbedImage{URL: "https://example.com/thumb.png", Width: &w, Height: &hh},
					Fields:    []discord.EmbedField{{Name: "Field", Value: "Value", IsInline: true}}})
			}
			if i%23 == 12 {
				m.Stickers = append(m.Stickers, discord.Sticker{ID: "749054660769218631", Name: "Wave", Format: "Png",
					SourceURL: "https://media.discordapp.net/stickers/749054660769218631.png"})
			}
			if i == 1 {
				m.Type = discord.MessageMemberJoin
				m.Content = ""
			}
			msgs = append(msgs, m)
		}
		if o.Media {
			for _, u := range users {
				rel := media + "/avatar-" + u.ID + ".png"
				if _, ok := f.Media[rel]; !ok {
					f.Media[rel] = []byte("avatar of " + u.Name)
				}
			}
			for i := range msgs {
				msgs[i].Author.AvatarURL = media + "/avatar-" + msgs[i].Author.ID + ".png"
			}
		}
		if err := writeFile(file, &h, msgs); err != nil {
			return nil, err
		}
		f.Files = append(f.Files, file)
		f.Channels = append(f.Channels, h)
		f.Messages[h.Channel.ID] = msgs
	}
	for rel, data := range f.Media {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// CustomEmoji are the custom emoji the fixture's reactions use: one
// animated, two whose names become the same valid Ermine name
// ("blob_cat" twice), and one (MissingEmoji) whose image an export with
// media lacks. Messages with i%13 == 6 carry all four; with i%13 == 7,
// all but the first, so it is the least used.
var CustomEmoji = []discord.Emoji{
	{ID: "123456789012345678", Name: "partyparrot", IsAnimated: true, ImageURL: "https://cdn.discordapp.com/emojis/123456789012345678.gif"},
	{ID: "223456789012345678", Name: "Blob Cat!", ImageURL: "https://cdn.discordapp.com/emojis/223456789012345678.png"},
	{ID: "323456789012345678", Name: "blob_cat", ImageURL: "https://cdn.discordapp.com/emojis/323456789012345678.png"},
	{ID: MissingEmoji, Name: "gone", ImageURL: "https://cdn.discordapp.com/emojis/423456789012345678.png"},
}

// MissingEmoji is the custom emoji whose image is never written.
const MissingEmoji = "423456789012345678"

// emojiImage is a small image, different for each k: a GIF for the
// animated emoji (k 0), else a PNG.
func emojiImage(k int) []byte {
	img := image.NewPaletted(image.Rect(0, 0, 8+k, 8), color.Palette{color.Black, color.RGBA{R: uint8(60 * k), G: 200, A: 255}})
	img.SetColorIndex(k, k, 1)
	var b bytes.Buffer
	var err error
	if k == 0 {
		err = gif.Encode(&b, img, nil)
	} else {
		err = png.Encode(&b, img)
	}
	if err != nil {
		panic(err) // encoding into memory does not fail
	}
	return b.Bytes()
}

// snowflake makes a Discord id for time t.
func snowflake(t time.Time, seq uint64) string {
	ms := uint64(t.UnixMilli() - 1420070400000)
	return strconv.FormatUint(ms<<22|seq&0x3fffff, 10)
}

// writeFile writes one export file the way the tool lays it out: the
// header, the messages array, the message count.
func writeFile(path string, h *discord.Header, msgs []discord.Message) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<16)
	enc := func(v any) {
		if err == nil {
			var b []byte
			b, err = json.MarshalIndent(v, "  ", "  ")
			if err == nil {
				_, err = w.Write(b)
			}
		}
	}
	put := func(s string) {
		if err == nil {
			_, err = w.WriteString(s)
		}
	}
	put("{\n  \"guild\": ")
	enc(h.Guild)
	put(",\n  \"channel\": ")
	enc(h.Channel)
	put(",\n  \"dateRange\": {\n    \"after\": null,\n    \"before\": null\n  },\n  \"exportedAt\": ")
	enc(h.ExportedAt)
	put(",\n  \"messages\": [")
	for i := range msgs {
		if i > 0 {
			put(",")
		}
		put("\n    ")
		enc(&msgs[i])
	}
	put(fmt.Sprintf("\n  ],\n  \"messageCount\": %d\n}\n", len(msgs)))
	if err == nil {
		err = w.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
