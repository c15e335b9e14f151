package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
)

func TestSendMessage(t *testing.T) {
	f := newMsgFixture(t)
	alice := f.h.NewUser("alice")
	s, ch := f.server(alice)
	ev := f.h.Listen(event.Of(ch.ID))

	res := f.do(alice, http.MethodPost, msgPath(ch.ID), map[string]any{"content": "hello world"})
	if res.Status != http.StatusOK {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "Message", res.Body)
	m := res.Map(t)
	if m["content"] != "hello world" || m["author"] != string(alice.ID) || m["channel"] != string(ch.ID) {
		t.Errorf("message = %s", res.Body)
	}
	if nonce, _ := m["nonce"].(string); !chat.ID(nonce).Valid() {
		t.Errorf("nonce = %v, want a fresh ULID", m["nonce"])
	}
	user, _ := m["user"].(map[string]any)
	if user["_id"] != string(alice.ID) || user["relationship"] != "None" {
		t.Errorf("user = %v, want alice with relationship None", m["user"])
	}
	member, _ := m["member"].(map[string]any)
	if id, _ := member["_id"].(map[string]any); id["server"] != string(s.ID) || id["user"] != string(alice.ID) {
		t.Errorf("member = %v", m["member"])
	}

	got := ev.Wait(chat.EvMessage, nil)
	if got.Body["_id"] != m["_id"] || got.Body["user"] == nil || got.Body["member"] == nil {
		t.Errorf("Message event = %s", got.Raw)
	}

	fetched := f.h.Get(msgPath(ch.ID, m["_id"]), alice.Token)
	if fetched.Status != http.StatusOK {
		t.Fatalf("fetch = %d %s", fetched.Status, fetched.Body)
	}
	apitest.CheckSchema(t, "Message", fetched.Body)
	if fm := fetched.Map(t); fm["user"] != nil || fm["member"] != nil || fm["content"] != "hello world" {
		t.Errorf("fetched = %s, want the message without user or member", fetched.Body)
	}

	// last_message_id is written shortly after, in a batch.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := f.h.Server.Store.FetchChannel(context.Background(), ch.ID)
		f.must(err)
		if c.LastMessageID != nil && string(*c.LastMessageID) == m["_id"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("last_message_id = %v, want %v", c.LastMessageID, m["_id"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSendMessageInPrivateChannels(t *testing.T) {
	f := newMsgFixture(t)
	alice, bob, carol := f.h.NewUser("alice"), f.h.NewUser("bob"), f.h.NewUser("carol")
	dm := f.dm(alice, bob)
	group := f.group(alice, bob)

	for _, ch := range []*chat.Channel{dm, group} {
		m := f.sendOK(bob, ch.ID, "hi")
		if m["member"] != nil {
			t.Errorf("%s: member = %v, want none outside servers", ch.ChannelType, m["member"])
		}
		wantError(t, f.send(carol, ch.ID, map[string]any{"content": "x"}), http.StatusNotFound, "NotFound")
	}

	// A DM with someone who is not a friend is read-only.
	stranger := f.h.NewUser("dave")
	ro := f.dm(alice, stranger)
	f.must(f.h.Server.Store.SetRelationship(context.Background(), alice.ID, stranger.ID, chat.RelationNone))
	f.must(f.h.Server.Store.SetRelationship(context.Background(), stranger.ID, alice.ID, chat.RelationNone))
	wantError(t, f.send(alice, ro.ID, map[string]any{"content": "x"}), http.StatusForbidden, "MissingPermission", "SendMessage")
}

func TestSendMessageRefusals(t *testing.T) {
	f := newMsgFixture(t)
	owner := f.h.NewUser("owner")
	member := f.h.NewUser("member")
	outsider := f.h.NewUser("outsider")
	s, _ := f.server(owner)
	f.join(s, member)
	role := f.role(s, perm.Masquerade, 1)
	masker := f.h.NewUser("masker")
	f.join(s, masker, role)
	other := f.channel(s)
	foreign := f.insert(other.ID, owner.ID, "elsewhere")
	used := f.file(chat.TagAttachments, owner)
	f.must(func() error {
		r := f.fileRecord(used)
		r.UsedFor = "message"
		return f.h.Server.Store.UpdateFile(context.Background(), r)
	}())
	avatar := f.file(chat.TagAvatars, owner)

	files := func(n int) []string {
		var ids []string
		for range n {
			ids = append(ids, f.file(chat.TagAttachments, owner))
		}
		return ids
	}
	embeds := func(n int) []map[string]any {
		var out []map[string]any
		for range n {
			out = append(out, map[string]any{"title": "t"})
		}
		return out
	}
	replies := func(n int) []map[string]any {
		var out []map[string]any
		for range n {
			out = append(out, map[string]any{"id": string(chat.NewID()), "mention": false})
		}
		return out
	}
	euro := strings.Repeat("€", 700) // 700 characters, 2100 bytes
	noSend := f.role(s, 0, 2)
	muted := f.h.NewUser("muted")
	f.join(s, muted, noSend)

	tests := []struct {
		name   string
		as     *apitest.User
		body   any
		header map[string]string
		status int
		typ    string
		perm   string
	}{
		{"empty", member, map[string]any{}, nil, 422, "EmptyMessage", ""},
		{"empty content", member, map[string]any{"content": ""}, nil, 422, "EmptyMessage", ""},
		{"too many characters", member, map[string]any{"content": strings.Repeat("a", 2001)}, nil, 422, "FailedValidation", ""},
		{"too many bytes", member, map[string]any{"content": euro}, nil, 422, "PayloadTooLarge", ""},
		{"embed description counts", owner, map[string]any{"content": strings.Repeat("a", 1500),
			"embeds": []map[string]any{{"description": strings.Repeat("b", 501)}}}, nil, 422, "PayloadTooLarge", ""},
		{"malformed json", member, `{"content":`, nil, 400, "FailedValidation", ""},
		{"wrong type", member, map[string]any{"content": 5}, nil, 422, "FailedValidation", ""},
		{"too many attachments", owner, map[string]any{"attachments": files(6)}, nil, 400, "TooManyAttachments", ""},
		{"unknown attachment", owner, map[string]any{"attachments": []string{"nope"}}, nil, 404, "NotFound", ""},
		{"used attachment", owner, map[string]any{"attachments": []string{used}}, nil, 404, "NotFound", ""},
		{"attachment of another tag", owner, map[string]any{"attachments": []string{avatar}}, nil, 404, "NotFound", ""},
		{"too many embeds", owner, map[string]any{"embeds": embeds(6)}, nil, 400, "TooManyEmbeds", ""},
		{"bad embed colour", owner, map[string]any{"embeds": []map[string]any{{"colour": "url(x)"}}}, nil, 422, "FailedValidation", ""},
		{"unknown embed media", owner, map[string]any{"embeds": []map[string]any{{"media": "nope"}}}, nil, 404, "NotFound", ""},
		{"too many replies", owner, map[string]any{"content": "x", "replies": replies(6)}, nil, 400, "TooManyReplies", ""},
		{"reply to a missing message", owner, map[string]any{"content": "x", "replies": replies(1)}, nil, 404, "NotFound", ""},
		{"reply into another channel", owner, map[string]any{"content": "x",
			"replies": []map[string]any{{"id": foreign.ID, "mention": true}}}, nil, 404, "NotFound", ""},
		{"masquerade without permission", member, map[string]any{"content": "x",
			"masquerade": map[string]any{"name": "n"}}, nil, 403, "MissingPermission", "Masquerade"},
		{"masquerade colour without ManageRole", masker, map[string]any{"content": "x",
			"masquerade": map[string]any{"colour": "red"}}, nil, 403, "MissingPermission", "ManageRole"},
		{"bad masquerade colour", owner, map[string]any{"content": "x",
			"masquerade": map[string]any{"colour": "rgb(1,2,3); background: url(x)"}}, nil, 422, "FailedValidation", ""},
		{"long masquerade name", owner, map[string]any{"content": "x",
			"masquerade": map[string]any{"name": strings.Repeat("n", 33)}}, nil, 422, "FailedValidation", ""},
		{"restrict without list", owner, map[string]any{"content": "x",
			"interactions": map[string]any{"restrict_reactions": true}}, nil, 400, "InvalidProperty", ""},
		{"malformed reaction", owner, map[string]any{"content": "x",
			"interactions": map[string]any{"reactions": []string{"smile"}}}, nil, 400, "InvalidOperation", ""},
		{"unknown custom emoji", owner, map[string]any{"content": "x",
			"interactions": map[string]any{"reactions": []string{string(chat.NewID())}}}, nil, 404, "NotFound", ""},
		{"duplicate reactions", owner, map[string]any{"content": "x",
			"interactions": map[string]any{"reactions": []string{"👍", "👍"}}}, nil, 422, "FailedValidation", ""},
		{"flags out of range", owner, map[string]any{"content": "x", "flags": 8}, nil, 400, "InvalidProperty", ""},
		{"mention flag from a user", owner, map[string]any{"content": "x", "flags": 2}, nil, 400, "IsNotBot", ""},
		{"everyone without permission", member, map[string]any{"content": "hi @everyone"}, nil, 403, "MissingPermission", "MentionEveryone"},
		{"online without permission", member, map[string]any{"content": "@online hi"}, nil, 403, "MissingPermission", "MentionEveryone"},
		{"role mention without permission", member, map[string]any{"content": "<%" + string(role) + ">"}, nil, 403, "MissingPermission", "MentionRoles"},
		{"long nonce", member, map[string]any{"content": "x", "nonce": strings.Repeat("n", 65)}, nil, 422, "FailedValidation", ""},
		{"not a member", outsider, map[string]any{"content": "x"}, nil, 404, "NotFound", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := f.channel(s)
			ev := f.h.Listen(event.Of(ch.ID))
			res := f.h.Do(apitest.Request{Method: http.MethodPost, Path: msgPath(ch.ID), Body: tt.body,
				Session: tt.as.Token, Header: tt.header})
			if tt.perm != "" {
				wantError(t, res, tt.status, tt.typ, tt.perm)
			} else {
				wantError(t, res, tt.status, tt.typ)
			}
			if n := len(f.history(ch.ID)); n != 0 {
				t.Errorf("%d messages stored after a refused send", n)
			}
			ev.None(50 * time.Millisecond)
		})
	}

	t.Run("no SendMessage", func(t *testing.T) {
		ch := f.channel(s)
		ch.RolePermissions = map[chat.ID]chat.Override{noSend: {D: int64(perm.SendMessage)}}
		f.must(f.h.Server.Store.UpdateChannel(context.Background(), ch))
		wantError(t, f.send(muted, ch.ID, map[string]any{"content": "x"}), 403, "MissingPermission", "SendMessage")
	})
	t.Run("no UploadFiles", func(t *testing.T) {
		ch := f.channel(s)
		ch.DefaultPermissions = &chat.Override{D: int64(perm.UploadFiles | perm.SendEmbeds)}
		f.must(f.h.Server.Store.UpdateChannel(context.Background(), ch))
		wantError(t, f.send(member, ch.ID, map[string]any{"attachments": files(1)}), 403, "MissingPermission", "UploadFiles")
		wantError(t, f.send(member, ch.ID, map[string]any{"embeds": embeds(1)}), 403, "MissingPermission", "SendEmbeds")
	})
	t.Run("unauthenticated", func(t *testing.T) {
		ch := f.channel(s)
		wantError(t, f.do(nil, http.MethodPost, msgPath(ch.ID), map[string]any{"content": "x"}), 401, "NotAuthenticated")
	})
	t.Run("unknown channel", func(t *testing.T) {
		wantError(t, f.send(owner, chat.NewID(), map[string]any{"content": "x"}), 404, "NotFound")
	})
}

func TestSendAttachmentsEmbedsAndExtras(t *testing.T) {
	f := newMsgFixture(t)
	owner := f.h.NewUser("owner")
	_, ch := f.server(owner)
	a1, a2, media := f.file(chat.TagAttachments, owner), f.file(chat.TagAttachments, owner), f.file(chat.TagAttachments, owner)
	res := f.send(owner, ch.ID, map[string]any{
		"attachments": []string{a1, a2},
		"embeds": []map[string]any{{"title": "Title", "description": "text", "colour": "#ff0000",
			"url": "https://example.com", "icon_url": "https://example.com/i.png", "media": media}},
		"masquerade":   map[string]any{"name": "Mask", "avatar": "https://example.com/a.png", "colour": "linear-gradient(30deg, red, #00ff00 50%)"},
		"interactions": map[string]any{"reactions": []string{"👍", "❤️"}, "restrict_reactions": true},
		"flags":        1,
	})
	if res.Status != http.StatusOK {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "Message", res.Body)
	var m chat.Message
	res.JSON(t, &m)
	if len(m.Attachments) != 2 || m.Attachments[0].ID != a1 || m.Attachments[1].ID != a2 {
		t.Errorf("attachments = %+v", m.Attachments)
	}
	if len(m.Embeds) != 1 || m.Embeds[0].Type != "Text" || m.Embeds[0].Media == nil || m.Embeds[0].Media.ID != media ||
		*m.Embeds[0].Colour != "#ff0000" {
		t.Errorf("embeds = %s", res.Body)
	}
	if m.Masquerade == nil || *m.Masquerade.Name != "Mask" || m.Interactions == nil || !m.Interactions.RestrictReactions {
		t.Errorf("masquerade/interactions = %s", res.Body)
	}
	if m.Flags != chat.MessageFlagSuppressNotifications {
		t.Errorf("flags = %d, want 1", m.Flags)
	}
	for _, id := range []string{a1, a2, media} {
		if r := f.fileRecord(id); r.UsedFor != "message" {
			t.Errorf("file %s used_for = %q, want message", id, r.UsedFor)
		}
	}
	// Each upload is consumed once.
	wantError(t, f.send(owner, ch.ID, map[string]any{"attachments": []string{a1}}), 404, "NotFound")

	// A reply that does not exist is dropped when asked to.
	res = f.send(owner, ch.ID, map[string]any{"content": "x",
		"replies": []map[string]any{{"id": chat.NewID(), "mention": false, "fail_if_not_exists": false}, {"id": m.ID, "mention": false}}})
	if res.Status != http.StatusOK {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	if r := res.Map(t)["replies"].([]any); len(r) != 1 || r[0] != string(m.ID) {
		t.Errorf("replies = %v, want only %s", r, m.ID)
	}
}

func TestSendMentions(t *testing.T) {
	f := newMsgFixture(t)
	owner, member, outsider := f.h.NewUser("owner"), f.h.NewUser("member"), f.h.NewUser("outsider")
	s, ch := f.server(owner)
	f.join(s, member)
	role := f.role(s, 0, 1)
	ghost := chat.NewID()

	first := f.sendOK(member, ch.ID, "question")
	res := f.send(owner, ch.ID, map[string]any{
		"content": "hi <@" + string(outsider.ID) + "> `<@" + string(owner.ID) + ">` @everyone <%" + string(role) + "> <%" + string(ghost) + ">",
		"replies": []map[string]any{{"id": first["_id"], "mention": true}},
	})
	if res.Status != http.StatusOK {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	var m chat.Message
	res.JSON(t, &m)
	if len(m.Mentions) != 1 || m.Mentions[0] != member.ID {
		t.Errorf("mentions = %v, want only the replied member (outsider cannot see, code span ignored)", m.Mentions)
	}
	if len(m.RoleMentions) != 1 || m.RoleMentions[0] != role {
		t.Errorf("role_mentions = %v, want the existing role only", m.RoleMentions)
	}
	if m.Flags != chat.MessageFlagMentionsEveryone {
		t.Errorf("flags = %d, want MentionsEveryone", m.Flags)
	}

	unreads := f.h.Get("/sync/unreads", member.Token)
	var list []chat.ChannelUnread
	unreads.JSON(t, &list)
	if len(list) != 1 || list[0].ID.Channel != ch.ID || len(list[0].Mentions) != 1 || list[0].Mentions[0] != m.ID {
		t.Errorf("member unreads = %s", unreads.Body)
	}

	// In groups every recipient, the author included, is told of a mention.
	group := f.group(owner, member, outsider)
	gm := f.sendOK(member, group.ID, "hey <@"+string(outsider.ID)+">")
	for _, u := range []*apitest.User{owner, member, outsider} {
		var list []chat.ChannelUnread
		f.h.Get("/sync/unreads", u.Token).JSON(t, &list)
		found := false
		for _, un := range list {
			if un.ID.Channel == group.ID && len(un.Mentions) == 1 && string(un.Mentions[0]) == gm["_id"] {
				found = true
			}
		}
		if !found {
			t.Errorf("%s has no group mention in %+v", u.Username, list)
		}
	}

	// Bots may set a mention flag, one at a time.
	bot, token := f.bot(owner, "botty")
	f.join(s, bot)
	send := func(flags int) *apitest.Response {
		return f.h.Do(apitest.Request{Method: http.MethodPost, Path: msgPath(ch.ID), Bot: token,
			Body: map[string]any{"content": "x", "flags": flags}})
	}
	wantError(t, send(6), 400, "InvalidFlagValue")
	wantError(t, send(2), 403, "MissingPermission", "MentionEveryone")
	f.must(f.h.Server.Store.UpdateMember(context.Background(), &chat.Member{ID: chat.MemberID{Server: s.ID, User: bot.ID},
		JoinedAt: chat.Now(), Roles: []chat.ID{f.role(s, perm.MentionEveryone, 0)}}))
	if res := send(4); res.Status != 200 || res.Map(t)["flags"] != float64(4) {
		t.Errorf("bot flags 4 = %d %s", res.Status, res.Body)
	}
}

func TestSendIdempotency(t *testing.T) {
	f := newMsgFixture(t)
	owner := f.h.NewUser("owner")
	_, ch := f.server(owner)
	ev := f.h.Listen(event.Of(ch.ID))
	send := func(key string, body map[string]any) *apitest.Response {
		return f.h.Do(apitest.Request{Method: http.MethodPost, Path: msgPath(ch.ID), Body: body,
			Session: owner.Token, Header: map[string]string{"Idempotency-Key": key}})
	}
	key := string(chat.NewID())
	res := send(key, map[string]any{"content": "once"})
	if res.Status != 200 || res.Map(t)["nonce"] != key {
		t.Fatalf("first send = %d %s", res.Status, res.Body)
	}
	if got := ev.Wait(chat.EvMessage, nil); got.Body["nonce"] != key {
		t.Errorf("event nonce = %v, want %s", got.Body["nonce"], key)
	}
	wantError(t, send(key, map[string]any{"content": "once"}), http.StatusConflict, "DuplicateNonce")
	ev.None(50 * time.Millisecond)

	// A refused send does not use up its key.
	other := string(chat.NewID())
	wantError(t, send(other, map[string]any{"attachments": []string{"nope"}}), 404, "NotFound")
	if res := send(other, map[string]any{"content": "retry"}); res.Status != 200 {
		t.Errorf("retry after a refusal = %d %s", res.Status, res.Body)
	}

	// The deprecated body nonce guards the same way.
	body := map[string]any{"content": "x", "nonce": "abc"}
	if res := send("", body); res.Status != 200 || res.Map(t)["nonce"] != "abc" {
		t.Fatalf("nonce send = %d %s", res.Status, res.Body)
	}
	wantError(t, send("", body), http.StatusConflict, "DuplicateNonce")
	if n := len(f.history(ch.ID)); n != 3 {
		t.Errorf("%d messages stored, want 3", n)
	}
}

func TestQueryMessages(t *testing.T) {
	f := newMsgFixture(t)
	owner, member := f.h.NewUser("owner"), f.h.NewUser("member")
	s, ch := f.server(owner)
	f.join(s, member)
	var ids []chat.ID
	for i := range 10 {
		author := owner.ID
		if i%2 == 1 {
			author = member.ID
		}
		ids = append(ids, f.insert(ch.ID, author, "m").ID)
	}
	query := func(u *apitest.User, q string) *apitest.Response {
		return f.h.Get(msgPath(ch.ID)+"?"+q, u.Token)
	}
	idsOf := func(res *apitest.Response) []chat.ID {
		t.Helper()
		if res.Status != 200 {
			t.Fatalf("query = %d %s", res.Status, res.Body)
		}
		var msgs []chat.Message
		res.JSON(t, &msgs)
		var out []chat.ID
		for _, m := range msgs {
			out = append(out, m.ID)
		}
		return out
	}
	eq := func(name string, got []chat.ID, want ...chat.ID) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %v, want %v", name, got, want)
				return
			}
		}
	}
	res := query(member, "")
	apitest.CheckSchema(t, "BulkMessageResponse", res.Body)
	eq("default", idsOf(res), ids[9], ids[8], ids[7], ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0])
	eq("limit", idsOf(query(member, "limit=2")), ids[9], ids[8])
	eq("before", idsOf(query(member, "limit=2&before="+string(ids[5]))), ids[4], ids[3])
	eq("after oldest", idsOf(query(member, "limit=3&sort=Oldest&after="+string(ids[5]))), ids[6], ids[7], ids[8])
	eq("nearby", idsOf(query(member, "limit=4&nearby="+string(ids[5]))), ids[5], ids[6], ids[7], ids[4], ids[3], ids[2])

	res = query(member, "limit=2&include_users=true")
	if res.Status != 200 {
		t.Fatalf("include_users = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "BulkMessageResponse", res.Body)
	var bulk struct {
		Messages []chat.Message `json:"messages"`
		Users    []chat.User    `json:"users"`
		Members  []chat.Member  `json:"members"`
	}
	res.JSON(t, &bulk)
	if len(bulk.Messages) != 2 || len(bulk.Users) != 2 || len(bulk.Members) != 2 {
		t.Errorf("include_users = %s", res.Body)
	}
	for _, u := range bulk.Users {
		if u.ID == member.ID && u.Relationship != chat.RelationUser {
			t.Errorf("own user relationship = %s, want User", u.Relationship)
		}
	}

	wantError(t, query(member, "sort=Relevance"), 400, "InvalidOperation")
	wantError(t, query(member, "limit=0"), 422, "FailedValidation")
	wantError(t, query(member, "limit=101"), 422, "FailedValidation")
	wantError(t, query(member, "limit=x"), 422, "FailedValidation")
	wantError(t, query(member, "sort=Sideways"), 422, "FailedValidation")
	wantError(t, query(member, "before=short"), 422, "FailedValidation")

	// History needs ReadMessageHistory; a channel one cannot see is unknown.
	hidden := f.channel(s)
	hidden.DefaultPermissions = &chat.Override{D: int64(perm.ReadMessageHistory)}
	f.must(f.h.Server.Store.UpdateChannel(context.Background(), hidden))
	wantError(t, f.h.Get(msgPath(hidden.ID), member.Token), 403, "MissingPermission", "ReadMessageHistory")
	if res := f.h.Get(msgPath(hidden.ID), owner.Token); res.Status != 200 {
		t.Errorf("owner history = %d %s", res.Status, res.Body)
	}
	hidden.DefaultPermissions = &chat.Override{D: int64(perm.ViewChannel)}
	f.must(f.h.Server.Store.UpdateChannel(context.Background(), hidden))
	secret := f.insert(hidden.ID, owner.ID, "secret")
	wantError(t, f.h.Get(msgPath(hidden.ID), member.Token), 404, "NotFound")
	wantError(t, f.h.Get(msgPath(hidden.ID, secret.ID), member.Token), 404, "NotFound")

	// A message is only found through its own channel.
	wantError(t, f.h.Get(msgPath(ch.ID, secret.ID), member.Token), 404, "NotFound")
	wantError(t, f.h.Get(msgPath(ch.ID, chat.NewID()), member.Token), 404, "NotFound")
}

func TestEditMessage(t *testing.T) {
	f := newMsgFixture(t)
	owner, member := f.h.NewUser("owner"), f.h.NewUser("member")
	s, ch := f.server(owner)
	f.join(s, member)
	ev := f.h.Listen(event.Of(ch.ID))
	res := f.send(member, ch.ID, map[string]any{"content": "first", "embeds": []map[string]any{{"title": "kept"}}})
	if res.Status != 200 {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	id := res.Map(t)["_id"].(string)
	ev.Wait(chat.EvMessage, nil)
	path := msgPath(ch.ID, id)

	res = f.do(member, http.MethodPatch, path, map[string]any{"content": "second"})
	if res.Status != 200 {
		t.Fatalf("edit = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "Message", res.Body)
	var m chat.Message
	res.JSON(t, &m)
	if *m.Content != "second" || m.Edited == nil || len(m.Embeds) != 1 || *m.Embeds[0].Title != "kept" {
		t.Errorf("edited = %s, want new content, edited and the text embed kept", res.Body)
	}
	up := ev.Wait(chat.EvMessageUpdate, nil)
	data := up.Body["data"].(map[string]any)
	if up.Body["id"] != id || data["content"] != "second" || data["edited"] == nil || len(data["embeds"].([]any)) != 1 {
		t.Errorf("MessageUpdate = %s", up.Raw)
	}
	if clear, ok := up.Body["clear"].([]any); !ok || len(clear) != 0 {
		t.Errorf("clear = %v, want []", up.Body["clear"])
	}

	res = f.do(member, http.MethodPatch, path, map[string]any{"embeds": []map[string]any{}})
	if res.Status != 200 || res.Map(t)["embeds"] != nil {
		t.Errorf("edit embeds [] = %d %s, want the embeds removed", res.Status, res.Body)
	}
	if up := ev.Wait(chat.EvMessageUpdate, nil); len(up.Body["data"].(map[string]any)["embeds"].([]any)) != 0 {
		t.Errorf("MessageUpdate = %s, want embeds []", up.Raw)
	}

	wantError(t, f.do(owner, http.MethodPatch, path, map[string]any{"content": "mine now"}), 403, "CannotEditMessage")
	wantError(t, f.do(member, http.MethodPatch, path, map[string]any{"content": ""}), 422, "FailedValidation")
	wantError(t, f.do(member, http.MethodPatch, path, map[string]any{"content": strings.Repeat("€", 700)}), 422, "PayloadTooLarge")
	wantError(t, f.do(member, http.MethodPatch, msgPath(ch.ID, chat.NewID()), map[string]any{"content": "x"}), 404, "NotFound")
	many := make([]map[string]any, 11)
	for i := range many {
		many[i] = map[string]any{"title": "t"}
	}
	wantError(t, f.do(member, http.MethodPatch, path, map[string]any{"embeds": many}), 422, "FailedValidation")
	ev.None(50 * time.Millisecond)
}

func TestDeleteMessage(t *testing.T) {
	f := newMsgFixture(t)
	owner, member, other := f.h.NewUser("owner"), f.h.NewUser("member"), f.h.NewUser("other")
	s, ch := f.server(owner)
	f.join(s, member)
	f.join(s, other)
	ev := f.h.Listen(event.Of(ch.ID))
	file := f.file(chat.TagAttachments, member)
	res := f.send(member, ch.ID, map[string]any{"attachments": []string{file}})
	if res.Status != 200 {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	id := res.Map(t)["_id"].(string)
	ev.Wait(chat.EvMessage, nil)

	wantError(t, f.do(other, http.MethodDelete, msgPath(ch.ID, id), nil), 403, "MissingPermission", "ManageMessages")
	ev.None(50 * time.Millisecond)
	if res := f.do(member, http.MethodDelete, msgPath(ch.ID, id), nil); res.Status != http.StatusNoContent {
		t.Fatalf("delete own = %d %s", res.Status, res.Body)
	}
	if got := ev.Wait(chat.EvMessageDelete, nil); got.Body["id"] != id || got.Body["channel"] != string(ch.ID) {
		t.Errorf("MessageDelete = %s", got.Raw)
	}
	if r := f.fileRecord(file); r.Deleted == nil || !*r.Deleted {
		t.Errorf("attachment not released: %+v", r)
	}
	wantError(t, f.do(member, http.MethodDelete, msgPath(ch.ID, id), nil), 404, "NotFound")

	// The owner (ManageMessages) deletes anyone's message.
	m := f.insert(ch.ID, other.ID, "bye")
	if res := f.do(owner, http.MethodDelete, msgPath(ch.ID, m.ID), nil); res.Status != http.StatusNoContent {
		t.Fatalf("delete other's as owner = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvMessageDelete, nil)
}

// TestDeleteNewestMessage: deleting a channel's newest message points
// last_message_id at the newest one left and says so with ChannelUpdate
// before MessageDelete (reference 0.15.2, #899), whether the newest id was
// already stored or still waited to be written.
func TestDeleteNewestMessage(t *testing.T) {
	f := newMsgFixture(t)
	owner := f.h.NewUser("owner")
	_, ch := f.server(owner)
	ev := f.h.Listen(event.Of(ch.ID))
	a := f.sendOK(owner, ch.ID, "a")["_id"].(string)
	b := f.sendOK(owner, ch.ID, "b")["_id"].(string)
	c := f.sendOK(owner, ch.ID, "c")["_id"].(string)
	last := func() any {
		t.Helper()
		return f.do(owner, http.MethodGet, "/channels/"+string(ch.ID), nil).Map(t)["last_message_id"]
	}
	deleted := func(id, wantLast string) {
		t.Helper()
		if res := f.do(owner, http.MethodDelete, msgPath(ch.ID, id), nil); res.Status != http.StatusNoContent {
			t.Fatalf("delete = %d %s", res.Status, res.Body)
		}
		got := ev.Wait("", func(e apitest.Event) bool {
			return e.Type == chat.EvChannelUpdate || e.Type == chat.EvMessageDelete
		})
		if wantLast == "" {
			if got.Type != chat.EvMessageDelete {
				t.Errorf("deleting %s: %s first, want MessageDelete", id, got.Raw)
			}
			return
		}
		data, _ := got.Body["data"].(map[string]any)
		if got.Type != chat.EvChannelUpdate || got.Body["id"] != string(ch.ID) || data["last_message_id"] != wantLast || len(data) != 1 {
			t.Errorf("deleting %s: %s, want ChannelUpdate last_message_id %s", id, got.Raw, wantLast)
		}
		ev.Wait(chat.EvMessageDelete, nil)
	}
	// c's id is most likely still waiting in the coalescer.
	deleted(c, b)
	if got := last(); got != b {
		t.Errorf("last_message_id after deleting c = %v, want %s", got, b)
	}
	time.Sleep(1500 * time.Millisecond) // past the coalescer's delay: nothing brings c back
	if got := last(); got != b {
		t.Errorf("last_message_id a moment later = %v, want %s", got, b)
	}
	// An older message: nothing changes.
	d := f.sendOK(owner, ch.ID, "d")["_id"].(string)
	ev.Wait(chat.EvMessage, nil)
	time.Sleep(1500 * time.Millisecond) // d is now stored as the last one
	deleted(a, "")
	deleted(d, b)
	if got := last(); got != b {
		t.Errorf("last_message_id after deleting d = %v, want %s", got, b)
	}
	// The last message: none is left and no ChannelUpdate (as the reference).
	deleted(b, "")
	if got := last(); got != nil {
		t.Errorf("last_message_id of an empty channel = %v", got)
	}
}

func TestBulkDeleteMessages(t *testing.T) {
	f := newMsgFixture(t)
	owner, member := f.h.NewUser("owner"), f.h.NewUser("member")
	s, ch := f.server(owner)
	f.join(s, member)
	other := f.channel(s)
	ev := f.h.Listen(event.Of(ch.ID))
	a, b := f.insert(ch.ID, member.ID, "a"), f.insert(ch.ID, owner.ID, "b")
	keep := f.insert(ch.ID, owner.ID, "keep")
	elsewhere := f.insert(other.ID, owner.ID, "elsewhere")
	path := msgPath(ch.ID, "bulk")

	wantError(t, f.do(member, http.MethodDelete, path, map[string]any{"ids": []chat.ID{a.ID}}), 403, "MissingPermission", "ManageMessages")
	wantError(t, f.do(owner, http.MethodDelete, path, map[string]any{"ids": []chat.ID{}}), 422, "FailedValidation")
	many := make([]chat.ID, 101)
	for i := range many {
		many[i] = chat.NewID()
	}
	wantError(t, f.do(owner, http.MethodDelete, path, map[string]any{"ids": many}), 422, "FailedValidation")
	old := chat.NewIDAt(time.Now().Add(-8 * 24 * time.Hour))
	wantError(t, f.do(owner, http.MethodDelete, path, map[string]any{"ids": []chat.ID{a.ID, old}}), 400, "InvalidOperation")
	ev.None(50 * time.Millisecond)

	res := f.do(owner, http.MethodDelete, path, map[string]any{"ids": []chat.ID{a.ID, b.ID, elsewhere.ID, chat.NewID()}})
	if res.Status != http.StatusNoContent {
		t.Fatalf("bulk delete = %d %s", res.Status, res.Body)
	}
	got := ev.Wait(chat.EvBulkMessageDelete, nil)
	var body chat.BulkMessageDeleteEvent
	f.must(json.Unmarshal(got.Raw, &body))
	if body.Channel != ch.ID || len(body.IDs) != 2 || body.IDs[0] != a.ID || body.IDs[1] != b.ID {
		t.Errorf("BulkMessageDelete = %s, want only the channel's existing ids", got.Raw)
	}
	if h := f.history(ch.ID); len(h) != 1 || h[0].ID != keep.ID {
		t.Errorf("history after bulk delete = %d messages", len(h))
	}
	if h := f.history(other.ID); len(h) != 1 {
		t.Errorf("another channel's message was deleted")
	}
}
