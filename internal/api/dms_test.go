package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
)

func TestOpenDM(t *testing.T) {
	h := apitest.Start(t)

	t.Run("friends", func(t *testing.T) {
		a, b := h.NewUser("fox"), h.NewUser("vixen")
		befriend(t, h, a, b)
		ev := h.Listen(event.Private(a.ID), event.Private(b.ID))
		res := h.Get("/users/"+string(b.ID)+"/dm", a.Token)
		apitest.CheckSchema(t, "Channel", res.Body)
		dm := wantOK(t, res)
		recips := dm["recipients"].([]any)
		if dm["channel_type"] != "DirectMessage" || dm["active"] != false || len(recips) != 2 {
			t.Errorf("dm = %v", dm)
		}
		got := map[string]bool{}
		for range 2 {
			e := ev.Wait(chat.EvChannelCreate, nil)
			if e.Body["_id"] != dm["_id"] {
				t.Errorf("ChannelCreate = %s", e.Raw)
			}
			got[e.Topic] = true
		}
		if !got[event.Private(a.ID)] || !got[event.Private(b.ID)] {
			t.Errorf("ChannelCreate went to %v", got)
		}
		// Opening again, from either side, returns the same channel quietly.
		for _, r := range []*apitest.Response{h.Get("/users/"+string(b.ID)+"/dm", a.Token), h.Get("/users/"+string(a.ID)+"/dm", b.Token)} {
			if again := wantOK(t, r); again["_id"] != dm["_id"] {
				t.Errorf("reopened = %v", again)
			}
		}
		ev.None(150 * time.Millisecond)
	})
	t.Run("saved messages", func(t *testing.T) {
		me := h.NewUser("hermit")
		ev := h.Listen(event.Private(me.ID))
		res := h.Get("/users/@me/dm", me.Token)
		apitest.CheckSchema(t, "Channel", res.Body)
		saved := wantOK(t, res)
		if saved["channel_type"] != "SavedMessages" || saved["user"] != string(me.ID) {
			t.Errorf("saved = %v", saved)
		}
		if again := wantOK(t, h.Get("/users/"+string(me.ID)+"/dm", me.Token)); again["_id"] != saved["_id"] {
			t.Errorf("second open = %v", again)
		}
		ev.None(150 * time.Millisecond)
	})
	t.Run("not allowed", func(t *testing.T) {
		a, b, c := h.NewUser("hare"), h.NewUser("lynx"), h.NewUser("ibex")
		setRelation(t, h, a.ID, c.ID, chat.RelationBlocked, chat.RelationBlockedOther)
		newServer(t, h, a, b) // sharing a server is not enough between users
		for _, other := range []*apitest.User{b, c} {
			m := wantError(t, h.Get("/users/"+string(other.ID)+"/dm", freshSession(t, h, a)), 403, "MissingPermission")
			if m["permission"] != "SendMessage" {
				t.Errorf("permission = %v", m["permission"])
			}
		}
		wantError(t, h.Get("/users/"+string(chat.NewID())+"/dm", a.Token), 404, "NotFound")
	})
	t.Run("bot with a mutual server", func(t *testing.T) {
		owner, user := h.NewUser("smith"), h.NewUser("client")
		bot, tok := newBotUser(t, h, owner, "butler")
		sv := newServer(t, h, user)
		if err := h.Server.Store.InsertMember(context.Background(), &chat.Member{ID: chat.MemberID{Server: sv.ID, User: bot.ID}, JoinedAt: chat.Now()}); err != nil {
			t.Fatal(err)
		}
		dm := wantOK(t, h.Get("/users/"+string(bot.ID)+"/dm", user.Token))
		back := wantOK(t, h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/" + string(user.ID) + "/dm", Bot: tok}))
		if back["_id"] != dm["_id"] {
			t.Errorf("bot opened %v, user %v", back["_id"], dm["_id"])
		}
		// Without a mutual connection the bot may not.
		lone := h.NewUser("loner")
		wantError(t, h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/" + string(lone.ID) + "/dm", Bot: tok}), 403, "MissingPermission")
	})
}

func TestFetchDMs(t *testing.T) {
	h := apitest.Start(t)
	me, open, closed, groupie := h.NewUser("ruth"), h.NewUser("opal"), h.NewUser("cora"), h.NewUser("gus")
	for _, u := range []*apitest.User{open, closed, groupie} {
		befriend(t, h, me, u)
	}
	saved := wantOK(t, h.Get("/users/@me/dm", me.Token))
	active := wantOK(t, h.Get("/users/"+string(open.ID)+"/dm", me.Token))
	inactive := wantOK(t, h.Get("/users/"+string(closed.ID)+"/dm", me.Token))
	sendDM(t, h, me, active["_id"].(string), "hello")
	g := createGroup(t, h, me, map[string]any{"name": "club", "users": []chat.ID{groupie.ID}})

	res := h.Get("/users/dms", me.Token)
	var chans []map[string]any
	res.JSON(t, &chans)
	if res.Status != 200 {
		t.Fatalf("dms = %d %s", res.Status, res.Body)
	}
	ids := map[any]bool{}
	for _, c := range chans {
		ids[c["_id"]] = true
		b, _ := jsonOf(c)
		apitest.CheckSchema(t, "Channel", b)
	}
	if len(chans) != 3 || !ids[saved["_id"]] || !ids[active["_id"]] || !ids[g["_id"]] || ids[inactive["_id"]] {
		t.Errorf("dms = %s", res.Body)
	}
	wantError(t, h.Get("/users/dms", ""), 401, "NotAuthenticated")
}

func sendDM(t *testing.T, h *apitest.Harness, from *apitest.User, dm, content string) {
	t.Helper()
	res := h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + dm + "/messages",
		Body: map[string]any{"content": content}, Session: from.Token})
	if res.Status != http.StatusOK {
		t.Fatalf("send to %s = %d %s", dm, res.Status, res.Body)
	}
}

// TestDirectMessageActivation: a DM opens inactive; its first message
// makes it active at once (no waiting for the batched last_message_id
// write) and both participants get ChannelUpdate {active: true}; later
// messages announce nothing more; closing it and writing again does.
func TestDirectMessageActivation(t *testing.T) {
	h := apitest.Start(t, apitest.NoRateLimits)
	a, b := h.NewUser("ada"), h.NewUser("bea")
	befriend(t, h, a, b)
	dm := wantOK(t, h.Get("/users/"+string(b.ID)+"/dm", a.Token))["_id"].(string)
	ev := h.Listen(event.Of(chat.ID(dm)))
	activated := func(e apitest.Event) bool {
		data, _ := e.Body["data"].(map[string]any)
		return e.Body["id"] == dm && data["active"] == true && len(data) == 1
	}
	isActive := func(who *apitest.User) any { return wantOK(t, h.Get("/channels/"+dm, who.Token))["active"] }

	sendDM(t, h, b, dm, "first")
	ev.Wait(chat.EvChannelUpdate, activated)
	ev.Wait(chat.EvMessage, nil)
	for _, u := range []*apitest.User{a, b} {
		if got := isActive(u); got != true {
			t.Errorf("after the first message %s sees active = %v", u.Username, got)
		}
	}
	ids := map[any]bool{}
	var chans []map[string]any
	h.Get("/users/dms", b.Token).JSON(t, &chans)
	for _, c := range chans {
		ids[c["_id"]] = true
	}
	if !ids[dm] {
		t.Errorf("the active DM is missing from the other side's list: %v", chans)
	}

	sendDM(t, h, a, dm, "second")
	ev.Wait(chat.EvMessage, nil)
	ev.None(150 * time.Millisecond) // no second ChannelUpdate

	res := h.Do(apitest.Request{Method: http.MethodDelete, Path: "/channels/" + dm, Session: a.Token})
	if res.Status != http.StatusNoContent {
		t.Fatalf("close dm = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvChannelUpdate, func(e apitest.Event) bool { return e.Body["data"].(map[string]any)["active"] == false })
	sendDM(t, h, b, dm, "back again")
	ev.Wait(chat.EvChannelUpdate, activated)
	if got := isActive(a); got != true {
		t.Errorf("after writing to a closed DM it is active = %v", got)
	}
}
