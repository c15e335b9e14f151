package storetest

import (
	"strings"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// HostileStrings are the texts a hostile-input campaign sends (message
// content, reply ids, settings keys and values, tokens) that the API lets
// through to a store. NUL is not among them: the API refuses any string
// holding it (internal/api's input rule), because PostgreSQL rejects it
// where SQLite stores it; every other string must come back byte for byte
// from both stores.
var HostileStrings = []string{
	`\u0000`, // the six characters, not a NUL
	"\u0001\u0002\u001f\u007f",
	"\t\r\n \u00a0\u2028\u2029\ufeff",
	"\ufffd\uffff\U0010ffff",
	"\u202e right-to-left override \u202d",
	"😀🏳️‍🌈👩‍👩‍👧‍👦",
	`'; DROP TABLE messages; --`,
	`" OR 1=1 --`,
	`%_\%\_\\`,
	`{"$where":"1"}`,
	`<script>alert(1)</script>`,
	"ｆｕｌｌｗｉｄｔｈ ＡＢＣ",
	strings.Repeat("é", 2000),
	strings.Repeat(`\"`, 500),
}

// malformedIDs are ids no object can have; lookups must miss on every store.
var malformedIDs = []chat.ID{"", "x", "@me", "../../etc/passwd", "01ARZ3NDEKTSV4RRFFQ69G5FAV' OR '1'='1",
	chat.ID(strings.Repeat("Z", 300)), "%00", `\u0000`}

func testHostileInput(t *testing.T, s store.Store) {
	c := ctx(t)
	for _, h := range HostileStrings {
		if strings.IndexByte(h, 0) >= 0 {
			t.Fatalf("HostileStrings holds a NUL: %q", h)
		}
	}
	channel, author := chat.NewID(), chat.NewID()
	first := &chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: ptr("first")}
	must(t, s.InsertMessage(c, first))
	for _, h := range HostileStrings {
		m := &chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: ptr(h),
			Replies: []chat.ID{first.ID}, Masquerade: &chat.Masquerade{Name: ptr(h)},
			Reactions: map[string][]chat.ID{h: {author}}}
		must(t, s.InsertMessage(c, m))
		got, err := s.FetchMessage(c, m.ID)
		must(t, err)
		same(t, got, m)
		// An edit stores the same text again.
		m.Content = ptr(h + h)
		must(t, s.UpdateMessage(c, m))
		got, err = s.FetchMessage(c, m.ID)
		must(t, err)
		same(t, *got.Content, h+h)
	}

	user := chat.NewID()
	settings := map[string]chat.Setting{}
	for i, h := range HostileStrings {
		settings[h] = chat.Setting{Timestamp: int64(i), Value: h}
	}
	must(t, s.SetSettings(c, user, settings))
	all, err := s.FetchSettings(c, user, nil)
	must(t, err)
	same(t, all, settings)
	some, err := s.FetchSettings(c, user, []string{HostileStrings[0], "%", "_", "missing"})
	must(t, err)
	same(t, some, map[string]chat.Setting{HostileStrings[0]: settings[HostileStrings[0]]})

	for _, h := range HostileStrings {
		_, err := s.FetchAccountByToken(c, h)
		wantErr(t, err, store.ErrNotFound)
		_, err = s.FetchSessionByToken(c, h)
		wantErr(t, err, store.ErrNotFound)
		_, err = s.FetchBotByToken(c, h)
		wantErr(t, err, store.ErrNotFound)
	}
	for _, id := range malformedIDs {
		_, err := s.FetchChannel(c, id)
		wantErr(t, err, store.ErrNotFound)
		_, err = s.FetchUser(c, id)
		wantErr(t, err, store.ErrNotFound)
		_, err = s.FetchServer(c, id)
		wantErr(t, err, store.ErrNotFound)
		_, err = s.FetchMessage(c, id)
		wantErr(t, err, store.ErrNotFound)
		got, err := s.FetchMessagesByID(c, channel, []chat.ID{id, first.ID})
		must(t, err)
		same(t, len(got), 1)
	}
}

// testNUL pins what a store does with the inputs that held NUL in the
// hostile-input campaign (message content on send and edit, a reply id,
// settings keys and values, a reset token, a path id) or bytes that are
// not UTF-8 (an invite code or file id in a path), should one get past
// the API: every write fails with store.ErrInvalid and every lookup
// misses, on every engine, and nothing is stored.
func testNUL(t *testing.T, s store.Store) {
	c := ctx(t)
	const nul = "a\x00b"
	channel, author := chat.NewID(), chat.NewID()
	ok := &chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: ptr("fine")}
	must(t, s.InsertMessage(c, ok))

	for _, m := range []*chat.Message{
		{ID: chat.NewID(), Channel: channel, Author: author, Content: ptr(nul)},
		{ID: chat.NewID(), Channel: channel, Author: author, Content: ptr("x"), Replies: []chat.ID{nul}},
		{ID: chat.NewID(), Channel: channel, Author: author, Masquerade: &chat.Masquerade{Name: ptr(nul)}},
		{ID: chat.NewID(), Channel: nul, Author: author, Content: ptr("x")},
	} {
		wantErr(t, s.InsertMessage(c, m), store.ErrInvalid)
		_, err := s.FetchMessage(c, m.ID)
		wantErr(t, err, store.ErrNotFound)
	}
	edit := *ok
	edit.Content = ptr(nul)
	wantErr(t, s.UpdateMessage(c, &edit), store.ErrInvalid)
	got, err := s.FetchMessage(c, ok.ID)
	must(t, err)
	same(t, *got.Content, "fine")

	user := chat.NewID()
	wantErr(t, s.SetSettings(c, user, map[string]chat.Setting{"theme": {Timestamp: 1, Value: nul}}), store.ErrInvalid)
	wantErr(t, s.SetSettings(c, user, map[string]chat.Setting{nul: {Timestamp: 1, Value: "v"}}), store.ErrInvalid)
	must(t, s.SetSettings(c, user, map[string]chat.Setting{"theme": {Timestamp: 1, Value: "dark"}}))
	some, err := s.FetchSettings(c, user, []string{nul, "theme"})
	must(t, err)
	if len(some) > 1 {
		t.Errorf("settings fetched with a NUL key = %v", some)
	}

	_, err = s.FetchAccountByToken(c, nul)
	wantErr(t, err, store.ErrNotFound)
	_, err = s.FetchSessionByToken(c, nul)
	wantErr(t, err, store.ErrNotFound)
	_, err = s.FetchChannel(c, nul)
	wantErr(t, err, store.ErrNotFound)
	_, err = s.FetchUser(c, nul)
	wantErr(t, err, store.ErrNotFound)
	_, err = s.FetchMessage(c, "\x00")
	wantErr(t, err, store.ErrNotFound)

	// Bytes that are not UTF-8 (a path segment like %C0%AF) likewise.
	const notUTF8 = "\xc0\xaf"
	_, err = s.FetchInvite(c, notUTF8)
	wantErr(t, err, store.ErrNotFound)
	_, err = s.FetchFile(c, notUTF8)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.SetSettings(c, user, map[string]chat.Setting{notUTF8: {Timestamp: 1, Value: "v"}}), store.ErrInvalid)
}
