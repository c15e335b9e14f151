package api_test

import (
	"net/http"
	"net/url"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
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
