package api_test

import (
	"net/http"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
	"ermine/internal/perm"
)

func TestRoles(t *testing.T) {
	e := newEnv(t, withLimits(func(l *config.Limits) { l.ServerRoles = 4 }))
	alice, bob, carol := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol")
	sid, general := e.server(t, alice, "Den")
	ev := e.h.Listen(event.Of(chat.ID(sid)))
	base := "/servers/" + sid + "/roles"

	res := e.call(t, alice, http.MethodPost, base, map[string]any{"name": "mods", "rank": 0}, http.StatusOK)
	apitest.CheckSchema(t, "NewRoleResponse", res.Body)
	mods := res.Map(t)["id"].(string)
	got := ev.Wait(chat.EvServerRoleUpdate, nil)
	data := got.Body["data"].(map[string]any)
	if got.Body["role_id"] != mods || data["name"] != "mods" || data["rank"] != float64(0) ||
		data["permissions"].(map[string]any)["a"] != float64(0) || data["permissions"].(map[string]any)["d"] != float64(0) {
		t.Errorf("ServerRoleUpdate = %s", got.Raw)
	}
	e.call(t, alice, http.MethodPut, "/servers/"+sid+"/permissions/"+mods,
		override(uint64(perm.ManageRole|perm.ManagePermissions), 0), http.StatusOK)
	ev.Wait(chat.EvServerRoleUpdate, nil)
	members := e.role(t, alice, sid, "members", 0)
	ev.Wait(chat.EvServerRoleUpdate, nil)
	e.join(t, sid, bob, mods)
	e.join(t, sid, carol, members)

	t.Run("fetch", func(t *testing.T) {
		res := e.call(t, carol, http.MethodGet, base+"/"+mods, nil, http.StatusOK)
		apitest.CheckSchema(t, "Role", res.Body)
		if r := res.Map(t); r["name"] != "mods" || r["rank"] != float64(0) {
			t.Errorf("role %s", res.Body)
		}
		e.fail(t, carol, http.MethodGet, base+"/"+string(chat.NewID()), nil, http.StatusNotFound, "NotFound")
		e.fail(t, e.h.NewUser("eve"), http.MethodGet, base+"/"+mods, nil, http.StatusNotFound, "NotFound")
	})
	t.Run("edit", func(t *testing.T) {
		res := e.call(t, bob, http.MethodPatch, base+"/"+members, map[string]any{"name": "folk", "colour": "linear-gradient(30deg, RED, #0f0 50%)",
			"hoist": true, "rank": 0}, http.StatusOK)
		apitest.CheckSchema(t, "Role", res.Body)
		got := ev.Wait(chat.EvServerRoleUpdate, nil)
		data := got.Body["data"].(map[string]any)
		if data["name"] != "folk" || data["colour"] != "linear-gradient(30deg, RED, #0f0 50%)" || data["hoist"] != true || data["rank"] != nil {
			t.Errorf("ServerRoleUpdate = %s", got.Raw)
		}
		// A gradient naming its colour space (reference 0.15.2, #913).
		spaced := "linear-gradient(90deg in oklch longer hue, red, blue)"
		res = e.call(t, bob, http.MethodPatch, base+"/"+members, map[string]any{"colour": spaced}, http.StatusOK)
		if res.Map(t)["colour"] != spaced {
			t.Errorf("colour-space gradient: %s", res.Body)
		}
		ev.Wait(chat.EvServerRoleUpdate, nil)
		res = e.call(t, bob, http.MethodPatch, base+"/"+members, map[string]any{"remove": []string{"Colour"}}, http.StatusOK)
		if _, ok := res.Map(t)["colour"]; ok {
			t.Errorf("colour kept: %s", res.Body)
		}
		got = ev.Wait(chat.EvServerRoleUpdate, nil)
		if clear := got.Body["clear"].([]any); len(clear) != 1 || clear[0] != "Colour" {
			t.Errorf("ServerRoleUpdate = %s, want clear [Colour]", got.Raw)
		}
		for _, bad := range []map[string]any{{"colour": "url(evil)"}, {"colour": ""}, {"colour": "linear-gradient(90deg in oklch sideways hue, red, blue)"}, {"name": ""}, {"remove": []string{"Name"}}} {
			e.fail(t, bob, http.MethodPatch, base+"/"+members, bad, http.StatusUnprocessableEntity, "FailedValidation")
		}
		e.fail(t, bob, http.MethodPatch, base+"/"+mods, map[string]any{"name": "mine"}, http.StatusForbidden, "NotElevated")
		e.fail(t, carol, http.MethodPatch, base+"/"+members, map[string]any{"name": "x"}, http.StatusForbidden, "MissingPermission", "ManageRole")
		e.fail(t, bob, http.MethodPatch, base+"/"+string(chat.NewID()), map[string]any{"name": "x"}, http.StatusNotFound, "NotFound")
	})
	t.Run("server role permissions", func(t *testing.T) {
		path := "/servers/" + sid + "/permissions/" + members
		res := e.call(t, bob, http.MethodPut, path, override(uint64(perm.SendMessage), uint64(perm.React)), http.StatusOK)
		apitest.CheckSchema(t, "Server", res.Body)
		got := ev.Wait(chat.EvServerRoleUpdate, nil)
		p := got.Body["data"].(map[string]any)["permissions"].(map[string]any)
		if got.Body["role_id"] != members || p["a"] != float64(perm.SendMessage) || p["d"] != float64(perm.React) {
			t.Errorf("ServerRoleUpdate = %s", got.Raw)
		}
		e.fail(t, bob, http.MethodPut, path, override(uint64(perm.BanMembers), 0), http.StatusForbidden, "CannotGiveMissingPermissions")
		e.fail(t, bob, http.MethodPut, "/servers/"+sid+"/permissions/"+mods, override(0, 0), http.StatusForbidden, "NotElevated")
		e.fail(t, carol, http.MethodPut, path, override(0, 0), http.StatusForbidden, "MissingPermission", "ManagePermissions")
		e.fail(t, bob, http.MethodPut, "/servers/"+sid+"/permissions/"+string(chat.NewID()), override(0, 0), http.StatusNotFound, "NotFound")
	})
	t.Run("default permissions", func(t *testing.T) {
		path := "/servers/" + sid + "/permissions/default"
		value := uint64(perm.ViewChannel | perm.SendMessage | perm.ReadMessageHistory)
		res := e.call(t, bob, http.MethodPut, path, map[string]any{"permissions": value}, http.StatusOK)
		apitest.CheckSchema(t, "Server", res.Body)
		got := ev.Wait(chat.EvServerUpdate, nil)
		if got.Body["data"].(map[string]any)["default_permissions"] != float64(value) {
			t.Errorf("ServerUpdate = %s", got.Raw)
		}
		e.fail(t, bob, http.MethodPut, path, map[string]any{"permissions": uint64(perm.BanMembers)}, http.StatusForbidden, "CannotGiveMissingPermissions")
		e.fail(t, carol, http.MethodPut, path, map[string]any{"permissions": 0}, http.StatusForbidden, "MissingPermission", "ManagePermissions")
		e.fail(t, bob, http.MethodPut, path, map[string]any{}, http.StatusUnprocessableEntity, "FailedValidation")
		e.fail(t, bob, http.MethodPut, path, map[string]any{"permissions": -1}, http.StatusUnprocessableEntity, "FailedValidation")
		e.call(t, alice, http.MethodPut, path, map[string]any{"permissions": perm.DefaultServer}, http.StatusOK)
		ev.Wait(chat.EvServerUpdate, nil)
	})
	t.Run("ranks", func(t *testing.T) {
		third := e.role(t, alice, sid, "third", 0)
		ev.Wait(chat.EvServerRoleUpdate, nil)
		path := base + "/ranks"
		res := e.call(t, bob, http.MethodPatch, path, map[string]any{"ranks": []string{mods, third, members}}, http.StatusOK)
		apitest.CheckSchema(t, "Server", res.Body)
		got := ev.Wait(chat.EvServerRoleRanksUpdate, nil)
		if r := got.Body["ranks"].([]any); len(r) != 3 || r[1] != third {
			t.Errorf("ServerRoleRanksUpdate = %s", got.Raw)
		}
		s := e.fetchServer(t, alice, sid)
		if s.Roles[chat.ID(third)].Rank != 1 || s.Roles[chat.ID(members)].Rank != 2 {
			t.Errorf("ranks %+v", s.Roles)
		}
		e.fail(t, bob, http.MethodPatch, path, map[string]any{"ranks": []string{third, mods, members}}, http.StatusForbidden, "NotElevated")
		e.fail(t, bob, http.MethodPatch, path, map[string]any{"ranks": []string{mods, third}}, http.StatusBadRequest, "InvalidOperation")
		e.fail(t, bob, http.MethodPatch, path, map[string]any{"ranks": []string{mods, third, third}}, http.StatusBadRequest, "InvalidOperation")
		e.fail(t, bob, http.MethodPatch, path, map[string]any{}, http.StatusUnprocessableEntity, "FailedValidation")
		e.fail(t, carol, http.MethodPatch, path, map[string]any{"ranks": []string{mods, third, members}}, http.StatusForbidden, "MissingPermission", "ManageRole")
		e.call(t, alice, http.MethodPatch, path, map[string]any{"ranks": []string{third, mods, members}}, http.StatusOK)
		ev.Wait(chat.EvServerRoleRanksUpdate, nil)
	})
	t.Run("limit", func(t *testing.T) {
		e.role(t, alice, sid, "fourth", 0)
		ev.Wait(chat.EvServerRoleUpdate, nil)
		e.fail(t, alice, http.MethodPost, base, map[string]any{"name": "fifth"}, http.StatusBadRequest, "TooManyRoles", 4)
		e.fail(t, alice, http.MethodPost, base, map[string]any{"name": ""}, http.StatusUnprocessableEntity, "FailedValidation")
		e.fail(t, carol, http.MethodPost, base, map[string]any{"name": "x"}, http.StatusForbidden, "MissingPermission", "ManageRole")
	})
	t.Run("delete", func(t *testing.T) {
		e.call(t, alice, http.MethodPut, "/channels/"+general+"/permissions/"+members, override(0, 0), http.StatusOK)
		other := e.channel(t, alice, sid, "other")
		e.call(t, alice, http.MethodPut, "/channels/"+other+"/permissions/"+members, override(0, 0), http.StatusOK)
		e.fail(t, carol, http.MethodDelete, base+"/"+members, nil, http.StatusForbidden, "MissingPermission", "ManageRole")
		e.fail(t, bob, http.MethodDelete, base+"/"+mods, nil, http.StatusForbidden, "NotElevated")
		e.call(t, bob, http.MethodDelete, base+"/"+members, nil, http.StatusNoContent)
		got := ev.Wait(chat.EvServerRoleDelete, nil)
		if got.Body["role_id"] != members || got.Body["id"] != sid {
			t.Errorf("ServerRoleDelete = %s", got.Raw)
		}
		if m := e.member(t, sid, carol); len(m.Roles) != 0 {
			t.Errorf("carol keeps roles %v", m.Roles)
		}
		for _, c := range []string{general, other} {
			var ch chat.Channel
			e.call(t, alice, http.MethodGet, "/channels/"+c, nil, http.StatusOK).JSON(t, &ch)
			if _, ok := ch.RolePermissions[chat.ID(members)]; ok {
				t.Errorf("channel %s keeps an override of the deleted role", c)
			}
		}
		e.fail(t, bob, http.MethodDelete, base+"/"+members, nil, http.StatusNotFound, "NotFound")
	})
}
