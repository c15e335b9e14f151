package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/importer/discord"
	"ermine/internal/importer/discord/discordtest"
)

// TestImportDiscord imports generated DiscordChatExporter files (with
// local media) into SQLite and PostgreSQL and reads the result through
// the API and the events WebSocket: channel order and names, each
// message's time, author, reply, pin, reactions and attachment bytes; a
// second run adds nothing.
func TestImportDiscord(t *testing.T) {
	fx, err := discordtest.Write(t.TempDir(), discordtest.Options{Media: true, Messages: 60})
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			h := apitest.Start(t, tg.option)
			alice := h.NewUser("Alice")
			args := []string{"--data", tg.data, "import", "discord", "--server", "Moved In", "--owner", "Alice#" + alice.Discriminator, fx.Dir}
			var out, errOut bytes.Buffer
			if err := run(t.Context(), args, tg.env(), &out, &errOut); err != nil {
				t.Fatalf("import discord: %v\n%s\n%s", err, out.String(), errOut.String())
			}
			m := regexp.MustCompile(`server ([0-9A-Z]{26}) `).FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("import printed no server:\n%s", out.String())
			}
			sid := m[1]
			t.Logf("first import:\n%s", out.String())
			if !strings.Contains(out.String(), "1 left out: custom emoji whose image is not in the export") {
				t.Errorf("the report does not name the custom emoji without its image:\n%s", out.String())
			}
			checkDiscordImport(t, h, alice, sid, fx)

			// A second run adds nothing.
			out.Reset()
			if err := run(t.Context(), args, tg.env(), &out, &errOut); err != nil {
				t.Fatalf("second import: %v\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), "server "+sid) {
				t.Errorf("second import made another server:\n%s", out.String())
			}
			for _, coll := range []string{"users", "server", "emoji", "messages"} {
				n := regexp.MustCompile(coll + `\s+(\d+) imported`).FindStringSubmatch(out.String())
				if n == nil || n[1] != "0" {
					t.Errorf("second import wrote %s:\n%s", coll, out.String())
				}
			}
			checkDiscordImport(t, h, alice, sid, fx)
		})
	}
}

// snowflakeTime is the time a Discord id was made.
func snowflakeTime(t *testing.T, id string) time.Time {
	t.Helper()
	at, ok := discord.SnowflakeTime(id)
	if !ok {
		t.Fatalf("%q is not a snowflake", id)
	}
	return at
}

func checkDiscordImport(t *testing.T, h *apitest.Harness, alice *apitest.User, sid string, fx *discordtest.Fixture) {
	t.Helper()
	var srv chat.Server
	call(t, h, alice.Token, http.MethodGet, "/servers/"+sid, nil, http.StatusOK).JSON(t, &srv)
	if srv.Name != "Moved In" || srv.Owner != alice.ID {
		t.Errorf("server %q owned by %s", srv.Name, srv.Owner)
	}
	// Channels in the guild's order, the thread after its parent.
	wantNames := []string{"general", "help-with-setup", "random", "announcements"}
	var names []string
	byName := map[string]chat.ID{}
	for _, id := range srv.Channels {
		var ch chat.Channel
		call(t, h, alice.Token, http.MethodGet, "/channels/"+string(id), nil, http.StatusOK).JSON(t, &ch)
		names = append(names, ch.Name)
		byName[ch.Name] = ch.ID
		if ch.Name == "general" && (ch.Description == nil || *ch.Description != "Talk about anything") {
			t.Errorf("general's topic = %v", ch.Description)
		}
	}
	if strings.Join(names, ",") != strings.Join(wantNames, ",") {
		t.Errorf("channels %v, want %v", names, wantNames)
	}
	if len(srv.Categories) != 2 || srv.Categories[0].Title != "Text Channels" || len(srv.Categories[0].Channels) != 3 || srv.Categories[1].Title != "Info" {
		t.Errorf("categories %+v", srv.Categories)
	}

	// Custom emoji with their images in the export became server emoji,
	// their names made valid and distinct; the one without is not there.
	var emojis []chat.Emoji
	call(t, h, alice.Token, http.MethodGet, "/servers/"+sid+"/emojis", nil, http.StatusOK).JSON(t, &emojis)
	emojiByName := map[string]chat.Emoji{}
	for _, e := range emojis {
		emojiByName[e.Name] = e
	}
	wantEmoji := map[string]string{"123456789012345678": "partyparrot", "223456789012345678": "blob_cat", "323456789012345678": "blob_cat_2"}
	if len(emojis) != len(wantEmoji) {
		t.Errorf("server emoji %+v, want %v", emojis, wantEmoji)
	}
	emojiKey := map[string]string{} // Discord emoji id → reaction key
	for did, name := range wantEmoji {
		e, ok := emojiByName[name]
		if !ok {
			t.Errorf("no server emoji %q", name)
			continue
		}
		emojiKey[did] = string(e.ID)
		if e.Animated != (name == "partyparrot") || e.Parent.ID != chat.ID(sid) || e.CreatorID != alice.ID {
			t.Errorf("emoji %s: %+v", name, e)
		}
		if !e.ID.Time().Equal(snowflakeTime(t, did)) {
			t.Errorf("emoji %s: id time %v, want the Discord emoji's %v", name, e.ID.Time(), snowflakeTime(t, did))
		}
		var image []byte
		var file string
		for rel, b := range fx.Media {
			if strings.Contains(rel, "-"+did+".") {
				image, file = b, path.Base(rel)
			}
		}
		res, err := h.Client.Get(h.URL + "/autumn/emojis/" + string(e.ID) + "/" + url.PathEscape(file))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(image) == 0 || !bytes.Equal(b, image) {
			t.Errorf("emoji %s image: %d, %d bytes, want the exported %d", name, res.StatusCode, len(b), len(image))
		}
	}

	inline := 0
	for _, hdr := range fx.Channels {
		chID := byName[hdr.Channel.Name]
		var page struct {
			Messages []chat.Message `json:"messages"`
			Users    []chat.User    `json:"users"`
		}
		call(t, h, alice.Token, http.MethodGet, "/channels/"+string(chID)+"/messages?sort=Oldest&limit=100&include_users=true", nil, http.StatusOK).JSON(t, &page)
		exported := fx.Messages[hdr.Channel.ID]
		if len(page.Messages) != len(exported) {
			t.Fatalf("%s: %d messages, want %d", hdr.Channel.Name, len(page.Messages), len(exported))
		}
		users := map[chat.ID]chat.User{}
		for _, u := range page.Users {
			users[u.ID] = u
		}
		ids := map[string]chat.ID{}
		for i, dm := range exported {
			got := page.Messages[i]
			ids[dm.ID] = got.ID
			ts, _ := discord.ParseTime(dm.Timestamp)
			if !got.ID.Time().Equal(ts.Truncate(1e6)) {
				t.Errorf("message %s: id time %v, sent %v", dm.ID, got.ID.Time(), ts)
			}
			if dm.Type == discord.MessageMemberJoin {
				if got.System == nil || got.System.Type != "user_joined" {
					t.Errorf("join notice became %+v", got.System)
				}
				continue
			}
			author, ok := users[got.Author]
			if !ok || author.Username != dm.Author.Name || author.Flags&chat.UserFlagImported == 0 || (author.Bot != nil) != dm.Author.IsBot {
				t.Errorf("message %s: author %+v, want imported %s (bot %v)", dm.ID, author, dm.Author.Name, dm.Author.IsBot)
			}
			// A custom emoji in the text is written as Ermine does, :ID:.
			want := dm.Content
			for _, e := range dm.InlineEmojis {
				if key := emojiKey[e.ID]; key != "" {
					want = strings.ReplaceAll(want, ":"+e.Name+":", ":"+key+":")
					inline++
				}
			}
			if got.Content == nil || *got.Content != want {
				t.Errorf("message %s: content %v, want %q", dm.ID, got.Content, want)
			}
			if (got.Pinned != nil && *got.Pinned) != dm.IsPinned {
				t.Errorf("message %s: pinned %v, want %v", dm.ID, got.Pinned, dm.IsPinned)
			}
			if (got.Edited != nil) != (dm.TimestampEdited != nil) {
				t.Errorf("message %s: edited %v", dm.ID, got.Edited)
			}
			if dm.Reference != nil {
				if len(got.Replies) != 1 || got.Replies[0] != ids[*dm.Reference.MessageID] {
					t.Errorf("message %s: replies %v, want %s", dm.ID, got.Replies, ids[*dm.Reference.MessageID])
				}
			}
			for _, r := range dm.Reactions {
				key := r.Emoji.Name
				if r.Emoji.ID != "" {
					key = emojiKey[r.Emoji.ID]
					if key == "" {
						if len(got.Reactions) > len(dm.Reactions)-1 {
							t.Errorf("message %s: reactions %v keep the emoji without its image", dm.ID, got.Reactions)
						}
						continue
					}
				}
				who := got.Reactions[key]
				if len(who) != len(r.Users) {
					t.Errorf("message %s: %s by %v, want %d users", dm.ID, r.Emoji.Name, who, len(r.Users))
				}
			}
			if len(got.Attachments) != len(dm.Attachments) {
				t.Errorf("message %s: %d attachments, want %d", dm.ID, len(got.Attachments), len(dm.Attachments))
			}
			for j, a := range got.Attachments {
				res, err := h.Client.Get(h.URL + "/autumn/attachments/" + a.ID + "/" + a.Filename)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if want := fx.Media[dm.Attachments[j].URL]; res.StatusCode != http.StatusOK || !bytes.Equal(b, want) {
					t.Errorf("attachment %s: %d %q, want %q", a.ID, res.StatusCode, b, want)
				}
			}
		}
	}

	if inline == 0 {
		t.Error("no message with a custom emoji in its text")
	}

	// The events socket sees the server and its channels.
	ready := readyFrame(t, h, alice.Token)
	for _, id := range append([]chat.ID{chat.ID(sid)}, srv.Channels...) {
		if !strings.Contains(ready, string(id)) {
			t.Errorf("Ready lacks %s", id)
		}
	}
}

// TestImportDiscordPlain imports exports made without their media: an
// attachment stays its Discord address, as a link, and nothing is
// fetched. A file that is not an export stops the import before it
// writes anything.
func TestImportDiscordPlain(t *testing.T) {
	fx, err := discordtest.Write(t.TempDir(), discordtest.Options{Messages: 30})
	if err != nil {
		t.Fatal(err)
	}
	tg := targets(t)[0]
	h := apitest.Start(t, tg.option)
	alice := h.NewUser("Alice")

	bad := t.TempDir() + "/not-an-export.json"
	if err := os.WriteFile(bad, []byte(`{"hello":"world"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err = run(t.Context(), []string{"--data", tg.data, "import", "discord", "--server", "Plain", "--owner", string(alice.ID), fx.Dir, bad}, tg.env(), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "not-an-export.json") || !strings.Contains(err.Error(), "not a DiscordChatExporter JSON export") {
		t.Fatalf("import with a bad file: %v", err)
	}
	var me struct{}
	call(t, h, alice.Token, http.MethodGet, "/users/@me", nil, http.StatusOK).JSON(t, &me)
	if ready := readyFrame(t, h, alice.Token); strings.Contains(ready, `"Plain"`) {
		t.Fatal("a refused import created its server")
	}

	out.Reset()
	if err := run(t.Context(), []string{"--data", tg.data, "import", "discord", "--server", "Plain", "--owner", string(alice.ID), fx.Dir}, tg.env(), &out, &errOut); err != nil {
		t.Fatalf("import: %v\n%s", err, out.String())
	}
	sid := regexp.MustCompile(`server ([0-9A-Z]{26}) `).FindStringSubmatch(out.String())[1]
	var srv chat.Server
	call(t, h, alice.Token, http.MethodGet, "/servers/"+sid, nil, http.StatusOK).JSON(t, &srv)
	var page []chat.Message
	call(t, h, alice.Token, http.MethodGet, "/channels/"+string(srv.Channels[0])+"/messages?sort=Oldest&limit=100", nil, http.StatusOK).JSON(t, &page)
	links := 0
	for i, dm := range fx.Messages[fx.Channels[0].Channel.ID] {
		for _, a := range dm.Attachments {
			links++
			got := page[i]
			found := false
			for _, e := range got.Embeds {
				found = found || (e.URL != nil && *e.URL == a.URL)
			}
			if len(got.Attachments) != 0 || !found {
				t.Errorf("message %s: attachments %v, embeds %+v; want a link to %s", dm.ID, got.Attachments, got.Embeds, a.URL)
			}
		}
	}
	if links == 0 {
		t.Fatal("the fixture has no attachment in its first channel")
	}
	// Without media no custom emoji has its image: all are reported.
	var emojis []chat.Emoji
	call(t, h, alice.Token, http.MethodGet, "/servers/"+sid+"/emojis", nil, http.StatusOK).JSON(t, &emojis)
	if len(emojis) != 0 {
		t.Errorf("server emoji from an export without media: %+v", emojis)
	}
	if want := fmt.Sprintf("%d left out: custom emoji whose image is not in the export", len(discordtest.CustomEmoji)); !strings.Contains(out.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
}
