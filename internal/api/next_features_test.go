package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/testbed"
)

// TestUseExternalEmojis checks the UseExternalEmojis flag (bit 41, the
// reference's branch feat/block-emojis): a custom emoji of another server
// in a message's content, its offered reactions or a reaction needs it in
// the channel; the server's own emoji, detached ones and Unicode need
// nothing, and a new server grants it by default.
func TestUseExternalEmojis(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.h.NewUser("alice"), e.h.NewUser("bob")
	home, general := e.server(t, alice, "Home")
	away, _ := e.server(t, bob, "Away")
	e.join(t, home, bob)
	e.join(t, away, alice)

	if got := perm.Set(e.fetchServer(t, alice, home).DefaultPermissions); !got.Has(perm.UseExternalEmojis) {
		t.Fatalf("a new server's default permissions %v lack UseExternalEmojis", got)
	}
	local := e.upload(t, alice, chat.TagEmojis, "image/png")
	e.call(t, alice, http.MethodPut, "/custom/emoji/"+local, map[string]any{"name": "local",
		"parent": map[string]any{"type": "Server", "id": home}}, http.StatusOK)
	foreign := e.upload(t, bob, chat.TagEmojis, "image/png")
	e.call(t, bob, http.MethodPut, "/custom/emoji/"+foreign, map[string]any{"name": "foreign",
		"parent": map[string]any{"type": "Server", "id": away}}, http.StatusOK)

	send := func(body map[string]any, want int) map[string]any {
		t.Helper()
		return e.call(t, bob, http.MethodPost, "/channels/"+general+"/messages", body, want).Map(t)
	}
	// Granted by default: both kinds of emoji go through.
	msg := send(map[string]any{"content": "hi :" + foreign + ": and :" + local + ":"}, http.StatusOK)
	e.call(t, bob, http.MethodPut, "/channels/"+general+"/messages/"+msg["_id"].(string)+"/reactions/"+foreign, nil, http.StatusNoContent)

	// Taken away from everyone in Home.
	e.call(t, alice, http.MethodPut, "/servers/"+home+"/permissions/default",
		map[string]any{"permissions": uint64(perm.DefaultServer &^ perm.UseExternalEmojis)}, http.StatusOK)
	e.fail(t, bob, http.MethodPost, "/channels/"+general+"/messages", map[string]any{"content": "hi :" + foreign + ":"},
		http.StatusForbidden, "MissingPermission", "UseExternalEmojis")
	e.fail(t, bob, http.MethodPost, "/channels/"+general+"/messages", map[string]any{"content": "hi",
		"interactions": map[string]any{"reactions": []string{foreign}}}, http.StatusForbidden, "MissingPermission", "UseExternalEmojis")
	e.fail(t, bob, http.MethodPut, "/channels/"+general+"/messages/"+msg["_id"].(string)+"/reactions/"+foreign, nil,
		http.StatusForbidden, "MissingPermission", "UseExternalEmojis")
	e.fail(t, bob, http.MethodPatch, "/channels/"+general+"/messages/"+msg["_id"].(string), map[string]any{"content": ":" + foreign + ":"},
		http.StatusForbidden, "MissingPermission", "UseExternalEmojis")
	// The server's own emoji, Unicode emoji and unknown ids still go through.
	mine := send(map[string]any{"content": ":" + local + ": :" + string(chat.NewID()) + ": 👍"}, http.StatusOK)
	e.call(t, bob, http.MethodPut, "/channels/"+general+"/messages/"+mine["_id"].(string)+"/reactions/"+local, nil, http.StatusNoContent)
	e.call(t, bob, http.MethodPut, "/channels/"+general+"/messages/"+mine["_id"].(string)+"/reactions/"+url.PathEscape("👍"), nil, http.StatusNoContent)
	// Outside servers (here saved messages) nothing is checked.
	dm := e.call(t, bob, http.MethodGet, "/users/"+string(bob.ID)+"/dm", nil, http.StatusOK).Map(t)["_id"].(string)
	e.call(t, bob, http.MethodPost, "/channels/"+dm+"/messages", map[string]any{"content": ":" + foreign + ":"}, http.StatusOK)

	// A role granting it brings it back.
	emojis := e.role(t, alice, home, "emojis", uint64(perm.UseExternalEmojis))
	e.call(t, alice, http.MethodPatch, "/servers/"+home+"/members/"+string(bob.ID), map[string]any{"roles": []string{emojis}}, http.StatusOK)
	ev := e.h.Listen(event.Of(chat.ID(general)))
	send(map[string]any{"content": "back :" + foreign + ":"}, http.StatusOK)
	ev.Wait(chat.EvMessage, nil)
}

// TestEphemeralMessages checks ephemeral bot messages (reference pull
// request #929) over HTTP and the events socket: only bots send them, to
// someone who sees the channel; the message and its events reach that
// user alone; history, fetch and search show it to them and its author
// only; it cannot be pinned.
func TestEphemeralMessages(t *testing.T) {
	e := newEnv(t)
	alice, bob, carol := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	e.join(t, sid, carol)
	bot := e.bot(t, alice, "helper")
	e.join(t, sid, bot)
	bobSock, carolSock := e.h.Connect(bob.Token), e.h.Connect(carol.Token)
	msgs := "/channels/" + general + "/messages"

	// Only bots, and only to someone who can see the channel.
	e.fail(t, alice, http.MethodPost, msgs, map[string]any{"content": "x", "ephemeral": bob.ID}, http.StatusBadRequest, "IsNotBot")
	stranger := e.h.NewUser("stranger")
	res := e.asBot(t, bot.Token, http.MethodPost, msgs, map[string]any{"content": "x", "ephemeral": stranger.ID})
	if res.Status != http.StatusBadRequest || res.Map(t)["type"] != "InvalidProperty" {
		t.Fatalf("ephemeral to a non-member = %d %s", res.Status, res.Body)
	}

	res = e.asBot(t, bot.Token, http.MethodPost, msgs, map[string]any{"content": "only for you, <@" + string(carol.ID) + ">", "ephemeral": bob.ID})
	if res.Status != http.StatusOK {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	sent := res.Map(t)
	id := sent["_id"].(string)
	if sent["ephemeral"] != string(bob.ID) {
		t.Fatalf("sent %s", res.Body)
	}
	got := bobSock.ExpectMatch("Message", func(ev map[string]any) bool { return ev["_id"] == id })
	if got["ephemeral"] != string(bob.ID) {
		t.Errorf("Message = %v", got)
	}
	carolSock.None("Message", 300*time.Millisecond)

	// History, fetch and search.
	history := func(u *apitest.User) []any {
		var list []any
		e.call(t, u, http.MethodGet, msgs, nil, http.StatusOK).JSON(t, &list)
		return list
	}
	if n := len(history(bob)); n != 1 {
		t.Errorf("bob's history has %d messages, want 1", n)
	}
	if n := len(history(carol)); n != 0 {
		t.Errorf("carol's history has %d messages, want 0", n)
	}
	e.call(t, bob, http.MethodGet, msgs+"/"+id, nil, http.StatusOK)
	if res := e.asBot(t, bot.Token, http.MethodGet, msgs+"/"+id, nil); res.Status != http.StatusOK {
		t.Errorf("the author fetches its message: %d", res.Status)
	}
	e.fail(t, carol, http.MethodGet, msgs+"/"+id, nil, http.StatusNotFound, "NotFound")
	e.fail(t, alice, http.MethodGet, msgs+"/"+id, nil, http.StatusNotFound, "NotFound")
	for _, c := range []struct {
		u    *apitest.User
		want int
	}{{bob, 1}, {carol, 0}} {
		var found []any
		e.call(t, c.u, http.MethodPost, "/channels/"+general+"/search", map[string]any{"query": "only"}, http.StatusOK).JSON(t, &found)
		if len(found) != c.want {
			t.Errorf("%s's channel search found %d, want %d", c.u.Username, len(found), c.want)
		}
		out := e.call(t, c.u, http.MethodPost, "/search", map[string]any{"server": sid, "filters": map[string]any{"content": "only"}}, http.StatusOK).Map(t)
		if n := len(out["messages"].([]any)); n != c.want {
			t.Errorf("%s's server search found %d, want %d", c.u.Username, n, c.want)
		}
	}
	// Nobody else has it unread or mentioned: the channel's last message
	// is not it.
	if ch := e.call(t, carol, http.MethodGet, "/channels/"+general, nil, http.StatusOK).Map(t); ch["last_message_id"] == id {
		t.Errorf("the channel's last message is the ephemeral one: %v", ch)
	}

	// Its events go to bob alone.
	e.call(t, bob, http.MethodPut, msgs+"/"+id+"/reactions/"+url.PathEscape("👍"), nil, http.StatusNoContent)
	bobSock.ExpectMatch("MessageReact", func(ev map[string]any) bool { return ev["id"] == id })
	if res := e.asBot(t, bot.Token, http.MethodPatch, msgs+"/"+id, map[string]any{"content": "edited"}); res.Status != http.StatusOK {
		t.Fatalf("edit = %d %s", res.Status, res.Body)
	}
	bobSock.ExpectMatch("MessageUpdate", func(ev map[string]any) bool { return ev["id"] == id })
	e.fail(t, carol, http.MethodPut, msgs+"/"+id+"/reactions/"+url.PathEscape("👍"), nil, http.StatusNotFound, "NotFound")
	e.fail(t, alice, http.MethodPost, msgs+"/"+id+"/pin", nil, http.StatusNotFound, "NotFound")
	if res := e.asBot(t, bot.Token, http.MethodDelete, msgs+"/"+id, nil); res.Status != http.StatusNoContent {
		t.Fatalf("delete = %d %s", res.Status, res.Body)
	}
	bobSock.ExpectMatch("MessageDelete", func(ev map[string]any) bool { return ev["id"] == id })
	carolSock.NoneOf(300*time.Millisecond, "Message", "MessageReact", "MessageUpdate", "MessageDelete")
}

// TestEphemeralPrune checks that ephemeral messages are deleted after
// [limits] ephemeral_delay, their user told with MessageDelete, and that
// other messages stay.
func TestEphemeralPrune(t *testing.T) {
	e := newEnv(t, withLimits(func(l *config.Limits) { l.EphemeralDelay = 1 }))
	alice, bob := e.h.NewUser("alice"), e.h.NewUser("bob")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	bot := e.bot(t, alice, "helper")
	e.join(t, sid, bot)
	sock := e.h.Connect(bob.Token)
	msgs := "/channels/" + general + "/messages"
	res := e.asBot(t, bot.Token, http.MethodPost, msgs, map[string]any{"content": "soon gone", "ephemeral": bob.ID})
	if res.Status != http.StatusOK {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	id := res.Map(t)["_id"].(string)
	e.call(t, alice, http.MethodPost, msgs, map[string]any{"content": "stays"}, http.StatusOK)
	sock.ExpectMatch("MessageDelete", func(ev map[string]any) bool { return ev["id"] == id })
	e.fail(t, bob, http.MethodGet, msgs+"/"+id, nil, http.StatusNotFound, "NotFound")
	var list []any
	e.call(t, bob, http.MethodGet, msgs, nil, http.StatusOK).JSON(t, &list)
	if len(list) != 1 {
		t.Errorf("history after the prune has %d messages, want 1", len(list))
	}
}

// TestMentionsInbox checks GET /users/@me/notifications (reference pull
// request #715): the newest 50 messages mentioning the caller, only
// those they may still read, with their authors.
func TestMentionsInbox(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.h.NewUser("alice"), e.h.NewUser("bob")
	sid, general := e.server(t, alice, "Den")
	secret := e.channel(t, alice, sid, "secret")
	e.join(t, sid, bob)
	mention := "hey <@" + string(bob.ID) + ">"
	send := func(ch, content string) string {
		t.Helper()
		return e.call(t, alice, http.MethodPost, "/channels/"+ch+"/messages", map[string]any{"content": content}, http.StatusOK).Map(t)["_id"].(string)
	}
	first := send(general, mention+" first")
	send(general, "no mention here")
	hidden := send(secret, mention+" in secret")
	last := send(general, mention+" last")
	// Bob loses the secret channel.
	e.call(t, alice, http.MethodPut, "/channels/"+secret+"/permissions/default", override(0, uint64(perm.ViewChannel)), http.StatusOK)

	inbox := func(u *apitest.User) map[string]any {
		t.Helper()
		return e.call(t, u, http.MethodGet, "/users/@me/notifications", nil, http.StatusOK).Map(t)
	}
	got := inbox(bob)
	list := got["messages"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["_id"] != last || list[1].(map[string]any)["_id"] != first {
		t.Fatalf("inbox = %v, want %s then %s (not %s)", list, last, first, hidden)
	}
	users := got["users"].([]any)
	if len(users) != 1 || users[0].(map[string]any)["_id"] != string(alice.ID) {
		t.Errorf("inbox users = %v", users)
	}
	if n := len(inbox(alice)["messages"].([]any)); n != 0 {
		t.Errorf("alice's inbox has %d messages", n)
	}
	// At most 50, the newest.
	for i := range 52 {
		send(general, fmt.Sprintf("%s %d", mention, i))
	}
	list = inbox(bob)["messages"].([]any)
	if len(list) != 50 || list[0].(map[string]any)["content"] != mention+" 51" {
		t.Errorf("inbox holds %d messages, the first %v", len(list), list[0])
	}
	e.call(t, nil, http.MethodGet, "/users/@me/notifications", nil, http.StatusUnauthorized)
}

// withPostgres runs the node on a fresh schema of the PostgreSQL
// database in ERMINE_TEST_POSTGRES.
func withPostgres(t *testing.T) apitest.Option {
	t.Helper()
	db := testbed.Schema(t, os.Getenv("ERMINE_TEST_POSTGRES"))
	return func(c *config.Config) { c.Database.URL = db }
}

// TestServerSearch checks POST /search (reference branch
// feat/elasticsearch) on SQLite and, with ERMINE_TEST_POSTGRES, on
// PostgreSQL: every filter, paging and order, the channels a server
// search covers, and its refusals.
func TestServerSearch(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testServerSearch(t, newEnv(t)) })
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv("ERMINE_TEST_POSTGRES") == "" {
			t.Skip("ERMINE_TEST_POSTGRES not set")
		}
		testServerSearch(t, newEnv(t, withPostgres(t)))
	})
}

func testServerSearch(t *testing.T, e *env) {
	alice, bob, eve := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("eve")
	sid, general := e.server(t, alice, "Den")
	staff := e.channel(t, alice, sid, "staff")
	e.join(t, sid, bob)
	bot := e.bot(t, alice, "helper")
	e.join(t, sid, bot)
	role := e.role(t, alice, sid, "crew", 0)
	// Bob sees the staff channel but may not read its history.
	e.call(t, alice, http.MethodPut, "/channels/"+staff+"/permissions/default", override(0, uint64(perm.ReadMessageHistory)), http.StatusOK)

	send := func(u *apitest.User, ch string, body map[string]any) string {
		t.Helper()
		time.Sleep(2 * time.Millisecond) // each in a millisecond of its own, for the date filters
		return e.call(t, u, http.MethodPost, "/channels/"+ch+"/messages", body, http.StatusOK).Map(t)["_id"].(string)
	}
	m0 := send(alice, general, map[string]any{"content": "the lantern glows"})
	m1 := send(bob, general, map[string]any{"content": "a lantern for <@" + string(alice.ID) + ">"})
	time.Sleep(2 * time.Millisecond)
	res := e.asBot(t, bot.Token, http.MethodPost, "/channels/"+general+"/messages", map[string]any{"content": "bot lantern"})
	if res.Status != http.StatusOK {
		t.Fatalf("bot send = %d %s", res.Status, res.Body)
	}
	m2 := res.Map(t)["_id"].(string)
	hook := e.call(t, alice, http.MethodPost, "/channels/"+general+"/webhooks", map[string]any{"name": "CI"}, http.StatusOK).Map(t)
	res = e.h.Do(apitest.Request{Method: http.MethodPost, Path: "/webhooks/" + hook["id"].(string) + "/" + hook["token"].(string),
		Body: map[string]any{"content": "hooked, see https://ermine.example/build", "embeds": []map[string]any{{"title": "build"}}}})
	if res.Status != http.StatusOK {
		t.Fatalf("webhook = %d %s", res.Status, res.Body)
	}
	m3 := res.Map(t)["_id"].(string)
	img := e.upload(t, alice, chat.TagAttachments, "image/png")
	m4 := send(alice, general, map[string]any{"content": "crew <%" + role + ">", "attachments": []string{img}})
	e.call(t, alice, http.MethodPost, "/channels/"+general+"/messages/"+m4+"/pin", nil, http.StatusNoContent)
	m5 := send(alice, staff, map[string]any{"content": "lantern in staff"})

	search := func(u *apitest.User, body map[string]any) []string {
		t.Helper()
		res := e.call(t, u, http.MethodPost, "/search", body, http.StatusOK).Map(t)
		out := []string{}
		for _, m := range res["messages"].([]any) {
			out = append(out, m.(map[string]any)["_id"].(string))
		}
		return out
	}
	server := func(filters map[string]any) map[string]any {
		return map[string]any{"server": sid, "filters": filters}
	}
	eq := func(name string, got []string, want ...string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	eq("bob: lantern in the server", search(bob, server(map[string]any{"content": "lantern"})), m2, m1, m0)
	eq("alice: lantern in the server", search(alice, server(map[string]any{"content": "lantern"})), m5, m2, m1, m0)
	eq("one channel", search(alice, map[string]any{"channel": staff, "filters": map[string]any{"content": "lantern"}}), m5)
	eq("oldest first", search(bob, map[string]any{"server": sid, "sort": "asc", "filters": map[string]any{"content": "lantern"}}), m0, m1, m2)
	eq("Asc too", search(bob, map[string]any{"server": sid, "sort": "Asc", "filters": map[string]any{"content": "lantern"}}), m0, m1, m2)
	eq("offset and limit", search(bob, map[string]any{"server": sid, "offset": 1, "limit": 1, "filters": map[string]any{"content": "lantern"}}), m1)
	eq("author", search(bob, server(map[string]any{"author": []string{string(bob.ID), string(bot.ID)}})), m2, m1)
	eq("mentions", search(bob, server(map[string]any{"mentions": []string{string(alice.ID)}})), m1)
	eq("role mentions", search(bob, server(map[string]any{"role_mentions": []string{role}})), m4)
	eq("bots", search(bob, server(map[string]any{"author_type": []string{"Bot"}})), m2)
	eq("webhooks", search(bob, server(map[string]any{"author_type": []string{"Webhook"}})), m3)
	eq("users' lanterns", search(bob, server(map[string]any{"author_type": []string{"User"}, "content": "lantern"})), m1, m0)
	eq("pinned", search(bob, server(map[string]any{"pinned": true})), m4)
	eq("not pinned lanterns", search(bob, server(map[string]any{"pinned": false, "content": "lantern"})), m2, m1, m0)
	eq("images", search(bob, server(map[string]any{"components": []string{"Image"}})), m4)
	eq("files", search(bob, server(map[string]any{"components": []string{"File"}})), m4)
	eq("links", search(bob, server(map[string]any{"components": []string{"Link"}})), m3)
	eq("embeds or videos", search(bob, server(map[string]any{"components": []string{"Embed", "Video"}})), m3)
	at := func(id string) string { return chat.ID(id).Time().Format(time.RFC3339Nano) }
	eq("dates", search(bob, server(map[string]any{"content": "lantern", "after_date": at(m0), "before_date": at(m2)})), m1)
	eq("nothing", search(bob, server(map[string]any{"content": "quokka"})))

	// The answer carries the authors and their memberships.
	out := e.call(t, bob, http.MethodPost, "/search", server(map[string]any{"content": "lantern"}), http.StatusOK).Map(t)
	if len(out["users"].([]any)) != 3 || len(out["members"].([]any)) != 3 {
		t.Errorf("users %v, members %v", out["users"], out["members"])
	}

	// Refusals.
	e.fail(t, bob, http.MethodPost, "/search", map[string]any{"server": sid, "channel": general}, http.StatusBadRequest, "InvalidOperation")
	e.fail(t, bob, http.MethodPost, "/search", map[string]any{}, http.StatusBadRequest, "InvalidOperation")
	e.fail(t, bob, http.MethodPost, "/search", map[string]any{"channel": staff}, http.StatusForbidden, "MissingPermission", "ReadMessageHistory")
	e.fail(t, eve, http.MethodPost, "/search", map[string]any{"server": sid}, http.StatusNotFound, "NotFound")
	e.fail(t, eve, http.MethodPost, "/search", map[string]any{"channel": general}, http.StatusNotFound, "NotFound")
	e.fail(t, bob, http.MethodPost, "/search", map[string]any{"server": sid, "sort": "sideways"}, http.StatusUnprocessableEntity, "FailedValidation")
	e.fail(t, bob, http.MethodPost, "/search", server(map[string]any{"author_type": []string{"Robot"}}), http.StatusUnprocessableEntity, "FailedValidation")
	e.fail(t, bob, http.MethodPost, "/search", map[string]any{"server": sid, "offset": 10001}, http.StatusUnprocessableEntity, "FailedValidation")
	if res := e.asBot(t, bot.Token, http.MethodPost, "/search", map[string]any{"server": sid}); res.Status != http.StatusBadRequest || res.Map(t)["type"] != "IsBot" {
		t.Errorf("a bot's search = %d %s", res.Status, res.Body)
	}
}

// TestEphemeralPush checks that an ephemeral message is pushed to its
// user though it does not mention them, and to nobody else (reference
// pull request #929), through the loopback Web Push service.
func TestEphemeralPush(t *testing.T) {
	h, svc := startPush(t)
	e := &env{h: h}
	alice, bob := h.NewUser("alice"), h.NewUser("bob")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	bot := e.bot(t, alice, "helper")
	e.join(t, sid, bot)
	subAlice, subBob := svc.Subscribe(), svc.Subscribe()
	subscribe(t, h, alice.Token, subAlice)
	subscribe(t, h, bob.Token, subBob)
	res := e.asBot(t, bot.Token, http.MethodPost, "/channels/"+general+"/messages", map[string]any{"content": "just for you", "ephemeral": bob.ID})
	if res.Status != http.StatusOK {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	m := svc.Wait(5 * time.Second)
	if m.Endpoint != subBob.Endpoint {
		t.Fatalf("pushed to %s, want Bob's endpoint", m.Endpoint)
	}
	if n := notification(t, m); n["body"] != "just for you" || n["message"] != res.Map(t)["_id"] {
		t.Errorf("notification = %v", n)
	}
	svc.None(300 * time.Millisecond)
}
