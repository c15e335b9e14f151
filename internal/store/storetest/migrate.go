package storetest

import (
	"database/sql"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// Raw is a database outside the store, as an engine's test opens it:
// Rebind turns ? placeholders into the engine's.
type Raw struct {
	DB     *sql.DB
	Rebind func(string) string
}

// Exec runs one SQL text (one or more statements without arguments, or
// one statement with ? placeholders).
func (r Raw) Exec(q string, args ...any) error {
	_, err := r.DB.Exec(r.Rebind(q), args...)
	return err
}

// messageData returns a message's stored document.
func (r Raw) messageData(t *testing.T, id chat.ID) string {
	t.Helper()
	var data string
	if err := r.DB.QueryRow(r.Rebind(`SELECT data FROM messages WHERE id = ?`), id).Scan(&data); err != nil {
		t.Fatal(err)
	}
	return data
}

// recorded lists the migration numbers the database has applied.
func (r Raw) recorded(t *testing.T) []int {
	t.Helper()
	rows, err := r.DB.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		must(t, rows.Scan(&v))
		out = append(out, v)
	}
	must(t, rows.Err())
	return out
}

// migrationFiles lists the engine's migration files in dir by number.
func migrationFiles(t *testing.T, dir string) map[int]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, f := range files {
		v, err := strconv.Atoi(filepath.Base(f)[:4])
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		// Two files of one number: the migrator records the number once
		// the first has run, so the second never would.
		if other, dup := out[v]; dup {
			t.Fatalf("%s and %s share version %d: renumber the newer one", filepath.Base(other), filepath.Base(f), v)
		}
		out[v] = f
	}
	return out
}

// ApplyMigrations applies the engine's migration files in dir numbered
// up to upTo and records them as the store's migrator does, making a
// database as an older Ermine left it.
func ApplyMigrations(t *testing.T, raw Raw, dir string, upTo int) {
	t.Helper()
	must(t, raw.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`))
	files := migrationFiles(t, dir)
	versions := slices.Sorted(maps.Keys(files))
	for _, v := range versions {
		if v > upTo {
			continue
		}
		body, err := os.ReadFile(files[v])
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(files[v])
		if _, err := raw.DB.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		must(t, raw.Exec(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, v, base))
	}
}

// RunMigrations checks an engine's migrations on databases an older
// Ermine left: old makes one at migration upTo (ApplyMigrations) and
// returns it raw and a way to open it with today's code; dir holds the
// engine's migration files.
func RunMigrations(t *testing.T, dir string, old func(t *testing.T, upTo int) (Raw, func() store.Store)) {
	t.Run("FromFirstRelease", func(t *testing.T) {
		raw, open := old(t, 3)
		MigrateFromFirstRelease(t, raw, open, dir)
	})
	t.Run("CompactMessages", func(t *testing.T) {
		raw, open := old(t, 9)
		MigrateCompactMessages(t, raw, open)
	})
	t.Run("MessageFilters", func(t *testing.T) {
		raw, open := old(t, 13)
		MigrateMessageFilters(t, raw, open)
	})
}

// MigrateMessageFilters checks migration 0014 on a database at migration
// 0013: the messages stored before it are found by every filter their
// documents and columns answer (the tags it derives from them).
func MigrateMessageFilters(t *testing.T, raw Raw, open func() store.Store) {
	t.Helper()
	channel, ada, role := chat.NewID(), chat.NewID(), chat.NewID()
	add := func(m *chat.Message) chat.ID {
		m.ID, m.Channel = chat.NewID(), channel
		if m.Author == "" {
			m.Author = ada
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		must(t, json.Unmarshal(b, &doc))
		for _, k := range []string{"_id", "channel", "author", "content"} { // columns only, as 0010 keeps them
			delete(doc, k)
		}
		b, err = json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		must(t, raw.Exec(`INSERT INTO messages (id, channel_id, author_id, content, pinned, data) VALUES (?, ?, ?, ?, ?, ?)`,
			m.ID, m.Channel, m.Author, m.Content, pinnedOf(m), string(b)))
		return m.ID
	}
	plain := add(&chat.Message{Content: ptr("plain words")})
	mention := add(&chat.Message{Content: ptr("hi"), Mentions: []chat.ID{ada}, RoleMentions: []chat.ID{role}})
	pinned := add(&chat.Message{Content: ptr("see https://ermine.example"), Pinned: ptr(true)})
	hook := add(&chat.Message{Author: chat.NewID(), Webhook: &chat.MessageWebhook{Name: "h"}, Embeds: []chat.Embed{{Type: "Text"}},
		Attachments: []chat.File{{ID: "v", Tag: "attachments", Filename: "v.mp4", ContentType: "video/mp4", Size: 1, Metadata: chat.Metadata{Type: "Video"}}}})
	image := add(&chat.Message{Attachments: []chat.File{{ID: "i", Tag: "attachments", Filename: "i.png", ContentType: "image/png", Size: 1, Metadata: chat.Metadata{Type: "Image"}}}})

	s := open()
	defer s.Close()
	c := ctx(t)
	find := func(f store.MessageFilter) []chat.ID {
		t.Helper()
		f.Channels, f.Limit, f.Ascending = []chat.ID{channel}, 10, true
		list, err := s.FilterMessages(c, f)
		must(t, err)
		out := []chat.ID{}
		for _, m := range list {
			out = append(out, m.ID)
		}
		return out
	}
	same(t, find(store.MessageFilter{}), []chat.ID{plain, mention, pinned, hook, image})
	same(t, find(store.MessageFilter{Words: "words"}), []chat.ID{plain})
	same(t, find(store.MessageFilter{Mentions: []chat.ID{ada}}), []chat.ID{mention})
	same(t, find(store.MessageFilter{RoleMentions: []chat.ID{role}}), []chat.ID{mention})
	same(t, find(store.MessageFilter{Pinned: ptr(true)}), []chat.ID{pinned})
	same(t, find(store.MessageFilter{Components: []string{store.ComponentLink}}), []chat.ID{pinned})
	same(t, find(store.MessageFilter{AuthorTypes: []string{store.AuthorWebhook}}), []chat.ID{hook})
	same(t, find(store.MessageFilter{Components: []string{store.ComponentVideo, store.ComponentEmbed}}), []chat.ID{hook})
	same(t, find(store.MessageFilter{Components: []string{store.ComponentImage}}), []chat.ID{image})
	same(t, find(store.MessageFilter{Components: []string{store.ComponentFile}}), []chat.ID{hook, image})
	same(t, find(store.MessageFilter{AuthorTypes: []string{store.AuthorUser}}), []chat.ID{plain, mention, pinned, image})
}

// MigrateCompactMessages checks migration 0010 on a database at
// migration 0009 (ApplyMigrations): messages stored the old way, the
// whole message as the data document beside its columns, read back the
// same through today's store after open migrates it, and are found by
// history, search and author; data returns a message's stored document,
// which must no longer repeat the columns.
func MigrateCompactMessages(t *testing.T, raw Raw, open func() store.Store) {
	t.Helper()
	exec := raw.Exec
	server, channel, other, author, someone := chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID()
	must(t, exec(`INSERT INTO servers (id, owner_id, data) VALUES (?, ?, ?)`, server, author,
		`{"_id":"`+string(server)+`","owner":"`+string(author)+`","name":"old","channels":[]}`))
	var want []*chat.Message
	add := func(m *chat.Message) {
		doc, err := json.Marshal(m) // the whole message, as 0001–0009 stored it
		if err != nil {
			t.Fatal(err)
		}
		must(t, exec(`INSERT INTO messages (id, channel_id, author_id, content, pinned, data) VALUES (?, ?, ?, ?, ?, ?)`,
			m.ID, m.Channel, m.Author, m.Content, pinnedOf(m), string(doc)))
		want = append(want, m)
	}
	add(&chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: ptr("the lantern lights the valley")})
	add(&chat.Message{ID: chat.NewID(), Nonce: ptr("n1"), Channel: channel, Author: someone, Content: ptr("a quokka smiles"),
		Pinned: ptr(true), Mentions: []chat.ID{author}, Replies: []chat.ID{want[0].ID}})
	add(&chat.Message{ID: chat.NewID(), Channel: channel, Author: author,
		Attachments: []chat.File{{ID: "att", Tag: "attachments", Filename: "a.png", ContentType: "image/png", Size: 3,
			Metadata: chat.Metadata{Type: "Image", Width: ptr(2), Height: ptr(1)}}}})
	add(&chat.Message{ID: chat.NewID(), Channel: other, Author: author, Content: ptr("lantern elsewhere")})

	s := open()
	defer s.Close()
	c := ctx(t)
	for _, m := range want {
		got, err := s.FetchMessage(c, m.ID)
		must(t, err)
		if d := cmp.Diff(m, got); d != "" {
			t.Errorf("message %s after the migration (-want +got):\n%s", m.ID, d)
		}
	}
	page, err := s.FetchMessages(c, store.MessageQuery{Channel: channel, Limit: 10, Sort: store.SortOldest})
	must(t, err)
	if d := cmp.Diff(want[:3], page); d != "" {
		t.Errorf("history after the migration (-want +got):\n%s", d)
	}
	found, err := s.SearchMessages(c, store.MessageSearch{Channel: channel, Query: "lantern", Limit: 10})
	must(t, err)
	if len(found) != 1 || found[0].ID != want[0].ID {
		t.Errorf("search for lantern in the channel found %v, want only %s", found, want[0].ID)
	}
	mine, err := s.FetchMessagesByAuthor(c, author, "", 10)
	must(t, err)
	if len(mine) != 3 || mine[0].ID != want[0].ID || mine[1].ID != want[2].ID || mine[2].ID != want[3].ID {
		t.Errorf("the author's messages after the migration: %v", mine)
	}
	lists, err := s.FetchServersChannels(c, []chat.ID{server})
	if err != nil || lists[server] == nil {
		t.Errorf("channel lists after the migration: %v, %v", lists, err)
	}
	var doc map[string]any
	must(t, json.Unmarshal([]byte(raw.messageData(t, want[0].ID)), &doc))
	if len(doc) != 0 {
		t.Errorf("a plain message's document after the migration: %v, want {}", doc)
	}
	must(t, json.Unmarshal([]byte(raw.messageData(t, want[1].ID)), &doc))
	for _, k := range []string{"_id", "channel", "author", "content"} {
		if _, ok := doc[k]; ok {
			t.Errorf("a message's document still holds %q after the migration: %v", k, doc)
		}
	}
}

func pinnedOf(m *chat.Message) int {
	if m.Pinned != nil && *m.Pinned {
		return 1
	}
	return 0
}

// MigrateFromFirstRelease checks every migration on a database at
// migration 0003, the schema of Ermine's first release (ApplyMigrations),
// holding a user, a session, a server with a channel and a member, and
// messages: open migrates it, and everything reads back the same through
// today's store, still found by history and search, and every migration
// file in dir is recorded as applied.
func MigrateFromFirstRelease(t *testing.T, raw Raw, open func() store.Store, dir string) {
	t.Helper()
	exec := raw.Exec
	doc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	u := newUser("Ada", "0001")
	u.DisplayName = ptr("Ada L.")
	must(t, exec(`INSERT INTO users (id, username_lower, discriminator, data) VALUES (?, ?, ?, ?)`, u.ID, "ada", u.Discriminator, doc(u)))
	se := &chat.Session{ID: chat.NewID(), UserID: u.ID, Token: chat.NewToken(64), Name: "old client"}
	must(t, exec(`INSERT INTO sessions (id, user_id, token, data) VALUES (?, ?, ?, ?)`, se.ID, se.UserID, se.Token, doc(se)))
	sv := newServer(u.ID)
	ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: sv.ID, Name: "general"}
	sv.Channels = []chat.ID{ch.ID}
	must(t, exec(`INSERT INTO servers (id, owner_id, data) VALUES (?, ?, ?)`, sv.ID, sv.Owner, doc(sv)))
	must(t, exec(`INSERT INTO channels (id, channel_type, server_id, data) VALUES (?, ?, ?, ?)`, ch.ID, ch.ChannelType, ch.Server, doc(ch)))
	m := &chat.Member{ID: chat.MemberID{Server: sv.ID, User: u.ID}, JoinedAt: chat.Now(), Nickname: ptr("ada")}
	must(t, exec(`INSERT INTO members (server_id, user_id, joined_at, data) VALUES (?, ?, ?, ?)`, sv.ID, u.ID, m.JoinedAt.Millis(), doc(m)))
	var msgs []*chat.Message
	for _, text := range []string{"first words", "second words"} {
		msg := &chat.Message{ID: chat.NewID(), Channel: ch.ID, Author: u.ID, Content: ptr(text)}
		must(t, exec(`INSERT INTO messages (id, channel_id, author_id, content, pinned, data) VALUES (?, ?, ?, ?, ?, ?)`,
			msg.ID, msg.Channel, msg.Author, msg.Content, 0, doc(msg)))
		msgs = append(msgs, msg)
	}

	s := open()
	defer s.Close()
	c := ctx(t)
	gotUser, err := s.FetchUser(c, u.ID)
	must(t, err)
	same(t, gotUser, u)
	gotSession, err := s.FetchSessionByToken(c, se.Token)
	must(t, err)
	same(t, gotSession, se)
	gotServer, err := s.FetchServer(c, sv.ID)
	must(t, err)
	migrated := *sv
	migrated.DefaultPermissions |= 1 << 41 // UseExternalEmojis, granted by migration 0012
	same(t, gotServer, &migrated)
	lists, err := s.FetchServersChannels(c, []chat.ID{sv.ID})
	must(t, err)
	same(t, lists[sv.ID], []*chat.Channel{ch})
	gotMember, err := s.FetchMember(c, sv.ID, u.ID)
	must(t, err)
	same(t, gotMember, m)
	page, err := s.FetchMessages(c, store.MessageQuery{Channel: ch.ID, Limit: 10, Sort: store.SortOldest})
	must(t, err)
	same(t, page, msgs)
	found, err := s.SearchMessages(c, store.MessageSearch{Channel: ch.ID, Query: "second", Limit: 10})
	must(t, err)
	same(t, len(found), 1)
	same(t, raw.recorded(t), slices.Sorted(maps.Keys(migrationFiles(t, dir))))
}
