package api_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
	"ermine/internal/perm"
)

func TestCreateServer(t *testing.T) {
	e := newEnv(t, withLimits(func(l *config.Limits) { l.NewUser.Servers = 2 }))
	alice := e.h.NewUser("alice")
	ev := e.h.Listen(event.Private(alice.ID))

	res := e.call(t, alice, http.MethodPost, "/servers/create",
		map[string]any{"name": "Den", "description": "a place", "nsfw": true}, http.StatusOK)
	apitest.CheckSchema(t, "CreateServerLegacyResponse", res.Body)
	var out chat.ServerCreated
	res.JSON(t, &out)
	s := out.Server
	if s.Owner != alice.ID || s.Name != "Den" || *s.Description != "a place" || !s.NSFW ||
		s.DefaultPermissions != int64(perm.DefaultServer) || len(out.Channels) != 1 {
		t.Fatalf("created %s", res.Body)
	}
	general := out.Channels[0]
	if general.Name != "General" || general.ChannelType != chat.ChannelText || general.Server != s.ID ||
		!slices.Equal(s.Channels, []chat.ID{general.ID}) {
		t.Fatalf("general channel %+v of %+v", general, s)
	}
	got := ev.Wait(chat.EvServerCreate, nil)
	if got.Body["id"] != string(s.ID) || len(got.Body["channels"].([]any)) != 1 || got.Body["emojis"] == nil {
		t.Errorf("ServerCreate = %s", got.Raw)
	}
	m := e.member(t, string(s.ID), alice)
	if m.JoinedAt.IsZero() {
		t.Errorf("owner member %+v", m)
	}

	t.Run("limit", func(t *testing.T) {
		e.server(t, alice, "second")
		e.fail(t, alice, http.MethodPost, "/servers/create", map[string]any{"name": "third"},
			http.StatusBadRequest, "TooManyServers", 2)
	})
	t.Run("bad input", func(t *testing.T) {
		bob := e.h.NewUser("bob")
		for _, body := range []any{map[string]any{"name": ""}, map[string]any{"name": string(make([]byte, 33))},
			map[string]any{}, map[string]any{"name": 5}} {
			e.fail(t, bob, http.MethodPost, "/servers/create", body, http.StatusUnprocessableEntity, "FailedValidation")
		}
		e.fail(t, bob, http.MethodPost, "/servers/create", "{", http.StatusBadRequest, "FailedValidation")
	})
	t.Run("unauthenticated", func(t *testing.T) {
		e.fail(t, nil, http.MethodPost, "/servers/create", map[string]any{"name": "x"}, http.StatusUnauthorized, "NotAuthenticated")
	})
	t.Run("bot", func(t *testing.T) {
		b := e.bot(t, alice, "robot")
		res := e.asBot(t, b.Token, http.MethodPost, "/servers/create", map[string]any{"name": "x"})
		if res.Status != http.StatusBadRequest || res.Map(t)["type"] != "IsBot" {
			t.Fatalf("bot create = %d %s", res.Status, res.Body)
		}
	})
}

func TestFetchServer(t *testing.T) {
	e := newEnv(t)
	alice, bob, eve := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("eve")
	sid, general := e.server(t, alice, "Den")
	hidden := e.channel(t, alice, sid, "hidden")
	e.call(t, alice, http.MethodPut, "/channels/"+hidden+"/permissions/default", override(0, uint64(perm.ViewChannel)), http.StatusOK)
	e.join(t, sid, bob)

	res := e.call(t, bob, http.MethodGet, "/servers/"+sid, nil, http.StatusOK)
	apitest.CheckSchema(t, "Server", res.Body)

	var with struct {
		ID       chat.ID        `json:"_id"`
		Channels []chat.Channel `json:"channels"`
	}
	e.call(t, bob, http.MethodGet, "/servers/"+sid+"?include_channels=true", nil, http.StatusOK).JSON(t, &with)
	if with.ID != chat.ID(sid) || len(with.Channels) != 1 || with.Channels[0].ID != chat.ID(general) {
		t.Errorf("bob sees channels %+v, want only General", with.Channels)
	}
	e.call(t, alice, http.MethodGet, "/servers/"+sid+"?include_channels=true", nil, http.StatusOK).JSON(t, &with)
	if len(with.Channels) != 2 {
		t.Errorf("owner sees %d channels, want 2", len(with.Channels))
	}

	e.fail(t, eve, http.MethodGet, "/servers/"+sid, nil, http.StatusNotFound, "NotFound")
	e.fail(t, eve, http.MethodGet, "/servers/"+string(chat.NewID()), nil, http.StatusNotFound, "NotFound")
	e.fail(t, bob, http.MethodGet, "/servers/"+sid+"?include_channels=maybe", nil, http.StatusUnprocessableEntity, "FailedValidation")
}

func TestEditServer(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.h.NewUser("alice"), e.h.NewUser("bob")
	sid, general := e.server(t, alice, "Den")
	path := "/servers/" + sid
	e.join(t, sid, bob)
	ev := e.h.Listen(event.Of(chat.ID(sid)))

	t.Run("name and description", func(t *testing.T) {
		res := e.call(t, alice, http.MethodPatch, path, map[string]any{"name": "Lair", "description": "deep"}, http.StatusOK)
		apitest.CheckSchema(t, "Server", res.Body)
		got := ev.Wait(chat.EvServerUpdate, nil)
		data := got.Body["data"].(map[string]any)
		if data["name"] != "Lair" || data["description"] != "deep" || len(got.Body["clear"].([]any)) != 0 {
			t.Errorf("ServerUpdate = %s", got.Raw)
		}
		e.call(t, alice, http.MethodPatch, path, map[string]any{"remove": []string{"Description"}}, http.StatusOK)
		got = ev.Wait(chat.EvServerUpdate, nil)
		if clear := got.Body["clear"].([]any); len(clear) != 1 || clear[0] != "Description" {
			t.Errorf("ServerUpdate = %s", got.Raw)
		}
		if s := e.fetchServer(t, bob, sid); s.Name != "Lair" || s.Description != nil {
			t.Errorf("server after edit %+v", s)
		}
	})
	t.Run("icon and banner", func(t *testing.T) {
		icon := e.upload(t, alice, chat.TagIcons, "image/png")
		banner := e.upload(t, alice, chat.TagBanners, "image/png")
		var s chat.Server
		e.call(t, alice, http.MethodPatch, path, map[string]any{"icon": icon, "banner": banner}, http.StatusOK).JSON(t, &s)
		if s.Icon == nil || s.Icon.ID != icon || s.Banner == nil || s.Banner.ID != banner {
			t.Fatalf("icon %+v banner %+v", s.Icon, s.Banner)
		}
		got := ev.Wait(chat.EvServerUpdate, nil)
		if got.Body["data"].(map[string]any)["icon"].(map[string]any)["_id"] != icon {
			t.Errorf("ServerUpdate = %s", got.Raw)
		}
		// A used upload, one of another tag and an unknown id are refused.
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"icon": icon}, http.StatusNotFound, "NotFound")
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"icon": e.upload(t, alice, chat.TagAvatars, "image/png")},
			http.StatusNotFound, "NotFound")
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"banner": "nope"}, http.StatusNotFound, "NotFound")
		var after chat.Server
		e.call(t, alice, http.MethodPatch, path, map[string]any{"remove": []string{"Icon", "Banner"}}, http.StatusOK).JSON(t, &after)
		if after.Icon != nil || after.Banner != nil {
			t.Errorf("after remove icon %+v banner %+v", after.Icon, after.Banner)
		}
		if f, err := e.h.Server.Store.FetchFile(t.Context(), icon); err != nil || f.Deleted == nil || !*f.Deleted {
			t.Errorf("removed icon record %+v, %v: want it marked deleted", f, err)
		}
		got = ev.Wait(chat.EvServerUpdate, nil)
		if clear := got.Body["clear"].([]any); len(clear) != 2 {
			t.Errorf("ServerUpdate = %s", got.Raw)
		}
	})
	t.Run("categories and system messages", func(t *testing.T) {
		other := e.channel(t, alice, sid, "other")
		cats := []map[string]any{{"id": "c1", "title": "Main", "channels": []string{general, string(chat.NewID())}},
			{"id": "c2", "title": "More", "channels": []string{other}}}
		var s chat.Server
		e.call(t, alice, http.MethodPatch, path, map[string]any{"categories": cats,
			"system_messages": map[string]any{"user_joined": general, "user_left": other}}, http.StatusOK).JSON(t, &s)
		if len(s.Categories) != 2 || !slices.Equal(s.Categories[0].Channels, []chat.ID{chat.ID(general)}) {
			t.Errorf("categories %+v: the foreign channel should be dropped", s.Categories)
		}
		if s.SystemMessages == nil || *s.SystemMessages.UserJoined != chat.ID(general) {
			t.Errorf("system messages %+v", s.SystemMessages)
		}
		dup := []map[string]any{{"id": "a", "title": "A", "channels": []string{general}},
			{"id": "b", "title": "B", "channels": []string{general}}}
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"categories": dup}, http.StatusBadRequest, "InvalidOperation")
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"system_messages": map[string]any{"user_kicked": string(chat.NewID())}},
			http.StatusNotFound, "NotFound")
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"categories": []map[string]any{{"id": "", "title": "x", "channels": []string{}}}},
			http.StatusUnprocessableEntity, "FailedValidation")
	})
	t.Run("permissions", func(t *testing.T) {
		e.fail(t, bob, http.MethodPatch, path, map[string]any{"name": "mine"}, http.StatusForbidden, "MissingPermission", "ManageServer")
		e.fail(t, bob, http.MethodPatch, path, map[string]any{"categories": []any{}}, http.StatusForbidden, "MissingPermission", "ManageChannel")
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"discoverable": true}, http.StatusForbidden, "NotPrivileged")
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"flags": 1}, http.StatusForbidden, "NotPrivileged")
		e.fail(t, alice, http.MethodPatch, path, map[string]any{"remove": []string{"Name"}}, http.StatusUnprocessableEntity, "FailedValidation")
		e.fail(t, e.h.NewUser("eve"), http.MethodPatch, path, map[string]any{"name": "x"}, http.StatusNotFound, "NotFound")
		channels := e.role(t, alice, sid, "channels", uint64(perm.ManageChannel))
		carol := e.h.NewUser("carol")
		e.join(t, sid, carol, channels)
		e.call(t, carol, http.MethodPatch, path, map[string]any{"categories": []any{}}, http.StatusOK)
	})
}

func TestDeleteServer(t *testing.T) {
	e := newEnv(t)
	alice, bob, carol := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol")
	sid, general := e.server(t, alice, "Den")
	e.call(t, alice, http.MethodPatch, "/servers/"+sid, map[string]any{"system_messages": map[string]any{"user_left": general}}, http.StatusOK)
	e.join(t, sid, bob)
	e.join(t, sid, carol)
	ev := e.h.Listen(event.Of(chat.ID(sid)), event.Of(chat.ID(general)))

	e.call(t, bob, http.MethodDelete, "/servers/"+sid, nil, http.StatusNoContent)
	got := ev.Wait(chat.EvServerMemberLeave, nil)
	if got.Body["user"] != string(bob.ID) || got.Body["reason"] != "Leave" || got.Topic != sid {
		t.Errorf("ServerMemberLeave = %s", got.Raw)
	}
	msg := ev.Wait(chat.EvMessage, nil)
	sys := msg.Body["system"].(map[string]any)
	if msg.Body["author"] != string(chat.SystemID) || sys["type"] != "user_left" || sys["id"] != string(bob.ID) {
		t.Errorf("system message = %s", msg.Raw)
	}
	e.fail(t, bob, http.MethodGet, "/servers/"+sid, nil, http.StatusNotFound, "NotFound")

	e.call(t, carol, http.MethodDelete, "/servers/"+sid+"?leave_silently=true", nil, http.StatusNoContent)
	ev.Wait(chat.EvServerMemberLeave, func(ev apitest.Event) bool { return ev.Body["user"] == string(carol.ID) })
	ev.None(200 * time.Millisecond)

	e.fail(t, bob, http.MethodDelete, "/servers/"+sid, nil, http.StatusNotFound, "NotFound")
	icon := e.upload(t, alice, chat.TagIcons, "image/png")
	e.call(t, alice, http.MethodPatch, "/servers/"+sid, map[string]any{"icon": icon}, http.StatusOK)
	e.call(t, alice, http.MethodDelete, "/servers/"+sid, nil, http.StatusNoContent)
	got = ev.Wait(chat.EvServerDelete, nil)
	// The server's uploads are released with it.
	if f, err := e.h.Server.Store.FetchFile(t.Context(), icon); err != nil || f.Deleted == nil || !*f.Deleted {
		t.Errorf("icon after server deletion = %+v, %v; want deleted", f, err)
	}
	if got.Body["id"] != sid {
		t.Errorf("ServerDelete = %s", got.Raw)
	}
	e.fail(t, alice, http.MethodGet, "/servers/"+sid, nil, http.StatusNotFound, "NotFound")
	e.fail(t, alice, http.MethodGet, "/channels/"+general, nil, http.StatusNotFound, "NotFound")
}

func TestAckServer(t *testing.T) {
	e := newEnv(t)
	alice, eve := e.h.NewUser("alice"), e.h.NewUser("eve")
	sid, general := e.server(t, alice, "Den")
	e.call(t, alice, http.MethodPut, "/servers/"+sid+"/ack", nil, http.StatusNoContent)
	unreads, err := e.h.Server.Store.FetchUnreads(t.Context(), alice.ID)
	if err != nil || len(unreads) != 1 || unreads[0].ID.Channel != chat.ID(general) || unreads[0].LastID == nil {
		t.Errorf("unreads after ack = %+v, %v", unreads, err)
	}
	e.fail(t, eve, http.MethodPut, "/servers/"+sid+"/ack", nil, http.StatusNotFound, "NotFound")
}

func TestCreateServerChannel(t *testing.T) {
	e := newEnv(t, withLimits(func(l *config.Limits) { l.ServerChannels = 3 }))
	alice, bob := e.h.NewUser("alice"), e.h.NewUser("bob")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	path := "/servers/" + sid + "/channels"
	ev := e.h.Listen(event.Of(chat.ID(sid)))

	res := e.call(t, alice, http.MethodPost, path, map[string]any{"name": "news", "description": "d", "nsfw": true}, http.StatusOK)
	apitest.CheckSchema(t, "Channel", res.Body)
	var ch chat.Channel
	res.JSON(t, &ch)
	if ch.ChannelType != chat.ChannelText || ch.Name != "news" || !ch.NSFW || ch.Server != chat.ID(sid) {
		t.Errorf("channel %s", res.Body)
	}
	up := ev.Wait(chat.EvServerUpdate, nil)
	if ids := up.Body["data"].(map[string]any)["channels"].([]any); len(ids) != 2 || ids[0] != general || ids[1] != string(ch.ID) {
		t.Errorf("ServerUpdate = %s", up.Raw)
	}
	created := ev.Wait(chat.EvChannelCreate, nil)
	if created.Body["_id"] != string(ch.ID) || created.Body["name"] != "news" {
		t.Errorf("ChannelCreate = %s", created.Raw)
	}

	res = e.call(t, alice, http.MethodPost, path, map[string]any{"type": "Voice", "name": "talk"}, http.StatusOK)
	apitest.CheckSchema(t, "Channel", res.Body)
	if m := res.Map(t); m["channel_type"] != chat.ChannelText || m["voice"] == nil {
		t.Errorf("voice channel %s", res.Body)
	}
	e.fail(t, alice, http.MethodPost, path, map[string]any{"name": "fourth"}, http.StatusBadRequest, "TooManyChannels", 3)
	e.fail(t, bob, http.MethodPost, path, map[string]any{"name": "mine"}, http.StatusForbidden, "MissingPermission", "ManageChannel")
	e.fail(t, alice, http.MethodPost, path, map[string]any{"type": "Stage", "name": "x"}, http.StatusUnprocessableEntity, "FailedValidation")
	e.fail(t, alice, http.MethodPost, path, map[string]any{"name": ""}, http.StatusUnprocessableEntity, "FailedValidation")
	e.fail(t, e.h.NewUser("eve"), http.MethodPost, path, map[string]any{"name": "x"}, http.StatusNotFound, "NotFound")
}
