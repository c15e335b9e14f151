package api_test

import (
	"net/http"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
)

func TestFetchMembers(t *testing.T) {
	e := newEnv(t)
	alice, bob, eve := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("eve")
	sid, _ := e.server(t, alice, "Den")
	mods := e.role(t, alice, sid, "mods", 0)
	e.join(t, sid, bob, mods)
	base := "/servers/" + sid + "/members"

	res := e.call(t, bob, http.MethodGet, base, nil, http.StatusOK)
	apitest.CheckSchema(t, "AllMemberResponse", res.Body)
	var list chat.MemberList
	res.JSON(t, &list)
	if len(list.Members) != 2 || len(list.Users) != 2 {
		t.Fatalf("members %s", res.Body)
	}
	for i, m := range list.Members {
		if list.Users[i].ID != m.ID.User || m.JoinedAt.IsZero() {
			t.Errorf("member %d %+v is paired with user %s", i, m.ID, list.Users[i].ID)
		}
		if list.Users[i].ID == bob.ID && list.Users[i].Relationship != chat.RelationUser {
			t.Errorf("bob sees himself as %q", list.Users[i].Relationship)
		}
	}
	// Nobody holds an events connection here, so everyone is offline.
	e.call(t, bob, http.MethodGet, base+"?exclude_offline=true", nil, http.StatusOK).JSON(t, &list)
	if len(list.Members) != 0 || len(list.Users) != 0 {
		t.Errorf("online members %+v", list)
	}
	e.fail(t, eve, http.MethodGet, base, nil, http.StatusNotFound, "NotFound")

	t.Run("one", func(t *testing.T) {
		res := e.call(t, alice, http.MethodGet, base+"/"+string(bob.ID), nil, http.StatusOK)
		apitest.CheckSchema(t, "Member", res.Body)
		res = e.call(t, alice, http.MethodGet, base+"/"+string(bob.ID)+"?roles=true", nil, http.StatusOK)
		apitest.CheckSchema(t, "MemberResponse", res.Body)
		var mr chat.MemberWithRoles
		res.JSON(t, &mr)
		if mr.Member.ID.User != bob.ID || len(mr.Roles) != 1 || mr.Roles[chat.ID(mods)].Name != "mods" {
			t.Errorf("member with roles %s", res.Body)
		}
		if m := e.call(t, alice, http.MethodGet, base+"/"+string(bob.ID)+"?roles=false", nil, http.StatusOK).Map(t); m["member"] != nil {
			t.Errorf("roles=false gave %v, want the member alone", m)
		}
		e.fail(t, alice, http.MethodGet, base+"/"+string(eve.ID), nil, http.StatusNotFound, "NotFound")
		e.fail(t, eve, http.MethodGet, base+"/"+string(bob.ID), nil, http.StatusNotFound, "NotFound")
	})
	t.Run("query", func(t *testing.T) {
		nick := "Bobby Tables"
		m := e.member(t, sid, alice)
		m.Nickname = &nick
		if err := e.h.Server.Store.UpdateMember(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		q := "/servers/" + sid + "/members_experimental_query?experimental_api=true&query="
		res := e.call(t, bob, http.MethodGet, q+"ob", nil, http.StatusOK)
		apitest.CheckSchema(t, "MemberQueryResponse", res.Body)
		var list chat.MemberList
		res.JSON(t, &list)
		// "bob" (3 characters) before "Bobby Tables": shortest name first.
		if len(list.Members) != 2 || list.Users[0].ID != bob.ID || list.Users[1].ID != alice.ID {
			t.Errorf("query ob = %s", res.Body)
		}
		e.call(t, bob, http.MethodGet, q+"alice", nil, http.StatusOK).JSON(t, &list)
		if len(list.Members) != 0 {
			t.Errorf("alice matched by username despite her nickname: %+v", list.Members)
		}
		e.fail(t, bob, http.MethodGet, "/servers/"+sid+"/members_experimental_query?query=b", nil, http.StatusBadRequest, "InvalidOperation")
		e.fail(t, eve, http.MethodGet, q+"b", nil, http.StatusNotFound, "NotFound")
	})
}

func TestEditMember(t *testing.T) {
	e := newEnv(t)
	alice, bob, carol, dave := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol"), e.h.NewUser("dave")
	sid, general := e.server(t, alice, "Den")
	mods := e.role(t, alice, sid, "mods", uint64(perm.AssignRoles|perm.TimeoutMembers|perm.ManageNicknames|perm.RemoveAvatars))
	helpers := e.role(t, alice, sid, "helpers", 0)
	e.join(t, sid, bob, mods)
	e.join(t, sid, carol, helpers)
	e.join(t, sid, dave)
	ev := e.h.Listen(event.Of(chat.ID(sid)))
	path := func(u *apitest.User) string { return "/servers/" + sid + "/members/" + string(u.ID) }

	t.Run("own nickname and avatar", func(t *testing.T) {
		avatar := e.upload(t, dave, chat.TagAvatars, "image/png")
		res := e.call(t, dave, http.MethodPatch, path(dave), map[string]any{"nickname": "D", "avatar": avatar}, http.StatusOK)
		apitest.CheckSchema(t, "Member", res.Body)
		got := ev.Wait(chat.EvServerMemberUpdate, nil)
		id := got.Body["id"].(map[string]any)
		data := got.Body["data"].(map[string]any)
		if id["server"] != sid || id["user"] != string(dave.ID) || data["nickname"] != "D" ||
			data["avatar"].(map[string]any)["_id"] != avatar || len(got.Body["clear"].([]any)) != 0 {
			t.Errorf("ServerMemberUpdate = %s", got.Raw)
		}
		e.call(t, dave, http.MethodPatch, path(dave), map[string]any{"remove": []string{"Nickname"}}, http.StatusOK)
		got = ev.Wait(chat.EvServerMemberUpdate, nil)
		if clear := got.Body["clear"].([]any); len(clear) != 1 || clear[0] != "Nickname" {
			t.Errorf("ServerMemberUpdate = %s", got.Raw)
		}
		e.fail(t, dave, http.MethodPatch, path(dave), map[string]any{"avatar": avatar}, http.StatusNotFound, "NotFound")
		e.fail(t, dave, http.MethodPatch, path(dave), map[string]any{"nickname": ""}, http.StatusUnprocessableEntity, "FailedValidation")
		e.fail(t, dave, http.MethodPatch, path(dave), map[string]any{"remove": []string{"Name"}}, http.StatusUnprocessableEntity, "FailedValidation")
	})
	t.Run("others", func(t *testing.T) {
		e.call(t, bob, http.MethodPatch, path(dave), map[string]any{"nickname": "Davey"}, http.StatusOK)
		ev.Wait(chat.EvServerMemberUpdate, nil)
		e.call(t, bob, http.MethodPatch, path(dave), map[string]any{"remove": []string{"Avatar"}}, http.StatusOK)
		if m := e.member(t, sid, dave); m.Avatar != nil || *m.Nickname != "Davey" {
			t.Errorf("dave %+v", m)
		}
		ev.Wait(chat.EvServerMemberUpdate, nil)
		e.fail(t, bob, http.MethodPatch, path(dave), map[string]any{"avatar": e.upload(t, bob, chat.TagAvatars, "image/png")},
			http.StatusBadRequest, "InvalidOperation")
		e.fail(t, dave, http.MethodPatch, path(carol), map[string]any{"nickname": "x"}, http.StatusForbidden, "MissingPermission", "ManageNicknames")
		e.fail(t, dave, http.MethodPatch, path(carol), map[string]any{"remove": []string{"Avatar"}}, http.StatusForbidden, "MissingPermission", "RemoveAvatars")
		e.fail(t, bob, http.MethodPatch, path(alice), map[string]any{"nickname": "boss"}, http.StatusForbidden, "NotElevated")
		e.fail(t, bob, http.MethodPatch, "/servers/"+sid+"/members/"+string(chat.NewID()), map[string]any{"nickname": "x"},
			http.StatusNotFound, "NotFound")
	})
	t.Run("own nickname without permission", func(t *testing.T) {
		e.call(t, alice, http.MethodPut, "/servers/"+sid+"/permissions/default", map[string]any{"permissions": perm.Default}, http.StatusOK)
		ev.Wait(chat.EvServerUpdate, nil)
		e.fail(t, dave, http.MethodPatch, path(dave), map[string]any{"nickname": "x"}, http.StatusForbidden, "MissingPermission", "ChangeNickname")
		e.fail(t, dave, http.MethodPatch, path(dave), map[string]any{"remove": []string{"Avatar"}}, http.StatusForbidden, "MissingPermission", "ChangeAvatar")
		e.call(t, alice, http.MethodPut, "/servers/"+sid+"/permissions/default", map[string]any{"permissions": perm.DefaultServer}, http.StatusOK)
		ev.Wait(chat.EvServerUpdate, nil)
	})
	t.Run("roles", func(t *testing.T) {
		e.call(t, bob, http.MethodPatch, path(dave), map[string]any{"roles": []string{helpers, helpers}}, http.StatusOK)
		got := ev.Wait(chat.EvServerMemberUpdate, nil)
		if roles := got.Body["data"].(map[string]any)["roles"].([]any); len(roles) != 1 || roles[0] != helpers {
			t.Errorf("ServerMemberUpdate = %s", got.Raw)
		}
		e.fail(t, bob, http.MethodPatch, path(dave), map[string]any{"roles": []string{mods}}, http.StatusForbidden, "NotElevated")
		e.fail(t, bob, http.MethodPatch, path(dave), map[string]any{"roles": []string{string(chat.NewID())}}, http.StatusNotFound, "InvalidRole")
		e.fail(t, carol, http.MethodPatch, path(dave), map[string]any{"roles": []string{}}, http.StatusForbidden, "MissingPermission", "AssignRoles")
		// Removing roles from a lower member is not rank-checked per role.
		e.call(t, bob, http.MethodPatch, path(dave), map[string]any{"remove": []string{"Roles"}}, http.StatusOK)
		got = ev.Wait(chat.EvServerMemberUpdate, nil)
		if clear := got.Body["clear"].([]any); len(clear) != 1 || clear[0] != "Roles" {
			t.Errorf("ServerMemberUpdate = %s", got.Raw)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		until := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
		e.fail(t, bob, http.MethodPatch, path(bob), map[string]any{"timeout": until}, http.StatusBadRequest, "CannotTimeoutYourself")
		e.fail(t, carol, http.MethodPatch, path(dave), map[string]any{"timeout": until}, http.StatusForbidden, "MissingPermission", "TimeoutMembers")
		e.call(t, bob, http.MethodPatch, path(dave), map[string]any{"timeout": until}, http.StatusOK)
		got := ev.Wait(chat.EvServerMemberUpdate, nil)
		if got.Body["data"].(map[string]any)["timeout"] != until.Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("ServerMemberUpdate = %s", got.Raw)
		}
		// Timed out, dave keeps only viewing and reading.
		e.fail(t, dave, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusForbidden, "MissingPermission", "InviteOthers")
		e.call(t, dave, http.MethodGet, "/channels/"+general, nil, http.StatusOK)
		e.call(t, bob, http.MethodPatch, path(dave), map[string]any{"remove": []string{"Timeout"}}, http.StatusOK)
		ev.Wait(chat.EvServerMemberUpdate, nil)
		e.call(t, dave, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK)
	})
	t.Run("role-less members act on nobody", func(t *testing.T) {
		// Carol may manage nicknames through her role... give her role the
		// permission, then let dave (no roles) hold it too: dave still
		// cannot act on carol, who ranks above him.
		e.call(t, alice, http.MethodPut, "/servers/"+sid+"/permissions/default",
			map[string]any{"permissions": perm.DefaultServer | perm.ManageNicknames}, http.StatusOK)
		e.fail(t, dave, http.MethodPatch, path(carol), map[string]any{"nickname": "c"}, http.StatusForbidden, "NotElevated")
		e.call(t, carol, http.MethodPatch, path(dave), map[string]any{"nickname": "d"}, http.StatusOK)
	})
}

func TestKickMember(t *testing.T) {
	e := newEnv(t)
	alice, bob, carol, dave := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol"), e.h.NewUser("dave")
	sid, general := e.server(t, alice, "Den")
	e.call(t, alice, http.MethodPatch, "/servers/"+sid, map[string]any{"system_messages": map[string]any{"user_kicked": general}}, http.StatusOK)
	mods := e.role(t, alice, sid, "mods", uint64(perm.KickMembers))
	e.join(t, sid, bob, mods)
	e.join(t, sid, carol)
	e.join(t, sid, dave)
	ev := e.h.Listen(event.Of(chat.ID(sid)), event.Of(chat.ID(general)))
	path := func(u *apitest.User) string { return "/servers/" + sid + "/members/" + string(u.ID) }

	e.fail(t, dave, http.MethodDelete, path(carol), nil, http.StatusForbidden, "MissingPermission", "KickMembers")
	e.fail(t, bob, http.MethodDelete, path(bob), nil, http.StatusBadRequest, "CannotRemoveYourself")
	e.fail(t, bob, http.MethodDelete, path(alice), nil, http.StatusForbidden, "NotElevated")
	e.fail(t, bob, http.MethodDelete, "/servers/"+sid+"/members/"+string(chat.NewID()), nil, http.StatusNotFound, "NotFound")

	e.call(t, bob, http.MethodDelete, path(carol), nil, http.StatusNoContent)
	got := ev.Wait(chat.EvServerMemberLeave, nil)
	if got.Body["user"] != string(carol.ID) || got.Body["reason"] != "Kick" {
		t.Errorf("ServerMemberLeave = %s", got.Raw)
	}
	msg := ev.Wait(chat.EvMessage, nil)
	if sys := msg.Body["system"].(map[string]any); sys["type"] != "user_kicked" || sys["id"] != string(carol.ID) {
		t.Errorf("system message = %s", msg.Raw)
	}
	e.fail(t, carol, http.MethodGet, "/servers/"+sid, nil, http.StatusNotFound, "NotFound")
	e.fail(t, bob, http.MethodDelete, path(carol), nil, http.StatusNotFound, "NotFound")
}

func TestBans(t *testing.T) {
	e := newEnv(t)
	alice, bob, carol, dave, eve := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol"), e.h.NewUser("dave"), e.h.NewUser("eve")
	sid, general := e.server(t, alice, "Den")
	e.call(t, alice, http.MethodPatch, "/servers/"+sid, map[string]any{"system_messages": map[string]any{"user_banned": general}}, http.StatusOK)
	mods := e.role(t, alice, sid, "mods", uint64(perm.BanMembers))
	e.join(t, sid, bob, mods)
	e.join(t, sid, carol)
	e.join(t, sid, dave)
	ev := e.h.Listen(event.Of(chat.ID(sid)), event.Of(chat.ID(general)))
	path := func(u *apitest.User) string { return "/servers/" + sid + "/bans/" + string(u.ID) }

	res := e.call(t, bob, http.MethodPut, path(carol), map[string]any{"reason": "spam"}, http.StatusOK)
	apitest.CheckSchema(t, "ServerBan", res.Body)
	if b := res.Map(t); b["reason"] != "spam" || b["_id"].(map[string]any)["user"] != string(carol.ID) {
		t.Errorf("ban %s", res.Body)
	}
	got := ev.Wait(chat.EvServerMemberLeave, nil)
	if got.Body["user"] != string(carol.ID) || got.Body["reason"] != "Ban" {
		t.Errorf("ServerMemberLeave = %s", got.Raw)
	}
	msg := ev.Wait(chat.EvMessage, nil)
	if sys := msg.Body["system"].(map[string]any); sys["type"] != "user_banned" || sys["id"] != string(carol.ID) {
		t.Errorf("system message = %s", msg.Raw)
	}
	e.fail(t, carol, http.MethodGet, "/servers/"+sid, nil, http.StatusNotFound, "NotFound")

	// Banning someone who is not a member only records the ban.
	e.call(t, bob, http.MethodPut, path(eve), nil, http.StatusOK)
	ev.None(200 * time.Millisecond)

	res = e.call(t, bob, http.MethodGet, "/servers/"+sid+"/bans", nil, http.StatusOK)
	apitest.CheckSchema(t, "BanListResult", res.Body)
	var list chat.BanList
	res.JSON(t, &list)
	if len(list.Bans) != 2 || len(list.Users) != 2 || list.Users[0].Username == "" {
		t.Errorf("ban list %s", res.Body)
	}

	inv := e.call(t, alice, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK).Map(t)["_id"].(string)
	e.fail(t, carol, http.MethodPost, "/invites/"+inv, nil, http.StatusForbidden, "Banned")

	e.fail(t, dave, http.MethodPut, path(eve), nil, http.StatusForbidden, "MissingPermission", "BanMembers")
	e.fail(t, dave, http.MethodGet, "/servers/"+sid+"/bans", nil, http.StatusForbidden, "MissingPermission", "BanMembers")
	e.fail(t, dave, http.MethodDelete, path(carol), nil, http.StatusForbidden, "MissingPermission", "BanMembers")
	e.fail(t, bob, http.MethodPut, path(bob), nil, http.StatusBadRequest, "CannotRemoveYourself")
	e.fail(t, bob, http.MethodPut, path(alice), nil, http.StatusForbidden, "NotElevated")
	e.fail(t, bob, http.MethodPut, "/servers/"+sid+"/bans/"+string(chat.NewID()), nil, http.StatusNotFound, "NotFound")
	e.fail(t, bob, http.MethodPut, path(dave), map[string]any{"reason": string(make([]rune, 1025))}, http.StatusUnprocessableEntity, "FailedValidation")

	e.call(t, bob, http.MethodDelete, path(carol), nil, http.StatusNoContent)
	e.fail(t, bob, http.MethodDelete, path(carol), nil, http.StatusNotFound, "NotFound")
	e.call(t, carol, http.MethodPost, "/invites/"+inv, nil, http.StatusOK)
}

// TestTimeoutSurvivesRejoin checks a timed-out member cannot lift the
// timeout by leaving or being kicked and joining again.
func TestTimeoutSurvivesRejoin(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.h.NewUser("alice"), e.h.NewUser("bob")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	e.call(t, alice, http.MethodPatch, "/servers/"+sid+"/members/"+string(bob.ID), map[string]any{"timeout": until}, http.StatusOK)
	res := e.call(t, alice, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK)
	code := res.Map(t)["_id"].(string)

	for _, leave := range []struct {
		name string
		do   func()
	}{
		{"leave", func() { e.call(t, bob, http.MethodDelete, "/servers/"+sid, nil, http.StatusNoContent) }},
		{"kick", func() {
			e.call(t, alice, http.MethodDelete, "/servers/"+sid+"/members/"+string(bob.ID), nil, http.StatusNoContent)
		}},
	} {
		t.Run(leave.name, func(t *testing.T) {
			leave.do()
			e.call(t, bob, http.MethodPost, "/invites/"+code, nil, http.StatusOK)
			m := e.member(t, sid, bob)
			if m.Timeout == nil || !m.Timeout.Equal(until) {
				t.Fatalf("timeout after rejoining = %v, want %v", m.Timeout, until)
			}
		})
	}
}
