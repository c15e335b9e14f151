package api_test

import (
	"net/http"
	"slices"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
)

func TestFetchChannel(t *testing.T) {
	e := newEnv(t)
	alice, bob, eve := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("eve")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	hidden := e.channel(t, alice, sid, "hidden")
	e.call(t, alice, http.MethodPut, "/channels/"+hidden+"/permissions/default", override(0, uint64(perm.ViewChannel)), http.StatusOK)

	res := e.call(t, bob, http.MethodGet, "/channels/"+general, nil, http.StatusOK)
	apitest.CheckSchema(t, "Channel", res.Body)
	if res.Map(t)["_id"] != general {
		t.Errorf("fetched %s", res.Body)
	}
	e.call(t, alice, http.MethodGet, "/channels/"+hidden, nil, http.StatusOK)
	e.fail(t, bob, http.MethodGet, "/channels/"+hidden, nil, http.StatusNotFound, "NotFound")
	e.fail(t, eve, http.MethodGet, "/channels/"+general, nil, http.StatusNotFound, "NotFound")
	e.fail(t, eve, http.MethodGet, "/channels/"+string(chat.NewID()), nil, http.StatusNotFound, "NotFound")
	e.fail(t, nil, http.MethodGet, "/channels/"+general, nil, http.StatusUnauthorized, "NotAuthenticated")
}

func TestEditServerChannel(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.h.NewUser("alice"), e.h.NewUser("bob")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	path := "/channels/" + general
	ev := e.h.Listen(event.Of(chat.ID(sid)))

	icon := e.upload(t, alice, chat.TagIcons, "image/png")
	res := e.call(t, alice, http.MethodPatch, path, map[string]any{"name": "lobby", "description": "hi", "nsfw": true,
		"icon": icon}, http.StatusOK)
	apitest.CheckSchema(t, "Channel", res.Body)
	got := ev.Wait(chat.EvChannelUpdate, nil)
	data := got.Body["data"].(map[string]any)
	if got.Body["id"] != general || data["name"] != "lobby" || data["description"] != "hi" || data["nsfw"] != true ||
		data["icon"].(map[string]any)["_id"] != icon {
		t.Errorf("ChannelUpdate = %s", got.Raw)
	}

	var ch chat.Channel
	e.call(t, alice, http.MethodPatch, path, map[string]any{"remove": []string{"Description", "Icon"}}, http.StatusOK).JSON(t, &ch)
	if ch.Description != nil || ch.Icon != nil || ch.Name != "lobby" {
		t.Errorf("after remove %+v", ch)
	}
	got = ev.Wait(chat.EvChannelUpdate, nil)
	if clear := got.Body["clear"].([]any); len(clear) != 2 || clear[0] != "Description" || clear[1] != "Icon" {
		t.Errorf("ChannelUpdate = %s", got.Raw)
	}

	e.fail(t, bob, http.MethodPatch, path, map[string]any{"name": "mine"}, http.StatusForbidden, "MissingPermission", "ManageChannel")
	e.fail(t, alice, http.MethodPatch, path, map[string]any{"name": ""}, http.StatusUnprocessableEntity, "FailedValidation")
	e.fail(t, alice, http.MethodPatch, path, map[string]any{"remove": []string{"Name"}}, http.StatusUnprocessableEntity, "FailedValidation")
	e.fail(t, alice, http.MethodPatch, path, map[string]any{"owner": string(bob.ID)}, http.StatusBadRequest, "InvalidOperation")
	e.fail(t, alice, http.MethodPatch, path, map[string]any{"icon": "missing"}, http.StatusNotFound, "NotFound")
	e.fail(t, e.h.NewUser("eve"), http.MethodPatch, path, map[string]any{"name": "x"}, http.StatusNotFound, "NotFound")

	manager := e.role(t, alice, sid, "manager", uint64(perm.ManageChannel))
	carol := e.h.NewUser("carol")
	e.join(t, sid, carol, manager)
	e.call(t, carol, http.MethodPatch, path, map[string]any{"name": "carols"}, http.StatusOK)
}

func TestDeleteServerChannel(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.h.NewUser("alice"), e.h.NewUser("bob")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	doomed := e.channel(t, alice, sid, "doomed")
	e.call(t, alice, http.MethodPatch, "/servers/"+sid, map[string]any{
		"categories":      []map[string]any{{"id": "c", "title": "C", "channels": []string{general, doomed}}},
		"system_messages": map[string]any{"user_joined": doomed, "user_left": general},
	}, http.StatusOK)
	ev := e.h.Listen(event.Of(chat.ID(sid)))

	e.fail(t, bob, http.MethodDelete, "/channels/"+doomed, nil, http.StatusForbidden, "MissingPermission", "ManageChannel")
	e.call(t, alice, http.MethodDelete, "/channels/"+doomed, nil, http.StatusNoContent)
	if got := ev.Wait(chat.EvChannelDelete, nil); got.Body["id"] != doomed {
		t.Errorf("ChannelDelete = %s", got.Raw)
	}
	if got := ev.Wait(chat.EvServerUpdate, nil); len(got.Body["data"].(map[string]any)["channels"].([]any)) != 1 {
		t.Errorf("ServerUpdate = %s", got.Raw)
	}
	s := e.fetchServer(t, alice, sid)
	if !slices.Equal(s.Channels, []chat.ID{chat.ID(general)}) || !slices.Equal(s.Categories[0].Channels, []chat.ID{chat.ID(general)}) ||
		s.SystemMessages.UserJoined != nil || *s.SystemMessages.UserLeft != chat.ID(general) {
		t.Errorf("server still refers to the channel: %+v %+v %+v", s.Channels, s.Categories, s.SystemMessages)
	}
	e.fail(t, alice, http.MethodGet, "/channels/"+doomed, nil, http.StatusNotFound, "NotFound")
	e.fail(t, alice, http.MethodDelete, "/channels/"+doomed, nil, http.StatusNotFound, "NotFound")
}

func TestChannelPermissions(t *testing.T) {
	e := newEnv(t)
	alice, bob, carol := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol")
	sid, general := e.server(t, alice, "Den")
	admin := e.role(t, alice, sid, "admin", uint64(perm.ManagePermissions|perm.ManageChannel))
	low := e.role(t, alice, sid, "low", 0)
	e.join(t, sid, bob, admin)
	e.join(t, sid, carol)
	ev := e.h.Listen(event.Of(chat.ID(sid)))
	rolePath := "/channels/" + general + "/permissions/" + low
	defPath := "/channels/" + general + "/permissions/default"

	t.Run("role override", func(t *testing.T) {
		res := e.call(t, alice, http.MethodPut, rolePath, override(uint64(perm.SendMessage), uint64(perm.React)), http.StatusOK)
		apitest.CheckSchema(t, "Channel", res.Body)
		got := ev.Wait(chat.EvChannelUpdate, nil)
		rp := got.Body["data"].(map[string]any)["role_permissions"].(map[string]any)[low].(map[string]any)
		if rp["a"] != float64(perm.SendMessage) || rp["d"] != float64(perm.React) {
			t.Errorf("ChannelUpdate = %s", got.Raw)
		}
	})
	t.Run("default override", func(t *testing.T) {
		e.call(t, alice, http.MethodPut, defPath, override(0, uint64(perm.UploadFiles)), http.StatusOK)
		got := ev.Wait(chat.EvChannelUpdate, nil)
		dp := got.Body["data"].(map[string]any)["default_permissions"].(map[string]any)
		if dp["a"] != float64(0) || dp["d"] != float64(perm.UploadFiles) {
			t.Errorf("ChannelUpdate = %s", got.Raw)
		}
		e.fail(t, alice, http.MethodPut, defPath, map[string]any{"permissions": 5}, http.StatusBadRequest, "InvalidOperation")
		e.fail(t, alice, http.MethodPut, defPath, map[string]any{}, http.StatusUnprocessableEntity, "FailedValidation")
		e.fail(t, alice, http.MethodPut, defPath, map[string]any{"permissions": "all"}, http.StatusUnprocessableEntity, "FailedValidation")
	})
	t.Run("grant rule", func(t *testing.T) {
		// Bob manages permissions but holds neither ManageServer nor, in
		// this channel, UploadFiles (the default override denies it): he
		// may not allow the one nor lift the deny of the other. What he
		// holds he may give.
		e.fail(t, bob, http.MethodPut, rolePath, override(uint64(perm.ManageServer), 0), http.StatusForbidden, "CannotGiveMissingPermissions")
		e.fail(t, bob, http.MethodPut, defPath, override(0, 0), http.StatusForbidden, "CannotGiveMissingPermissions")
		e.call(t, bob, http.MethodPut, defPath, override(0, uint64(perm.UploadFiles|perm.React)), http.StatusOK)
		e.call(t, bob, http.MethodPut, rolePath, override(uint64(perm.SendMessage|perm.ViewChannel), uint64(perm.React)), http.StatusOK)
	})
	t.Run("refusals", func(t *testing.T) {
		e.fail(t, carol, http.MethodPut, rolePath, override(0, 0), http.StatusForbidden, "MissingPermission", "ManagePermissions")
		e.fail(t, carol, http.MethodPut, defPath, override(0, 0), http.StatusForbidden, "MissingPermission", "ManagePermissions")
		e.fail(t, bob, http.MethodPut, "/channels/"+general+"/permissions/"+admin, override(0, 0), http.StatusForbidden, "NotElevated")
		e.fail(t, alice, http.MethodPut, "/channels/"+general+"/permissions/"+string(chat.NewID()), override(0, 0), http.StatusNotFound, "NotFound")
		e.fail(t, alice, http.MethodPut, rolePath, map[string]any{}, http.StatusUnprocessableEntity, "FailedValidation")
		e.fail(t, alice, http.MethodPut, rolePath, map[string]any{"permissions": map[string]any{"allow": -1, "deny": 0}},
			http.StatusUnprocessableEntity, "FailedValidation")
		e.fail(t, e.h.NewUser("eve"), http.MethodPut, rolePath, override(0, 0), http.StatusNotFound, "NotFound")
	})
	t.Run("effect", func(t *testing.T) {
		// Denying ViewChannel to everyone hides the channel from carol, and
		// allowing it back to her role shows it again.
		e.call(t, alice, http.MethodPut, defPath, override(0, uint64(perm.ViewChannel)), http.StatusOK)
		e.fail(t, carol, http.MethodGet, "/channels/"+general, nil, http.StatusNotFound, "NotFound")
		m := e.member(t, sid, carol)
		m.Roles = []chat.ID{chat.ID(low)}
		if err := e.h.Server.Store.UpdateMember(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		e.call(t, alice, http.MethodPut, rolePath, override(uint64(perm.ViewChannel), 0), http.StatusOK)
		e.call(t, carol, http.MethodGet, "/channels/"+general, nil, http.StatusOK)
	})
}
