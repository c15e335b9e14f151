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

func TestEmoji(t *testing.T) {
	e := newEnv(t, withLimits(func(l *config.Limits) { l.ServerEmoji = 2 }))
	alice, bob, carol, eve := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol"), e.h.NewUser("eve")
	sid, _ := e.server(t, alice, "Den")
	artists := e.role(t, alice, sid, "artists", uint64(perm.ManageCustomisation))
	e.join(t, sid, bob, artists)
	e.join(t, sid, carol)
	ev := e.h.Listen(event.Of(chat.ID(sid)))
	body := func(name string) map[string]any {
		return map[string]any{"name": name, "parent": map[string]any{"type": "Server", "id": sid}}
	}

	gif := e.upload(t, bob, chat.TagEmojis, "image/gif")
	res := e.call(t, bob, http.MethodPut, "/custom/emoji/"+gif, body("party_parrot"), http.StatusOK)
	apitest.CheckSchema(t, "Emoji", res.Body)
	var em chat.Emoji
	res.JSON(t, &em)
	if em.ID != chat.ID(gif) || em.Name != "party_parrot" || !em.Animated || em.CreatorID != bob.ID ||
		em.Parent.Type != "Server" || em.Parent.ID != chat.ID(sid) {
		t.Errorf("emoji %s", res.Body)
	}
	got := ev.Wait(chat.EvEmojiCreate, nil)
	if got.Body["_id"] != gif || got.Body["name"] != "party_parrot" || got.Body["animated"] != true {
		t.Errorf("EmojiCreate = %s", got.Raw)
	}
	png := e.upload(t, alice, chat.TagEmojis, "image/png")
	res = e.call(t, alice, http.MethodPut, "/custom/emoji/"+png, map[string]any{"name": "wave", "nsfw": true,
		"parent": map[string]any{"type": "Server", "id": sid}}, http.StatusOK)
	if m := res.Map(t); m["animated"] != nil || m["nsfw"] != true {
		t.Errorf("emoji %s", res.Body)
	}
	ev.Wait(chat.EvEmojiCreate, nil)

	t.Run("list and fetch", func(t *testing.T) {
		for _, path := range []string{"/servers/" + sid + "/emojis", "/server/" + sid + "/emojis"} {
			var list []chat.Emoji
			e.call(t, carol, http.MethodGet, path, nil, http.StatusOK).JSON(t, &list)
			if len(list) != 2 {
				t.Errorf("%s = %+v", path, list)
			}
			e.fail(t, eve, http.MethodGet, path, nil, http.StatusNotFound, "NotFound")
		}
		res := e.call(t, nil, http.MethodGet, "/custom/emoji/"+gif, nil, http.StatusOK)
		apitest.CheckSchema(t, "Emoji", res.Body)
		e.fail(t, nil, http.MethodGet, "/custom/emoji/"+string(chat.NewID()), nil, http.StatusNotFound, "NotFound")
	})
	t.Run("refusals", func(t *testing.T) {
		fresh := e.upload(t, bob, chat.TagEmojis, "image/png")
		e.fail(t, bob, http.MethodPut, "/custom/emoji/"+fresh, body("third"), http.StatusBadRequest, "TooManyEmoji", 2)
		e.fail(t, carol, http.MethodPut, "/custom/emoji/"+fresh, body("x"), http.StatusForbidden, "MissingPermission", "ManageCustomisation")
		e.fail(t, eve, http.MethodPut, "/custom/emoji/"+fresh, body("x"), http.StatusNotFound, "NotFound")
		e.fail(t, bob, http.MethodPut, "/custom/emoji/"+fresh, map[string]any{"name": "x", "parent": map[string]any{"type": "Detached"}},
			http.StatusBadRequest, "InvalidOperation")
		for _, bad := range []map[string]any{body("Caps"), body(""), body("has space"), {"name": "x"},
			{"name": "x", "parent": map[string]any{"type": "Elsewhere"}}} {
			e.fail(t, bob, http.MethodPut, "/custom/emoji/"+fresh, bad, http.StatusUnprocessableEntity, "FailedValidation")
		}
	})
	t.Run("delete", func(t *testing.T) {
		e.fail(t, carol, http.MethodDelete, "/custom/emoji/"+png, nil, http.StatusForbidden, "MissingPermission", "ManageCustomisation")
		e.call(t, bob, http.MethodDelete, "/custom/emoji/"+png, nil, http.StatusNoContent)
		if got := ev.Wait(chat.EvEmojiDelete, nil); got.Body["id"] != png {
			t.Errorf("EmojiDelete = %s", got.Raw)
		}
		e.fail(t, bob, http.MethodDelete, "/custom/emoji/"+png, nil, http.StatusNotFound, "NotFound")
		// Uploads already used, of another tag or unknown are refused.
		for _, id := range []string{gif, e.upload(t, bob, chat.TagIcons, "image/png"), string(chat.NewID())} {
			e.fail(t, bob, http.MethodPut, "/custom/emoji/"+id, body("again"), http.StatusNotFound, "NotFound")
		}
	})
	t.Run("server deleted", func(t *testing.T) {
		e.call(t, alice, http.MethodDelete, "/servers/"+sid, nil, http.StatusNoContent)
		var left chat.Emoji
		e.call(t, nil, http.MethodGet, "/custom/emoji/"+gif, nil, http.StatusOK).JSON(t, &left)
		if left.Parent.Type != "Detached" || left.Parent.ID != "" {
			t.Errorf("emoji of a deleted server %+v, want detached", left)
		}
		e.fail(t, alice, http.MethodDelete, "/custom/emoji/"+gif, nil, http.StatusNotFound, "NotFound")
		e.call(t, bob, http.MethodDelete, "/custom/emoji/"+gif, nil, http.StatusNoContent)
	})
}
