package storetest

import (
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// testMessageFilter checks FilterMessages: every condition of a filter,
// lists as alternatives, paging and order, and that the index follows
// pins, edits and deletes.
func testMessageFilter(t *testing.T, s store.Store) {
	c := ctx(t)
	general, random, elsewhere := chat.NewID(), chat.NewID(), chat.NewID()
	ada, bob, botID, hook, role := chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID()
	start := time.Now().Add(-time.Hour)
	var all []*chat.Message
	add := func(m *chat.Message) chat.ID {
		t.Helper()
		m.ID = chat.NewIDAt(start.Add(time.Duration(len(all)) * time.Minute))
		must(t, s.InsertMessage(c, m))
		all = append(all, m)
		return m.ID
	}
	image := chat.File{ID: "img", Tag: "attachments", Filename: "a.png", ContentType: "image/png", Size: 1, Metadata: chat.Metadata{Type: "Image"}}
	video := chat.File{ID: "vid", Tag: "attachments", Filename: "a.mp4", ContentType: "video/mp4", Size: 1, Metadata: chat.Metadata{Type: "Video"}}
	text := chat.File{ID: "txt", Tag: "attachments", Filename: "a.txt", ContentType: "text/plain", Size: 1, Metadata: chat.Metadata{Type: "File"}}
	m0 := add(&chat.Message{Channel: general, Author: ada, Content: ptr("the lantern glows")})
	m1 := add(&chat.Message{Channel: general, Author: bob, Content: ptr("lantern for <@" + string(ada) + ">"), Mentions: []chat.ID{ada}})
	m2 := add(&chat.Message{Channel: random, Author: botID, AuthorBot: true, Content: ptr("a bot's lantern at https://example.com/x")})
	m3 := add(&chat.Message{Channel: random, Author: hook, Webhook: &chat.MessageWebhook{Name: "hook"}, Content: ptr("hooked"),
		Embeds: []chat.Embed{{Type: "Text", Title: ptr("t")}}})
	m4 := add(&chat.Message{Channel: general, Author: ada, Attachments: []chat.File{image}, RoleMentions: []chat.ID{role}, Pinned: ptr(true)})
	m5 := add(&chat.Message{Channel: general, Author: bob, Attachments: []chat.File{video}, Content: ptr("not a link: http:// alone")})
	m6 := add(&chat.Message{Channel: general, Author: bob, Attachments: []chat.File{text}, Content: ptr("just a file")})
	m7 := add(&chat.Message{Channel: elsewhere, Author: ada, Content: ptr("lantern elsewhere"), Mentions: []chat.ID{ada}})
	m8 := add(&chat.Message{Channel: general, Author: botID, AuthorBot: true, Content: ptr("only for bob's lantern"), Ephemeral: ptr(bob)})

	both := []chat.ID{general, random}
	find := func(f store.MessageFilter) []chat.ID {
		t.Helper()
		if f.Limit == 0 {
			f.Limit = 100
		}
		list, err := s.FilterMessages(c, f)
		must(t, err)
		out := []chat.ID{}
		for _, m := range list {
			out = append(out, m.ID)
		}
		return out
	}
	ids := func(v ...chat.ID) []chat.ID { return append([]chat.ID{}, v...) }
	tests := []struct {
		name string
		f    store.MessageFilter
		want []chat.ID
	}{
		{"channels, newest first", store.MessageFilter{Channels: both}, ids(m6, m5, m4, m3, m2, m1, m0)},
		{"oldest first", store.MessageFilter{Channels: both, Ascending: true}, ids(m0, m1, m2, m3, m4, m5, m6)},
		{"page", store.MessageFilter{Channels: both, Offset: 2, Limit: 3}, ids(m4, m3, m2)},
		{"words", store.MessageFilter{Channels: both, Words: "LANTERN"}, ids(m2, m1, m0)},
		{"every word", store.MessageFilter{Channels: both, Words: "lantern glows"}, ids(m0)},
		{"one channel", store.MessageFilter{Channels: []chat.ID{random}}, ids(m3, m2)},
		{"authors", store.MessageFilter{Channels: both, Authors: []chat.ID{bob, hook}}, ids(m6, m5, m3, m1)},
		{"mentions", store.MessageFilter{Channels: both, Mentions: []chat.ID{ada, chat.NewID()}}, ids(m1)},
		{"mentions anywhere", store.MessageFilter{Mentions: []chat.ID{ada}}, ids(m7, m1)},
		{"role mentions", store.MessageFilter{Channels: both, RoleMentions: []chat.ID{role}}, ids(m4)},
		{"before and after", store.MessageFilter{Channels: both, After: m1, Before: m4}, ids(m3, m2)},
		{"bots", store.MessageFilter{Channels: both, AuthorTypes: []string{store.AuthorBot}}, ids(m2)},
		{"webhooks", store.MessageFilter{Channels: both, AuthorTypes: []string{store.AuthorWebhook}}, ids(m3)},
		{"bots and webhooks", store.MessageFilter{Channels: both, AuthorTypes: []string{store.AuthorWebhook, store.AuthorBot}}, ids(m3, m2)},
		{"users", store.MessageFilter{Channels: both, AuthorTypes: []string{store.AuthorUser}}, ids(m6, m5, m4, m1, m0)},
		{"users and bots", store.MessageFilter{Channels: both, AuthorTypes: []string{store.AuthorUser, store.AuthorBot}}, ids(m6, m5, m4, m2, m1, m0)},
		{"pinned", store.MessageFilter{Channels: both, Pinned: ptr(true)}, ids(m4)},
		{"not pinned", store.MessageFilter{Channels: []chat.ID{general}, Pinned: ptr(false)}, ids(m6, m5, m1, m0)},
		{"images", store.MessageFilter{Channels: both, Components: []string{store.ComponentImage}}, ids(m4)},
		{"videos", store.MessageFilter{Channels: both, Components: []string{store.ComponentVideo}}, ids(m5)},
		{"files", store.MessageFilter{Channels: both, Components: []string{store.ComponentFile}}, ids(m6, m5, m4)},
		{"links", store.MessageFilter{Channels: both, Components: []string{store.ComponentLink}}, ids(m2)},
		{"embeds", store.MessageFilter{Channels: both, Components: []string{store.ComponentEmbed}}, ids(m3)},
		{"links or images", store.MessageFilter{Channels: both, Components: []string{store.ComponentLink, store.ComponentImage}}, ids(m4, m2)},
		{"together", store.MessageFilter{Channels: both, Words: "lantern", AuthorTypes: []string{store.AuthorUser}, Authors: []chat.ID{bob}}, ids(m1)},
		{"ephemeral, for its user", store.MessageFilter{Channels: both, Words: "lantern", Viewer: bob}, ids(m8, m2, m1, m0)},
		{"ephemeral, for its author", store.MessageFilter{Channels: []chat.ID{general}, Authors: []chat.ID{botID}, Viewer: botID}, ids(m8)},
		{"ephemeral, for others", store.MessageFilter{Channels: []chat.ID{general}, Authors: []chat.ID{botID}, Viewer: ada}, ids()},
		{"pinned anywhere", store.MessageFilter{Pinned: ptr(true)}, ids(m4)},
		{"nothing to match", store.MessageFilter{AuthorTypes: []string{store.AuthorUser}, Before: m8}, ids()},
		{"malformed ids only", store.MessageFilter{Channels: []chat.ID{`" OR x`}}, ids()},
		{"unknown component", store.MessageFilter{Channels: both, Components: []string{"Sticker"}}, ids()},
		{"hostile words", store.MessageFilter{Channels: both, Words: `(lantern*) "^-`}, ids(m2, m1, m0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { same(t, find(tt.f), tt.want) })
	}

	// The index follows pins, edits and deletes.
	m, err := s.FetchMessage(c, m0)
	must(t, err)
	m.Pinned = ptr(true)
	m.Content = ptr("now with https://ermine.example")
	must(t, s.UpdateMessage(c, m))
	same(t, find(store.MessageFilter{Channels: both, Pinned: ptr(true)}), ids(m4, m0))
	same(t, find(store.MessageFilter{Channels: both, Components: []string{store.ComponentLink}}), ids(m2, m0))
	same(t, find(store.MessageFilter{Channels: both, Words: "lantern"}), ids(m2, m1))
	// A bot's message stays a bot's through an update.
	m, err = s.FetchMessage(c, m2)
	must(t, err)
	same(t, m.AuthorBot, true)
	m.Pinned = ptr(true)
	must(t, s.UpdateMessage(c, m))
	same(t, find(store.MessageFilter{Channels: both, AuthorTypes: []string{store.AuthorBot}, Pinned: ptr(true)}), ids(m2))
	must(t, s.DeleteMessage(c, m1))
	same(t, find(store.MessageFilter{Mentions: []chat.ID{ada}}), ids(m7))
}

// testEphemeralMessages checks that history and search show an ephemeral
// message only to its user and its author, and that
// DeleteEphemeralMessages removes those sent before a time.
func testEphemeralMessages(t *testing.T, s store.Store) {
	c := ctx(t)
	channel, bot, ada, bob := chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID()
	old := &chat.Message{ID: chat.NewIDAt(time.Now().Add(-time.Hour)), Channel: channel, Author: bot, AuthorBot: true,
		Content: ptr("secret word"), Ephemeral: ptr(ada)}
	plain := &chat.Message{ID: chat.NewIDAt(time.Now().Add(-30 * time.Minute)), Channel: channel, Author: bob, Content: ptr("open word")}
	fresh := &chat.Message{ID: chat.NewID(), Channel: channel, Author: bot, AuthorBot: true, Content: ptr("newer secret word"), Ephemeral: ptr(bob)}
	must(t, s.InsertMessages(c, []*chat.Message{old, plain}))
	must(t, s.InsertMessage(c, fresh))
	got, err := s.FetchMessage(c, old.ID)
	must(t, err)
	same(t, got, old)

	history := func(viewer chat.ID) []chat.ID {
		t.Helper()
		list, err := s.FetchMessages(c, store.MessageQuery{Channel: channel, Limit: 10, Sort: store.SortOldest, Viewer: viewer})
		must(t, err)
		out := []chat.ID{}
		for _, m := range list {
			out = append(out, m.ID)
		}
		return out
	}
	same(t, history(ada), []chat.ID{old.ID, plain.ID})
	same(t, history(bob), []chat.ID{plain.ID, fresh.ID})
	same(t, history(bot), []chat.ID{old.ID, plain.ID, fresh.ID})
	same(t, history(""), []chat.ID{plain.ID})
	around, err := s.FetchMessages(c, store.MessageQuery{Channel: channel, Limit: 10, Nearby: plain.ID, Viewer: chat.NewID()})
	must(t, err)
	same(t, len(around), 1)
	found, err := s.SearchMessages(c, store.MessageSearch{Channel: channel, Query: "word", Limit: 10, Sort: store.SortOldest, Viewer: ada})
	must(t, err)
	same(t, len(found), 2)
	same(t, found[0].ID, old.ID)

	gone, err := s.DeleteEphemeralMessages(c, chat.NewIDAt(time.Now().Add(-10*time.Minute)), 100)
	must(t, err)
	same(t, gone, []*chat.Message{old})
	same(t, history(bot), []chat.ID{plain.ID, fresh.ID})
	gone, err = s.DeleteEphemeralMessages(c, chat.NewIDAt(time.Now().Add(-10*time.Minute)), 100)
	must(t, err)
	same(t, len(gone), 0)
}
