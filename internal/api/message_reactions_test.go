package api_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
)

func reactPath(ch, msg chat.ID, emoji string) string {
	return msgPath(ch, msg, "reactions", url.PathEscape(emoji))
}

func TestReactions(t *testing.T) {
	f := newMsgFixture(t)
	owner, member, other := f.h.NewUser("owner"), f.h.NewUser("member"), f.h.NewUser("other")
	s, ch := f.server(owner)
	f.join(s, member)
	f.join(s, other)
	custom := &chat.Emoji{ID: chat.NewID(), Parent: chat.EmojiParent{Type: "Detached"}, CreatorID: owner.ID, Name: "custom"}
	f.must(f.h.Server.Store.InsertEmoji(context.Background(), custom))
	m := f.insert(ch.ID, owner.ID, "react to me")
	ev := f.h.Listen(event.Of(ch.ID))
	reactions := func() map[string][]chat.ID {
		t.Helper()
		stored, err := f.h.Server.Store.FetchMessage(context.Background(), m.ID)
		f.must(err)
		return stored.Reactions
	}

	for _, e := range []string{"👍", string(custom.ID)} {
		if res := f.do(member, http.MethodPut, reactPath(ch.ID, m.ID, e), nil); res.Status != http.StatusNoContent {
			t.Fatalf("react %s = %d %s", e, res.Status, res.Body)
		}
		got := ev.Wait(chat.EvMessageReact, nil)
		if got.Body["id"] != string(m.ID) || got.Body["channel_id"] != string(ch.ID) ||
			got.Body["user_id"] != string(member.ID) || got.Body["emoji_id"] != e {
			t.Errorf("MessageReact = %s", got.Raw)
		}
	}
	// Reacting twice changes nothing but is still told.
	f.do(member, http.MethodPut, reactPath(ch.ID, m.ID, "👍"), nil)
	ev.Wait(chat.EvMessageReact, nil)
	f.do(other, http.MethodPut, reactPath(ch.ID, m.ID, "👍"), nil)
	ev.Wait(chat.EvMessageReact, nil)
	if r := reactions(); len(r["👍"]) != 2 || len(r[string(custom.ID)]) != 1 {
		t.Errorf("reactions = %v", r)
	}
	fetched := f.h.Get(msgPath(ch.ID, m.ID), member.Token)
	apitest.CheckSchema(t, "Message", fetched.Body)

	wantError(t, f.do(member, http.MethodPut, reactPath(ch.ID, m.ID, "smile"), nil), 400, "InvalidOperation")
	wantError(t, f.do(member, http.MethodPut, reactPath(ch.ID, m.ID, string(chat.NewID())), nil), 404, "NotFound")
	wantError(t, f.do(member, http.MethodPut, reactPath(ch.ID, chat.NewID(), "👍"), nil), 404, "NotFound")

	// Removing someone else's reaction needs ManageMessages.
	wantError(t, f.do(member, http.MethodDelete, reactPath(ch.ID, m.ID, "👍")+"?user_id="+string(other.ID), nil),
		403, "MissingPermission", "ManageMessages")
	wantError(t, f.do(member, http.MethodDelete, reactPath(ch.ID, m.ID, "👍")+"?remove_all=true", nil),
		403, "MissingPermission", "ManageMessages")
	ev.None(50 * time.Millisecond)

	if res := f.do(member, http.MethodDelete, reactPath(ch.ID, m.ID, "👍"), nil); res.Status != http.StatusNoContent {
		t.Fatalf("unreact = %d %s", res.Status, res.Body)
	}
	if got := ev.Wait(chat.EvMessageUnreact, nil); got.Body["user_id"] != string(member.ID) || got.Body["emoji_id"] != "👍" {
		t.Errorf("MessageUnreact = %s", got.Raw)
	}
	if res := f.do(owner, http.MethodDelete, reactPath(ch.ID, m.ID, "👍")+"?user_id="+string(other.ID), nil); res.Status != http.StatusNoContent {
		t.Fatalf("unreact other as owner = %d %s", res.Status, res.Body)
	}
	if got := ev.Wait(chat.EvMessageUnreact, nil); got.Body["user_id"] != string(other.ID) {
		t.Errorf("MessageUnreact = %s", got.Raw)
	}
	if r := reactions(); len(r) != 1 || r["👍"] != nil {
		t.Errorf("reactions = %v, want only the custom emoji left", r)
	}
	if res := f.do(owner, http.MethodDelete, reactPath(ch.ID, m.ID, string(custom.ID))+"?remove_all=true", nil); res.Status != http.StatusNoContent {
		t.Fatalf("remove_all = %d %s", res.Status, res.Body)
	}
	got := ev.Wait(chat.EvMessageRemoveReaction, nil)
	if got.Body["emoji_id"] != string(custom.ID) || got.Body["user_id"] != nil {
		t.Errorf("MessageRemoveReaction = %s", got.Raw)
	}
	if r := reactions(); len(r) != 0 {
		t.Errorf("reactions = %v, want none", r)
	}
}

func TestReactionLimitsAndClear(t *testing.T) {
	f := newMsgFixture(t)
	owner, member := f.h.NewUser("owner"), f.h.NewUser("member")
	s, ch := f.server(owner)
	f.join(s, member)
	ev := f.h.Listen(event.Of(ch.ID))

	// Twenty distinct emoji at most.
	full := f.insert(ch.ID, owner.ID, "full")
	full.Reactions = map[string][]chat.ID{}
	list := []string{"😀", "😃", "😄", "😁", "😆", "😅", "🤣", "😂", "🙂", "🙃", "😉", "😊", "😇", "🥰", "😍", "🤩", "😘", "😗", "😚", "😙"}
	for _, e := range list {
		full.Reactions[e] = []chat.ID{owner.ID}
	}
	f.must(f.h.Server.Store.UpdateMessage(context.Background(), full))
	wantError(t, f.do(member, http.MethodPut, reactPath(ch.ID, full.ID, "👍"), nil), 400, "InvalidOperation")
	if res := f.do(member, http.MethodPut, reactPath(ch.ID, full.ID, list[0]), nil); res.Status != http.StatusNoContent {
		t.Errorf("joining an existing reaction at the cap = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvMessageReact, nil)

	// A restricted message takes only its listed reactions.
	res := f.send(owner, ch.ID, map[string]any{"content": "poll",
		"interactions": map[string]any{"reactions": []string{"👍", "👎"}, "restrict_reactions": true}})
	if res.Status != 200 {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvMessage, nil)
	poll := chat.ID(res.Map(t)["_id"].(string))
	wantError(t, f.do(member, http.MethodPut, reactPath(ch.ID, poll, "😀"), nil), 400, "InvalidOperation")
	if res := f.do(member, http.MethodPut, reactPath(ch.ID, poll, "👎"), nil); res.Status != http.StatusNoContent {
		t.Errorf("listed reaction = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvMessageReact, nil)

	// Clearing needs ManageMessages and is told as an update.
	wantError(t, f.do(member, http.MethodDelete, msgPath(ch.ID, poll, "reactions"), nil), 403, "MissingPermission", "ManageMessages")
	ev.None(50 * time.Millisecond)
	if res := f.do(owner, http.MethodDelete, msgPath(ch.ID, poll, "reactions"), nil); res.Status != http.StatusNoContent {
		t.Fatalf("clear = %d %s", res.Status, res.Body)
	}
	got := ev.Wait(chat.EvMessageUpdate, nil)
	if data, _ := got.Body["data"].(map[string]any); data == nil || data["reactions"] == nil || len(data["reactions"].(map[string]any)) != 0 {
		t.Errorf("MessageUpdate = %s, want data.reactions {}", got.Raw)
	}

	// Without React nothing can be added.
	noReact := f.channel(s)
	noReact.DefaultPermissions = &chat.Override{D: int64(perm.React)}
	f.must(f.h.Server.Store.UpdateChannel(context.Background(), noReact))
	target := f.insert(noReact.ID, owner.ID, "x")
	wantError(t, f.do(member, http.MethodPut, reactPath(noReact.ID, target.ID, "👍"), nil), 403, "MissingPermission", "React")
}

func TestPins(t *testing.T) {
	f := newMsgFixture(t)
	owner, member := f.h.NewUser("owner"), f.h.NewUser("member")
	s, ch := f.server(owner)
	f.join(s, member)
	m := f.insert(ch.ID, member.ID, "pin me")
	ev := f.h.Listen(event.Of(ch.ID))
	pin := msgPath(ch.ID, m.ID, "pin")

	wantError(t, f.do(member, http.MethodPost, pin, nil), 403, "MissingPermission", "ManageMessages")
	ev.None(50 * time.Millisecond)
	if res := f.do(owner, http.MethodPost, pin, nil); res.Status != http.StatusNoContent {
		t.Fatalf("pin = %d %s", res.Status, res.Body)
	}
	up := ev.Wait(chat.EvMessageUpdate, nil)
	if up.Body["data"].(map[string]any)["pinned"] != true {
		t.Errorf("MessageUpdate = %s", up.Raw)
	}
	sys := ev.Wait(chat.EvMessage, nil)
	apitest.CheckSchema(t, "Message", sys.Raw)
	system, _ := sys.Body["system"].(map[string]any)
	if sys.Body["author"] != string(chat.SystemID) || system["type"] != "message_pinned" ||
		system["id"] != string(m.ID) || system["by"] != string(owner.ID) {
		t.Errorf("system message = %s", sys.Raw)
	}
	wantError(t, f.do(owner, http.MethodPost, pin, nil), 400, "AlreadyPinned")

	// The pinned filter of search finds it.
	res := f.do(member, http.MethodPost, "/channels/"+string(ch.ID)+"/search", map[string]any{"pinned": true})
	var found []chat.Message
	res.JSON(t, &found)
	if len(found) != 1 || found[0].ID != m.ID || found[0].Pinned == nil || !*found[0].Pinned {
		t.Errorf("pinned search = %s", res.Body)
	}

	if res := f.do(owner, http.MethodDelete, pin, nil); res.Status != http.StatusNoContent {
		t.Fatalf("unpin = %d %s", res.Status, res.Body)
	}
	up = ev.Wait(chat.EvMessageUpdate, nil)
	if c := up.Body["clear"].([]any); len(c) != 1 || c[0] != "Pinned" || len(up.Body["data"].(map[string]any)) != 0 {
		t.Errorf("MessageUpdate = %s", up.Raw)
	}
	if sys := ev.Wait(chat.EvMessage, nil); sys.Body["system"].(map[string]any)["type"] != "message_unpinned" {
		t.Errorf("system message = %s", sys.Raw)
	}
	wantError(t, f.do(owner, http.MethodDelete, pin, nil), 400, "NotPinned")

	// In a direct message either side pins without ManageMessages.
	dm := f.dm(owner, member)
	dmMsg := f.insert(dm.ID, owner.ID, "dm")
	if res := f.do(member, http.MethodPost, msgPath(dm.ID, dmMsg.ID, "pin"), nil); res.Status != http.StatusNoContent {
		t.Errorf("pin in DM = %d %s", res.Status, res.Body)
	}
}

func TestSearchMessages(t *testing.T) {
	f := newMsgFixture(t)
	owner, member := f.h.NewUser("owner"), f.h.NewUser("member")
	s, ch := f.server(owner)
	f.join(s, member)
	first := f.insert(ch.ID, owner.ID, "the quick brown fox")
	second := f.insert(ch.ID, member.ID, "a lazy dog and a quick cat")
	f.insert(ch.ID, owner.ID, "nothing to see")
	other := f.channel(s)
	f.insert(other.ID, owner.ID, "quick elsewhere")
	search := func(u *apitest.User, body any) *apitest.Response {
		return f.do(u, http.MethodPost, "/channels/"+string(ch.ID)+"/search", body)
	}
	ids := func(res *apitest.Response) []chat.ID {
		t.Helper()
		if res.Status != 200 {
			t.Fatalf("search = %d %s", res.Status, res.Body)
		}
		var msgs []chat.Message
		res.JSON(t, &msgs)
		var out []chat.ID
		for _, m := range msgs {
			out = append(out, m.ID)
		}
		return out
	}

	got := ids(search(member, map[string]any{"query": "quick", "sort": "Oldest"}))
	if len(got) != 2 || got[0] != first.ID || got[1] != second.ID {
		t.Errorf("search quick oldest = %v", got)
	}
	got = ids(search(member, map[string]any{"query": "quick", "sort": "Latest"}))
	if len(got) != 2 || got[0] != second.ID {
		t.Errorf("search quick latest = %v", got)
	}
	if got := ids(search(member, map[string]any{"query": "fox"})); len(got) != 1 || got[0] != first.ID {
		t.Errorf("search fox = %v", got)
	}
	if got := ids(search(member, map[string]any{"query": `"; DROP TABLE messages; --`})); len(got) != 0 {
		t.Errorf("search of SQL-ish text = %v", got)
	}
	res := search(member, map[string]any{"query": "quick", "include_users": true})
	apitest.CheckSchema(t, "BulkMessageResponse", res.Body)
	if m := res.Map(t); len(m["users"].([]any)) != 2 || len(m["messages"].([]any)) != 2 {
		t.Errorf("include_users = %s", res.Body)
	}

	wantError(t, search(member, map[string]any{"query": "quick", "pinned": true}), 422, "FailedValidation")
	wantError(t, search(member, map[string]any{}), 422, "FailedValidation")
	wantError(t, search(member, map[string]any{"query": ""}), 422, "FailedValidation")
	wantError(t, search(member, map[string]any{"query": "x", "sort": "Nope"}), 422, "FailedValidation")

	bot, token := f.bot(owner, "searcher")
	f.join(s, bot)
	wantError(t, f.h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + string(ch.ID) + "/search",
		Bot: token, Body: map[string]any{"query": "quick"}}), 400, "IsBot")

	hidden := f.channel(s)
	hidden.DefaultPermissions = &chat.Override{D: int64(perm.ReadMessageHistory)}
	f.must(f.h.Server.Store.UpdateChannel(context.Background(), hidden))
	wantError(t, f.do(member, http.MethodPost, "/channels/"+string(hidden.ID)+"/search", map[string]any{"query": "quick"}),
		403, "MissingPermission", "ReadMessageHistory")
	outsider := f.h.NewUser("outsider")
	wantError(t, search(outsider, map[string]any{"query": "quick"}), 404, "NotFound")
}

func TestAppendEmbeds(t *testing.T) {
	f := newMsgFixture(t)
	owner := f.h.NewUser("owner")
	_, ch := f.server(owner)
	m := f.insert(ch.ID, owner.ID, "see https://example.com")
	ev := f.h.Listen(event.Of(ch.ID))
	title := "Example"
	embed := chat.Embed{Type: "Text", Title: &title}
	f.must(f.h.Server.App.AppendEmbeds(context.Background(), ch.ID, m.ID, []chat.Embed{embed}))
	got := ev.Wait(chat.EvMessageAppend, nil)
	appended, _ := got.Body["append"].(map[string]any)
	if got.Body["id"] != string(m.ID) || got.Body["channel"] != string(ch.ID) || appended == nil ||
		len(appended["embeds"].([]any)) != 1 {
		t.Errorf("MessageAppend = %s", got.Raw)
	}
	res := f.h.Get(msgPath(ch.ID, m.ID), owner.Token)
	var stored chat.Message
	res.JSON(t, &stored)
	if len(stored.Embeds) != 1 || *stored.Embeds[0].Title != title {
		t.Errorf("stored embeds = %s", res.Body)
	}
	if err := f.h.Server.App.AppendEmbeds(context.Background(), chat.NewID(), m.ID, []chat.Embed{embed}); err == nil {
		t.Error("append to a message of another channel succeeded")
	}
	ev.None(50 * time.Millisecond)
}
