package api_test

import (
	"net/http"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
)

// TestGroupThroughChannelRoutes drives a group through the shared channel
// routes: edit, default permissions, an invite, leaving and the last one
// out deleting it.
func TestGroupThroughChannelRoutes(t *testing.T) {
	h := apitest.Start(t, apitest.NoRateLimits)
	owner, friend, joiner := h.NewUser("Owner"), h.NewUser("Friend"), h.NewUser("Joiner")
	befriend(t, h, owner, friend)
	g := createGroup(t, h, owner, map[string]any{"name": "Den", "users": []string{string(friend.ID)}})
	gid := g["_id"].(string)
	ev := h.Listen(event.Of(chat.ID(gid)))

	res := h.Do(apitest.Request{Method: http.MethodPatch, Path: "/channels/" + gid, Session: owner.Token,
		Body: map[string]any{"name": "Burrow", "description": "underground"}})
	if res.Status != http.StatusOK || res.Map(t)["name"] != "Burrow" {
		t.Fatalf("edit group = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvMessage, func(e apitest.Event) bool {
		sys, _ := e.Body["system"].(map[string]any)
		return sys["type"] == "channel_renamed"
	})
	ev.Wait(chat.EvChannelUpdate, func(e apitest.Event) bool {
		return e.Body["data"].(map[string]any)["name"] == "Burrow"
	})

	res = h.Do(apitest.Request{Method: http.MethodPut, Path: "/channels/" + gid + "/permissions/default", Session: owner.Token,
		Body: map[string]any{"permissions": 3145728 | 4194304}})
	if res.Status != http.StatusOK {
		t.Fatalf("group default permissions = %d %s", res.Status, res.Body)
	}
	res = h.Do(apitest.Request{Method: http.MethodPut, Path: "/channels/" + gid + "/permissions/default", Session: owner.Token,
		Body: map[string]any{"permissions": map[string]any{"allow": 1, "deny": 0}}})
	if res.Status != http.StatusBadRequest {
		t.Errorf("override body on a group = %d %s, want 400", res.Status, res.Body)
	}

	res = h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + gid + "/invites", Session: owner.Token})
	if res.Status != http.StatusOK {
		t.Fatalf("group invite = %d %s", res.Status, res.Body)
	}
	code := res.Map(t)["_id"].(string)
	res = h.Do(apitest.Request{Method: http.MethodPost, Path: "/invites/" + code, Session: joiner.Token})
	if res.Status != http.StatusOK {
		t.Fatalf("join group invite = %d %s", res.Status, res.Body)
	}
	joined := res.Map(t)
	if joined["type"] != "Group" || len(joined["users"].([]any)) != 3 {
		t.Errorf("join = %v", joined)
	}
	ev.Wait(chat.EvChannelGroupJoin, func(e apitest.Event) bool { return e.Body["user"] == string(joiner.ID) })

	// The owner leaves: ownership passes on with a ChannelUpdate.
	res = h.Do(apitest.Request{Method: http.MethodDelete, Path: "/channels/" + gid, Session: owner.Token})
	if res.Status != http.StatusNoContent {
		t.Fatalf("owner leaves = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvChannelUpdate, func(e apitest.Event) bool { return e.Body["data"].(map[string]any)["owner"] != nil })
	for _, u := range []*apitest.User{friend, joiner} {
		res = h.Do(apitest.Request{Method: http.MethodDelete, Path: "/channels/" + gid + "?leave_silently=true", Session: u.Token})
		if res.Status != http.StatusNoContent {
			t.Fatalf("leave = %d %s", res.Status, res.Body)
		}
	}
	ev.Wait(chat.EvChannelDelete, nil)
	if res := h.Get("/channels/"+gid, friend.Token); res.Status != http.StatusNotFound {
		t.Errorf("group after last leave = %d", res.Status)
	}
}

// TestDirectMessageClose closes a DM through DELETE /channels/{id}.
func TestDirectMessageClose(t *testing.T) {
	h := apitest.Start(t, apitest.NoRateLimits)
	a, b := h.NewUser("Alpha"), h.NewUser("Beta")
	befriend(t, h, a, b)
	res := h.Get("/users/"+string(b.ID)+"/dm", a.Token)
	if res.Status != http.StatusOK {
		t.Fatalf("open dm = %d %s", res.Status, res.Body)
	}
	dm := res.Map(t)["_id"].(string)
	ev := h.Listen(event.Of(chat.ID(dm)))
	res = h.Do(apitest.Request{Method: http.MethodDelete, Path: "/channels/" + dm, Session: a.Token})
	if res.Status != http.StatusNoContent {
		t.Fatalf("close dm = %d %s", res.Status, res.Body)
	}
	ev.Wait(chat.EvChannelUpdate, func(e apitest.Event) bool { return e.Body["data"].(map[string]any)["active"] == false })
	saved := h.Get("/users/"+string(a.ID)+"/dm", a.Token).Map(t)["_id"].(string)
	res = h.Do(apitest.Request{Method: http.MethodDelete, Path: "/channels/" + saved, Session: a.Token})
	if res.Status != http.StatusOK || res.Map(t)["type"] != "NoEffect" {
		t.Errorf("close saved messages = %d %s, want 200 NoEffect", res.Status, res.Body)
	}
}
