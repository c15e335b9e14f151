package sqlite_test

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

// TestMigrateCompactMessages makes a database with the schema of
// migrations 0001–0009 and messages as that schema stored them (the whole
// message as the data document beside its columns), then opens it with
// today's code: migration 0010 moves the documents to the compact form,
// rebuilds the full-text index with channels and authors, and every
// message reads back as it was, found by history, search and author.
func TestMigrateCompactMessages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		v, _ := strconv.Atoi(base[:4])
		if v > 9 {
			continue
		}
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if _, err := raw.Exec(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, v, base); err != nil {
			t.Fatal(err)
		}
	}

	server, channel, other, author, someone := chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID()
	if _, err := raw.Exec(`INSERT INTO servers (id, owner_id, data) VALUES (?, ?, ?)`, server, author,
		`{"_id":"`+string(server)+`","owner":"`+string(author)+`","name":"old","channels":[]}`); err != nil {
		t.Fatal(err)
	}
	var want []*chat.Message
	add := func(m *chat.Message) {
		data, err := json.Marshal(m) // the whole message, as 0001–0009 stored it
		if err != nil {
			t.Fatal(err)
		}
		pinned := 0
		if m.Pinned != nil && *m.Pinned {
			pinned = 1
		}
		if _, err := raw.Exec(`INSERT INTO messages (id, channel_id, author_id, content, pinned, data) VALUES (?, ?, ?, ?, ?, ?)`,
			m.ID, m.Channel, m.Author, m.Content, pinned, string(data)); err != nil {
			t.Fatal(err)
		}
		want = append(want, m)
	}
	text := func(s string) *string { return &s }
	add(&chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: text("the lantern lights the valley")})
	add(&chat.Message{ID: chat.NewID(), Nonce: text("n1"), Channel: channel, Author: someone, Content: text("a quokka smiles"),
		Pinned: new(true), Mentions: []chat.ID{author}, Replies: []chat.ID{want[0].ID}})
	add(&chat.Message{ID: chat.NewID(), Channel: channel, Author: author,
		Attachments: []chat.File{{ID: "att", Tag: "attachments", Filename: "a.png", ContentType: "image/png", Size: 3, Metadata: chat.Metadata{Type: "Image", Width: new(2), Height: new(1)}}}})
	add(&chat.Message{ID: chat.NewID(), Channel: other, Author: author, Content: text("lantern elsewhere")})
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open the old database: %v", err)
	}
	defer s.Close()
	ctx := t.Context()
	for _, m := range want {
		got, err := s.FetchMessage(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(m, got); d != "" {
			t.Errorf("message %s after the migration (-want +got):\n%s", m.ID, d)
		}
	}
	page, err := s.FetchMessages(ctx, store.MessageQuery{Channel: channel, Limit: 10, Sort: store.SortOldest})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want[:3], page); d != "" {
		t.Errorf("history after the migration (-want +got):\n%s", d)
	}
	found, err := s.SearchMessages(ctx, store.MessageSearch{Channel: channel, Query: "lantern", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].ID != want[0].ID {
		t.Errorf("search for lantern in the channel found %v, want only %s", found, want[0].ID)
	}
	mine, err := s.FetchMessagesByAuthor(ctx, author, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(mine) != 3 || mine[0].ID != want[0].ID || mine[1].ID != want[2].ID || mine[2].ID != want[3].ID {
		t.Errorf("the author's messages after the migration: %v", mine)
	}
	lists, err := s.FetchServersChannels(ctx, []chat.ID{server})
	if err != nil || lists[server] == nil {
		t.Errorf("channel lists after the migration: %v, %v", lists, err)
	}

	// The documents no longer repeat the columns.
	check, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	var data string
	if err := check.QueryRow(`SELECT data FROM messages WHERE id = ?`, want[0].ID).Scan(&data); err != nil {
		t.Fatal(err)
	}
	if data != "{}" || strings.Contains(data, string(author)) {
		t.Errorf("a plain message's document after the migration: %s, want {}", data)
	}
}
