package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
)

// createBot makes a bot through the API and returns the response object.
func createBot(t *testing.T, h *apitest.Harness, owner *apitest.User, name string) map[string]any {
	t.Helper()
	res := h.Do(apitest.Request{Method: http.MethodPost, Path: "/bots/create", Session: freshSession(t, h, owner),
		Body: map[string]string{"name": name}})
	apitest.CheckSchema(t, "BotWithUserResponse", res.Body)
	return wantOK(t, res)
}

// botDo sends a request for owner on a fresh session.
func botDo(t *testing.T, h *apitest.Harness, owner *apitest.User, method, path string, body any) *apitest.Response {
	t.Helper()
	return h.Do(apitest.Request{Method: method, Path: path, Session: freshSession(t, h, owner), Body: body})
}

func TestCreateBot(t *testing.T) {
	h := apitest.Start(t)
	owner := h.NewUser("inventor")

	b := createBot(t, h, owner, "Automaton")
	user := b["user"].(map[string]any)
	tok := b["token"].(string)
	if b["owner"] != string(owner.ID) || len(tok) != 64 || b["public"] != false || user["_id"] != b["_id"] ||
		user["username"] != "Automaton" || user["bot"].(map[string]any)["owner"] != string(owner.ID) ||
		user["relationship"] != "User" {
		t.Errorf("bot = %v", b)
	}
	// The token authenticates as the bot.
	me := wantOK(t, h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/@me", Bot: tok}))
	if me["_id"] != b["_id"] {
		t.Errorf("bot token is %v", me["_id"])
	}

	t.Run("refused", func(t *testing.T) {
		cases := []struct {
			name   string
			req    apitest.Request
			status int
			typ    string
		}{
			{"reserved name", apitest.Request{Session: freshSession(t, h, owner), Body: map[string]string{"name": "revolt"}}, 400, "InvalidUsername"},
			{"look-alike name", apitest.Request{Session: freshSession(t, h, owner), Body: map[string]string{"name": "bоt"}}, 400, "InvalidUsername"},
			{"bad characters", apitest.Request{Session: freshSession(t, h, owner), Body: map[string]string{"name": "a bot"}}, 422, "FailedValidation"},
			{"too short", apitest.Request{Session: freshSession(t, h, owner), Body: map[string]string{"name": "b"}}, 422, "FailedValidation"},
			{"by a bot", apitest.Request{Bot: tok, Body: map[string]string{"name": "child"}}, 400, "IsBot"},
			{"no token", apitest.Request{Body: map[string]string{"name": "anon"}}, 401, "NotAuthenticated"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tc.req.Method, tc.req.Path = http.MethodPost, "/bots/create"
				wantError(t, h.Do(tc.req), tc.status, tc.typ)
			})
		}
	})
	t.Run("limit", func(t *testing.T) {
		// A new account may own two bots.
		createBot(t, h, owner, "Second")
		wantError(t, botDo(t, h, owner, http.MethodPost, "/bots/create", map[string]string{"name": "Third"}), 400, "ReachedMaximumBots")
		owned := wantOK(t, h.Get("/bots/@me", freshSession(t, h, owner)))
		if n := len(owned["bots"].([]any)); n != 2 {
			t.Errorf("owns %d bots", n)
		}
	})
}

func TestFetchBots(t *testing.T) {
	h := apitest.Start(t)
	owner, other := h.NewUser("keeper"), h.NewUser("visitor")
	b1 := createBot(t, h, owner, "Alpha")
	b2 := createBot(t, h, owner, "Beta")

	res := h.Get("/bots/"+b1["_id"].(string), freshSession(t, h, owner))
	apitest.CheckSchema(t, "FetchBotResponse", res.Body)
	got := wantOK(t, res)
	if got["bot"].(map[string]any)["token"] != b1["token"] || got["user"].(map[string]any)["username"] != "Alpha" {
		t.Errorf("fetch = %v", got)
	}
	wantError(t, h.Get("/bots/"+b1["_id"].(string), other.Token), 404, "NotFound")
	wantError(t, h.Get("/bots/"+string(chat.NewID()), other.Token), 404, "NotFound")

	res = h.Get("/bots/@me", freshSession(t, h, owner))
	apitest.CheckSchema(t, "OwnedBotsResponse", res.Body)
	owned := wantOK(t, res)
	bots, users := owned["bots"].([]any), owned["users"].([]any)
	if len(bots) != 2 || bots[0].(map[string]any)["_id"] != b1["_id"] || bots[1].(map[string]any)["_id"] != b2["_id"] ||
		len(users) != 2 || users[0].(map[string]any)["_id"] != b1["_id"] {
		t.Errorf("owned = %s", res.Body)
	}
	none := wantOK(t, h.Get("/bots/@me", other.Token))
	if len(none["bots"].([]any)) != 0 || len(none["users"].([]any)) != 0 {
		t.Errorf("visitor owns %v", none)
	}
}

func TestEditBot(t *testing.T) {
	h := apitest.Start(t)
	owner, other := h.NewUser("tinker"), h.NewUser("meddler")
	b := createBot(t, h, owner, "Gizmo")
	id := chat.ID(b["_id"].(string))
	path := "/bots/" + string(id)

	t.Run("fields and rename", func(t *testing.T) {
		ev := h.Listen(event.Of(id))
		res := botDo(t, h, owner, http.MethodPatch, path, map[string]any{"name": "Gadget", "public": true, "analytics": true,
			"interactions_url": "https://bots.example/hook"})
		apitest.CheckSchema(t, "BotWithUserResponse", res.Body)
		got := wantOK(t, res)
		if got["public"] != true || got["analytics"] != true || got["interactions_url"] != "https://bots.example/hook" ||
			got["user"].(map[string]any)["username"] != "Gadget" || got["token"] != b["token"] {
			t.Errorf("edited = %v", got)
		}
		e := ev.Wait(chat.EvUserUpdate, nil)
		if e.Body["data"].(map[string]any)["username"] != "Gadget" {
			t.Errorf("UserUpdate = %s", e.Raw)
		}
		got = wantOK(t, botDo(t, h, owner, http.MethodPatch, path, map[string]any{"remove": []string{"InteractionsURL"}}))
		if _, ok := got["interactions_url"]; ok {
			t.Errorf("interactions_url kept: %v", got)
		}
		ev.None(150 * time.Millisecond)
	})
	t.Run("token reset logs the bot out", func(t *testing.T) {
		ev := h.Listen(event.Private(id))
		old := b["token"].(string)
		got := wantOK(t, botDo(t, h, owner, http.MethodPatch, path, map[string]any{"remove": []string{"Token"}}))
		tok := got["token"].(string)
		if len(tok) != 64 || tok == old {
			t.Errorf("token = %q", tok)
		}
		ev.Wait(chat.EvLogout, nil)
		wantError(t, h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/@me", Bot: old}), 401, "InvalidSession")
		wantOK(t, h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/@me", Bot: tok}))
	})
	t.Run("refused", func(t *testing.T) {
		ev := h.Listen(event.Of(id), event.Private(id))
		wantError(t, botDo(t, h, other, http.MethodPatch, path, map[string]any{"public": true}), 404, "NotFound")
		wantError(t, botDo(t, h, other, http.MethodPatch, path, map[string]any{"remove": []string{"Token"}}), 404, "NotFound")
		wantError(t, botDo(t, h, owner, http.MethodPatch, path, map[string]any{"remove": []string{"Owner"}}), 422, "FailedValidation")
		wantError(t, botDo(t, h, owner, http.MethodPatch, path, map[string]any{"name": "admin"}), 400, "InvalidUsername")
		wantError(t, botDo(t, h, owner, http.MethodPatch, path, map[string]any{"interactions_url": ""}), 422, "FailedValidation")
		wantError(t, botDo(t, h, owner, http.MethodPatch, "/bots/"+string(chat.NewID()), map[string]any{}), 404, "NotFound")
		ev.None(150 * time.Millisecond)
		stored, _ := h.Server.Store.FetchBot(context.Background(), id)
		if stored.Owner != owner.ID {
			t.Errorf("bot = %+v", stored)
		}
	})
}

func TestDeleteBot(t *testing.T) {
	h := apitest.Start(t)
	owner, other := h.NewUser("maker"), h.NewUser("breaker")
	b := createBot(t, h, owner, "Doomed")
	id := chat.ID(b["_id"].(string))
	ev := h.Listen(event.Of(id), event.Private(id))

	wantError(t, botDo(t, h, other, http.MethodDelete, "/bots/"+string(id), nil), 404, "NotFound")
	ev.None(150 * time.Millisecond)

	res := botDo(t, h, owner, http.MethodDelete, "/bots/"+string(id), nil)
	if res.Status != http.StatusNoContent {
		t.Fatalf("delete = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvLogout, func(e apitest.Event) bool { return e.Topic == event.Private(id) })
	e := ev.Wait(chat.EvUserUpdate, nil)
	data := e.Body["data"].(map[string]any)
	if data["username"] != "Deleted User "+string(id) || data["flags"] != float64(chat.UserFlagDeleted) {
		t.Errorf("UserUpdate = %s", e.Raw)
	}
	if clear := e.Body["clear"].([]any); len(clear) < 5 {
		t.Errorf("clear = %v", clear)
	}
	wantError(t, h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/@me", Bot: b["token"].(string)}), 401, "InvalidSession")
	wantError(t, h.Get("/bots/"+string(id), freshSession(t, h, owner)), 404, "NotFound")
	u, err := h.Server.Store.FetchUser(context.Background(), id)
	if err != nil || !strings.HasPrefix(u.Username, "Deleted User") || u.Flags != chat.UserFlagDeleted {
		t.Errorf("bot user = %+v, %v", u, err)
	}
	wantError(t, botDo(t, h, owner, http.MethodDelete, "/bots/"+string(id), nil), 404, "NotFound")
}

func TestPublicBot(t *testing.T) {
	h := apitest.Start(t)
	owner, other := h.NewUser("author"), h.NewUser("reader")
	b := createBot(t, h, owner, "Herald")
	id := b["_id"].(string)

	wantError(t, h.Get("/bots/"+id+"/invite", ""), 404, "NotFound")
	wantError(t, h.Get("/bots/"+id+"/invite", other.Token), 404, "NotFound")
	res := h.Get("/bots/"+id+"/invite", owner.Token)
	apitest.CheckSchema(t, "PublicBot", res.Body)
	if pb := wantOK(t, res); pb["username"] != "Herald" || pb["avatar"] != "" || pb["description"] != "" {
		t.Errorf("public bot = %v", pb)
	}

	wantOK(t, botDo(t, h, owner, http.MethodPatch, "/bots/"+id, map[string]any{"public": true}))
	wantOK(t, botDo(t, h, owner, http.MethodPatch, "/users/"+id, map[string]any{"profile": map[string]any{"content": "I announce."}}))
	res = h.Get("/bots/"+id+"/invite", "")
	apitest.CheckSchema(t, "PublicBot", res.Body)
	pb := wantOK(t, res)
	if pb["_id"] != id || pb["description"] != "I announce." {
		t.Errorf("public bot = %v", pb)
	}
	if _, ok := pb["token"]; ok {
		t.Errorf("token leaked: %v", pb)
	}
	wantError(t, h.Get("/bots/"+string(chat.NewID())+"/invite", ""), 404, "NotFound")
}

func TestInviteBot(t *testing.T) {
	h := apitest.Start(t)
	owner, admin, member, outsider := h.NewUser("builder"), h.NewUser("admin1"), h.NewUser("member"), h.NewUser("outsider")
	b := createBot(t, h, owner, "Porter")
	bid := chat.ID(b["_id"].(string))
	invite := func(u *apitest.User, body any) *apitest.Response {
		return botDo(t, h, u, http.MethodPost, "/bots/"+string(bid)+"/invite", body)
	}

	t.Run("server", func(t *testing.T) {
		sv := newServer(t, h, owner, member)
		joinCh := sv.Channels[0]
		sv.SystemMessages = &chat.SystemMessageChannels{UserJoined: &joinCh}
		if err := h.Server.Store.UpdateServer(context.Background(), sv); err != nil {
			t.Fatal(err)
		}
		ev := h.Listen(event.Of(sv.ID), event.Private(bid), event.Of(joinCh))
		res := invite(owner, map[string]any{"server": sv.ID})
		if res.Status != http.StatusNoContent {
			t.Fatalf("invite = %d %s", res.Status, res.Body)
		}
		create := ev.Wait(chat.EvServerCreate, nil)
		if create.Topic != event.Private(bid) || create.Body["id"] != string(sv.ID) || len(create.Body["channels"].([]any)) != 1 {
			t.Errorf("ServerCreate = %s", create.Raw)
		}
		join := ev.Wait(chat.EvServerMemberJoin, func(e apitest.Event) bool { return e.Topic == event.Of(sv.ID) })
		if join.Topic != event.Of(sv.ID) || join.Body["user"] != string(bid) ||
			join.Body["member"].(map[string]any)["_id"].(map[string]any)["user"] != string(bid) {
			t.Errorf("ServerMemberJoin = %s", join.Raw)
		}
		msg := ev.Wait(chat.EvMessage, nil)
		if sys := msg.Body["system"].(map[string]any); sys["type"] != "user_joined" || sys["id"] != string(bid) {
			t.Errorf("system message = %s", msg.Raw)
		}
		wantError(t, invite(owner, map[string]any{"server": sv.ID}), 409, "AlreadyInServer")
		wantError(t, invite(member, map[string]any{"server": sv.ID}), 403, "BotIsPrivate")
	})
	t.Run("server refused", func(t *testing.T) {
		sv := newServer(t, h, admin, owner, member)
		ev := h.Listen(event.Of(sv.ID))
		m := wantError(t, invite(owner, map[string]any{"server": sv.ID}), 403, "MissingPermission")
		if m["permission"] != "ManageServer" {
			t.Errorf("permission = %v", m["permission"])
		}
		wantError(t, invite(admin, map[string]any{"server": sv.ID}), 403, "BotIsPrivate")
		wantError(t, invite(outsider, map[string]any{"server": sv.ID}), 403, "BotIsPrivate")
		wantError(t, invite(owner, map[string]any{"server": chat.NewID()}), 404, "NotFound")
		wantError(t, invite(owner, map[string]any{}), 422, "FailedValidation")
		wantError(t, invite(owner, map[string]any{"server": sv.ID, "group": chat.NewID()}), 422, "FailedValidation")
		wantError(t, botDo(t, h, owner, http.MethodPost, "/bots/"+string(chat.NewID())+"/invite", map[string]any{"server": sv.ID}), 404, "NotFound")

		// Public now: anyone managing the server may add it, unless banned.
		wantOK(t, botDo(t, h, owner, http.MethodPatch, "/bots/"+string(bid), map[string]any{"public": true}))
		wantError(t, invite(outsider, map[string]any{"server": sv.ID}), 404, "NotFound")
		if err := h.Server.Store.InsertBan(context.Background(), &chat.ServerBan{ID: chat.MemberID{Server: sv.ID, User: bid}}); err != nil {
			t.Fatal(err)
		}
		wantError(t, invite(admin, map[string]any{"server": sv.ID}), 403, "Banned")
		ev.None(150 * time.Millisecond)
		if err := h.Server.Store.DeleteBan(context.Background(), sv.ID, bid); err != nil {
			t.Fatal(err)
		}
		if res := invite(admin, map[string]any{"server": sv.ID}); res.Status != http.StatusNoContent {
			t.Errorf("public bot invite = %d %s", res.Status, res.Body)
		}
		wantOK(t, botDo(t, h, owner, http.MethodPatch, "/bots/"+string(bid), map[string]any{"public": false}))
	})
	t.Run("group", func(t *testing.T) {
		befriend(t, h, owner, member)
		g := createGroup(t, h, owner, map[string]any{"name": "crew", "users": []chat.ID{member.ID}})
		gid := chat.ID(g["_id"].(string))
		ev := h.Listen(event.Of(gid), event.Private(bid))
		if res := invite(owner, map[string]any{"group": gid}); res.Status != http.StatusNoContent {
			t.Fatalf("invite = %d %s", res.Status, res.Body)
		}
		if e := ev.Wait(chat.EvChannelGroupJoin, nil); e.Body["user"] != string(bid) {
			t.Errorf("ChannelGroupJoin = %s", e.Raw)
		}
		msg := ev.Wait(chat.EvMessage, nil)
		if sys := msg.Body["system"].(map[string]any); sys["type"] != "user_added" || sys["by"] != string(owner.ID) {
			t.Errorf("system message = %s", msg.Raw)
		}
		ev.Wait(chat.EvChannelCreate, func(e apitest.Event) bool { return e.Topic == event.Private(bid) })
		wantError(t, invite(owner, map[string]any{"group": gid}), 409, "AlreadyInGroup")
		wantError(t, invite(outsider, map[string]any{"group": gid}), 403, "BotIsPrivate")
		// The bot may now open a DM with a group member.
		dm := h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/" + string(member.ID) + "/dm", Bot: b["token"].(string)})
		wantOK(t, dm)
		// Bots cannot invite bots.
		wantError(t, h.Do(apitest.Request{Method: http.MethodPost, Path: "/bots/" + string(bid) + "/invite", Bot: b["token"].(string),
			Body: map[string]any{"group": gid}}), 400, "IsBot")
	})
}
