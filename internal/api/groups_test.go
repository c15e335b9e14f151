package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
)

// createGroup makes a group through the API and returns it.
func createGroup(t *testing.T, h *apitest.Harness, owner *apitest.User, body map[string]any) map[string]any {
	t.Helper()
	res := h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/create", Session: freshSession(t, h, owner), Body: body})
	apitest.CheckSchema(t, "Channel", res.Body)
	return wantOK(t, res)
}

func TestCreateGroup(t *testing.T) {
	h := apitest.Start(t)
	owner, f1, f2, stranger := h.NewUser("owl"), h.NewUser("lark"), h.NewUser("wren"), h.NewUser("crow")
	befriend(t, h, owner, f1)
	befriend(t, h, owner, f2)

	t.Run("with friends", func(t *testing.T) {
		ev := h.Listen(event.Private(owner.ID), event.Private(f1.ID), event.Private(f2.ID))
		icon := uploadRecord(t, h, owner, chat.TagIcons)
		g := createGroup(t, h, owner, map[string]any{"name": "Nest", "description": "birds", "icon": icon,
			"users": []chat.ID{f1.ID, f2.ID, owner.ID}})
		recips := g["recipients"].([]any)
		if g["channel_type"] != "Group" || g["name"] != "Nest" || g["owner"] != string(owner.ID) || len(recips) != 3 ||
			recips[0] != string(owner.ID) || g["icon"].(map[string]any)["_id"] != icon || g["description"] != "birds" {
			t.Errorf("group = %v", g)
		}
		got := map[string]bool{}
		for range 3 {
			e := ev.Wait(chat.EvChannelCreate, nil)
			if e.Body["_id"] != g["_id"] {
				t.Errorf("ChannelCreate = %s", e.Raw)
			}
			got[e.Topic] = true
		}
		for _, u := range []*apitest.User{owner, f1, f2} {
			if !got[event.Private(u.ID)] {
				t.Errorf("no ChannelCreate for %s", u.Username)
			}
		}
		if rec := fileRecord(t, h, icon); rec.UsedFor == "" {
			t.Errorf("icon not claimed")
		}
	})
	t.Run("alone", func(t *testing.T) {
		g := createGroup(t, h, owner, map[string]any{"name": "Solo"})
		if len(g["recipients"].([]any)) != 1 {
			t.Errorf("group = %v", g)
		}
	})
	t.Run("refused", func(t *testing.T) {
		_, botTok := newBotUser(t, h, owner, "groupbot")
		many := make([]string, 50)
		for i := range many {
			many[i] = string(chat.NewID())
		}
		cases := []struct {
			name   string
			req    apitest.Request
			status int
			typ    string
		}{
			{"stranger", apitest.Request{Session: owner.Token, Body: map[string]any{"name": "x", "users": []chat.ID{stranger.ID}}}, 403, "NotFriends"},
			{"unknown user", apitest.Request{Session: owner.Token, Body: map[string]any{"name": "x", "users": []chat.ID{chat.NewID()}}}, 403, "NotFriends"},
			{"bot", apitest.Request{Bot: botTok, Body: map[string]any{"name": "x"}}, 400, "IsBot"},
			{"no name", apitest.Request{Session: owner.Token, Body: map[string]any{"users": []chat.ID{}}}, 422, "FailedValidation"},
			{"name too long", apitest.Request{Session: owner.Token, Body: map[string]any{"name": "123456789012345678901234567890123"}}, 422, "FailedValidation"},
			{"too many users", apitest.Request{Session: owner.Token, Body: map[string]any{"name": "x", "users": many}}, 422, "FailedValidation"},
			{"duplicate users", apitest.Request{Session: owner.Token, Body: map[string]any{"name": "x", "users": []chat.ID{f1.ID, f1.ID}}}, 422, "FailedValidation"},
			{"icon of the wrong tag", apitest.Request{Session: owner.Token, Body: map[string]any{"name": "x", "icon": uploadRecord(t, h, owner, chat.TagAvatars)}}, 404, "NotFound"},
			{"no token", apitest.Request{Body: map[string]any{"name": "x"}}, 401, "NotAuthenticated"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tc.req.Method, tc.req.Path = http.MethodPost, "/channels/create"
				if tc.req.Session != "" {
					tc.req.Session = freshSession(t, h, owner)
				}
				wantError(t, h.Do(tc.req), tc.status, tc.typ)
			})
		}
	})
	t.Run("over the cap", func(t *testing.T) {
		small := apitest.Start(t, func(c *config.Config) { c.Limits.GroupSize = 2 })
		o, a, b := small.NewUser("o"+"wner"), small.NewUser("aa"), small.NewUser("bb")
		befriend(t, small, o, a)
		befriend(t, small, o, b)
		m := wantError(t, small.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/create", Session: o.Token,
			Body: map[string]any{"name": "crowd", "users": []chat.ID{a.ID, b.ID}}}), 403, "GroupTooLarge")
		if m["max"] != float64(2) {
			t.Errorf("max = %v", m["max"])
		}
		g := createGroup(t, small, o, map[string]any{"name": "pair", "users": []chat.ID{a.ID}})
		wantError(t, small.Do(apitest.Request{Method: http.MethodPut, Path: "/channels/" + g["_id"].(string) + "/recipients/" + string(b.ID),
			Session: o.Token}), 403, "GroupTooLarge")
	})
}

func TestGroupMembers(t *testing.T) {
	h := apitest.Start(t)
	owner, member, friend, stranger := h.NewUser("hawk"), h.NewUser("kite"), h.NewUser("gull"), h.NewUser("tern")
	befriend(t, h, owner, member)
	befriend(t, h, owner, friend)
	g := createGroup(t, h, owner, map[string]any{"name": "Sky", "users": []chat.ID{member.ID}})
	gid := chat.ID(g["_id"].(string))
	members := func(u *apitest.User) *apitest.Response {
		return h.Get("/channels/"+string(gid)+"/members", freshSession(t, h, u))
	}

	t.Run("fetch", func(t *testing.T) {
		res := members(member)
		var users []map[string]any
		res.JSON(t, &users)
		if res.Status != 200 || len(users) != 2 || users[0]["_id"] != string(owner.ID) || users[0]["relationship"] != "Friend" ||
			users[1]["relationship"] != "User" {
			t.Errorf("members = %d %s", res.Status, res.Body)
		}
		for _, u := range users {
			if _, ok := u["relations"]; ok && u["_id"] != string(member.ID) {
				t.Errorf("relations of another user sent: %v", u)
			}
		}
		wantError(t, members(stranger), 404, "NotFound")
		wantError(t, h.Get("/channels/"+string(chat.NewID())+"/members", owner.Token), 404, "NotFound")
		dm := wantOK(t, h.Get("/users/"+string(member.ID)+"/dm", freshSession(t, h, owner)))
		wantError(t, h.Get("/channels/"+dm["_id"].(string)+"/members", freshSession(t, h, owner)), 400, "InvalidOperation")
	})
	t.Run("add", func(t *testing.T) {
		ev := h.Listen(event.Of(gid), event.Private(friend.ID))
		res := h.Do(apitest.Request{Method: http.MethodPut, Path: "/channels/" + string(gid) + "/recipients/" + string(friend.ID),
			Session: freshSession(t, h, owner)})
		if res.Status != http.StatusNoContent {
			t.Fatalf("add = %d %s", res.Status, res.Body)
		}
		join := ev.Wait(chat.EvChannelGroupJoin, nil)
		if join.Topic != event.Of(gid) || join.Body["user"] != string(friend.ID) || join.Body["id"] != string(gid) {
			t.Errorf("ChannelGroupJoin = %s", join.Raw)
		}
		msg := ev.Wait(chat.EvMessage, nil)
		sys := msg.Body["system"].(map[string]any)
		if msg.Body["author"] != string(chat.SystemID) || sys["type"] != "user_added" || sys["id"] != string(friend.ID) ||
			sys["by"] != string(owner.ID) {
			t.Errorf("system message = %s", msg.Raw)
		}
		create := ev.Wait(chat.EvChannelCreate, nil)
		if create.Topic != event.Private(friend.ID) || len(create.Body["recipients"].([]any)) != 3 {
			t.Errorf("ChannelCreate = %s", create.Raw)
		}
		if users := members(friend); users.Status != 200 {
			t.Errorf("new member cannot see the group: %d", users.Status)
		}
	})
	t.Run("add refused", func(t *testing.T) {
		ev := h.Listen(event.Of(gid))
		other := h.NewUser("rook")
		befriend(t, h, member, other)
		_, botTok := newBotUser(t, h, owner, "gbot")
		cases := []struct {
			name   string
			req    apitest.Request
			status int
			typ    string
		}{
			{"not a friend", apitest.Request{Session: freshSession(t, h, owner), Path: "/recipients/" + string(stranger.ID)}, 403, "NotFriends"},
			{"already in", apitest.Request{Session: freshSession(t, h, owner), Path: "/recipients/" + string(member.ID)}, 409, "AlreadyInGroup"},
			{"unknown user", apitest.Request{Session: freshSession(t, h, owner), Path: "/recipients/" + string(chat.NewID())}, 404, "NotFound"},
			{"outsider", apitest.Request{Session: freshSession(t, h, stranger), Path: "/recipients/" + string(stranger.ID)}, 404, "NotFound"},
			{"bot", apitest.Request{Bot: botTok, Path: "/recipients/" + string(other.ID)}, 400, "IsBot"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tc.req.Method, tc.req.Path = http.MethodPut, "/channels/"+string(gid)+tc.req.Path
				wantError(t, h.Do(tc.req), tc.status, tc.typ)
			})
		}
		// A member without InviteOthers.
		st := h.Server.Store
		stored, _ := st.FetchChannel(context.Background(), gid)
		viewOnly := int64(3145728)
		stored.Permissions = &viewOnly
		if err := st.UpdateChannel(context.Background(), stored); err != nil {
			t.Fatal(err)
		}
		m := wantError(t, h.Do(apitest.Request{Method: http.MethodPut, Path: "/channels/" + string(gid) + "/recipients/" + string(other.ID),
			Session: freshSession(t, h, member)}), 403, "MissingPermission")
		if m["permission"] != "InviteOthers" {
			t.Errorf("permission = %v", m["permission"])
		}
		stored.Permissions = nil
		if err := st.UpdateChannel(context.Background(), stored); err != nil {
			t.Fatal(err)
		}
		ev.None(150 * time.Millisecond)
	})
	t.Run("remove", func(t *testing.T) {
		ev := h.Listen(event.Of(gid))
		del := func(by *apitest.User, who chat.ID) *apitest.Response {
			return h.Do(apitest.Request{Method: http.MethodDelete, Path: "/channels/" + string(gid) + "/recipients/" + string(who),
				Session: freshSession(t, h, by)})
		}
		m := wantError(t, del(member, friend.ID), 403, "MissingPermission")
		if m["permission"] != "ManageChannel" {
			t.Errorf("permission = %v", m["permission"])
		}
		wantError(t, del(owner, owner.ID), 400, "CannotRemoveYourself")
		wantError(t, del(owner, stranger.ID), 404, "NotInGroup")
		wantError(t, del(stranger, member.ID), 404, "NotFound")
		ev.None(150 * time.Millisecond)

		if res := del(owner, friend.ID); res.Status != http.StatusNoContent {
			t.Fatalf("remove = %d %s", res.Status, res.Body)
		}
		leave := ev.Wait(chat.EvChannelGroupLeave, nil)
		if leave.Body["user"] != string(friend.ID) {
			t.Errorf("ChannelGroupLeave = %s", leave.Raw)
		}
		msg := ev.Wait(chat.EvMessage, nil)
		if sys := msg.Body["system"].(map[string]any); sys["type"] != "user_remove" || sys["id"] != string(friend.ID) || sys["by"] != string(owner.ID) {
			t.Errorf("system message = %s", msg.Raw)
		}
		wantError(t, members(friend), 404, "NotFound")
	})
}
