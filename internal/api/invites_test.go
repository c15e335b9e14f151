package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
	"ermine/internal/perm"
)

const inviteAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz"

func TestCreateInvite(t *testing.T) {
	e := newEnv(t)
	alice, bob, eve := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("eve")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	path := "/channels/" + general + "/invites"

	res := e.call(t, bob, http.MethodPost, path, nil, http.StatusOK)
	apitest.CheckSchema(t, "Invite", res.Body)
	var inv chat.Invite
	res.JSON(t, &inv)
	if inv.Type != "Server" || inv.Server != chat.ID(sid) || inv.Channel != chat.ID(general) || inv.Creator != bob.ID {
		t.Errorf("invite %s", res.Body)
	}
	if len(inv.Code) != 8 || strings.Trim(inv.Code, inviteAlphabet) != "" {
		t.Errorf("code %q is not 8 characters of the invite alphabet", inv.Code)
	}
	if other := e.call(t, bob, http.MethodPost, path, nil, http.StatusOK).Map(t)["_id"]; other == inv.Code {
		t.Errorf("two invites share code %s", inv.Code)
	}

	e.call(t, alice, http.MethodPut, "/channels/"+general+"/permissions/default", override(0, uint64(perm.InviteOthers)), http.StatusOK)
	e.fail(t, bob, http.MethodPost, path, nil, http.StatusForbidden, "MissingPermission", "InviteOthers")
	e.fail(t, eve, http.MethodPost, path, nil, http.StatusNotFound, "NotFound")
	e.fail(t, eve, http.MethodPost, "/channels/"+string(chat.NewID())+"/invites", nil, http.StatusNotFound, "NotFound")
	b := e.bot(t, alice, "robot")
	if res := e.asBot(t, b.Token, http.MethodPost, path, nil); res.Status != http.StatusBadRequest || res.Map(t)["type"] != "IsBot" {
		t.Errorf("bot invite = %d %s", res.Status, res.Body)
	}

	t.Run("group", func(t *testing.T) {
		group := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: "pals", Owner: alice.ID,
			Recipients: []chat.ID{alice.ID, bob.ID}}
		if err := e.h.Server.Store.InsertChannel(context.Background(), group); err != nil {
			t.Fatal(err)
		}
		res := e.call(t, bob, http.MethodPost, "/channels/"+string(group.ID)+"/invites", nil, http.StatusOK)
		apitest.CheckSchema(t, "Invite", res.Body)
		code := res.Map(t)["_id"].(string)
		res = e.call(t, nil, http.MethodGet, "/invites/"+code, nil, http.StatusOK)
		apitest.CheckSchema(t, "InviteResponse", res.Body)
		if p := res.Map(t); p["type"] != "Group" || p["channel_name"] != "pals" || p["user_name"] != "bob" {
			t.Errorf("group preview %s", res.Body)
		}
		e.fail(t, eve, http.MethodPost, "/channels/"+string(group.ID)+"/invites", nil, http.StatusNotFound, "NotFound")
		// The group owner may delete a member's invite; eve may not.
		e.fail(t, eve, http.MethodDelete, "/invites/"+code, nil, http.StatusNotFound, "NotFound")
		e.call(t, alice, http.MethodDelete, "/invites/"+code, nil, http.StatusNoContent)
	})
	t.Run("saved messages", func(t *testing.T) {
		saved := &chat.Channel{ChannelType: chat.ChannelSavedMessages, ID: chat.NewID(), User: eve.ID}
		if err := e.h.Server.Store.InsertChannel(context.Background(), saved); err != nil {
			t.Fatal(err)
		}
		e.fail(t, eve, http.MethodPost, "/channels/"+string(saved.ID)+"/invites", nil, http.StatusBadRequest, "InvalidOperation")
	})
}

func TestInvitePreviewAndJoin(t *testing.T) {
	e := newEnv(t, withLimits(func(l *config.Limits) { l.NewUser.Servers = 2 }))
	alice, bob, carol := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol")
	sid, general := e.server(t, alice, "Den")
	hidden := e.channel(t, alice, sid, "staff")
	e.call(t, alice, http.MethodPut, "/channels/"+hidden+"/permissions/default", override(0, uint64(perm.ViewChannel)), http.StatusOK)
	e.call(t, alice, http.MethodPatch, "/servers/"+sid, map[string]any{"system_messages": map[string]any{"user_joined": general}}, http.StatusOK)
	code := e.call(t, alice, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK).Map(t)["_id"].(string)

	res := e.call(t, nil, http.MethodGet, "/invites/"+code, nil, http.StatusOK)
	apitest.CheckSchema(t, "InviteResponse", res.Body)
	p := res.Map(t)
	if p["type"] != "Server" || p["code"] != code || p["server_id"] != sid || p["server_name"] != "Den" ||
		p["channel_id"] != general || p["channel_name"] != "General" || p["user_name"] != "alice" || p["member_count"] != float64(1) {
		t.Errorf("preview %s", res.Body)
	}
	e.fail(t, nil, http.MethodGet, "/invites/nothere1", nil, http.StatusNotFound, "NotFound")

	ev := e.h.Listen(event.Of(chat.ID(sid)), event.Private(bob.ID), event.Of(chat.ID(general)))
	res = e.call(t, bob, http.MethodPost, "/invites/"+code, nil, http.StatusOK)
	apitest.CheckSchema(t, "InviteJoinResponse", res.Body)
	var joined struct {
		Type     string         `json:"type"`
		Server   chat.Server    `json:"server"`
		Channels []chat.Channel `json:"channels"`
	}
	res.JSON(t, &joined)
	if joined.Type != "Server" || joined.Server.ID != chat.ID(sid) || len(joined.Channels) != 1 || joined.Channels[0].ID != chat.ID(general) {
		t.Errorf("join %s", res.Body)
	}
	// The joiner hears of the server first, then everyone (the joiner on
	// their private topic too) of the new member.
	got := ev.Wait(chat.EvServerCreate, nil)
	if got.Topic != event.Private(bob.ID) || len(got.Body["channels"].([]any)) != 1 || got.Body["emojis"] == nil {
		t.Errorf("ServerCreate = %s, want only the channel bob can see", got.Raw)
	}
	got = ev.Wait(chat.EvServerMemberJoin, func(e apitest.Event) bool { return e.Topic == sid })
	if got.Body["user"] != string(bob.ID) || got.Body["member"].(map[string]any)["joined_at"] == nil {
		t.Errorf("ServerMemberJoin = %s", got.Raw)
	}
	msg := ev.Wait(chat.EvMessage, nil)
	if sys := msg.Body["system"].(map[string]any); sys["type"] != "user_joined" || sys["id"] != string(bob.ID) {
		t.Errorf("system message = %s", msg.Raw)
	}
	if n := e.call(t, nil, http.MethodGet, "/invites/"+code, nil, http.StatusOK).Map(t)["member_count"]; n != float64(2) {
		t.Errorf("member_count after join = %v", n)
	}

	e.fail(t, bob, http.MethodPost, "/invites/"+code, nil, http.StatusConflict, "AlreadyInServer")
	e.fail(t, nil, http.MethodPost, "/invites/"+code, nil, http.StatusUnauthorized, "NotAuthenticated")
	e.fail(t, bob, http.MethodPost, "/invites/nothere1", nil, http.StatusNotFound, "NotFound")
	b := e.bot(t, alice, "robot")
	if res := e.asBot(t, b.Token, http.MethodPost, "/invites/"+code, nil); res.Status != http.StatusBadRequest || res.Map(t)["type"] != "IsBot" {
		t.Errorf("bot join = %d %s", res.Status, res.Body)
	}

	t.Run("server limit", func(t *testing.T) {
		e.server(t, carol, "one")
		e.server(t, carol, "two")
		e.fail(t, carol, http.MethodPost, "/invites/"+code, nil, http.StatusBadRequest, "TooManyServers", 2)
	})
	t.Run("discoverable server id", func(t *testing.T) {
		s, err := e.h.Server.Store.FetchServer(context.Background(), chat.ID(sid))
		if err != nil {
			t.Fatal(err)
		}
		e.fail(t, nil, http.MethodGet, "/invites/"+sid, nil, http.StatusNotFound, "NotFound")
		s.Discoverable = true
		if err := e.h.Server.Store.UpdateServer(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if p := e.call(t, nil, http.MethodGet, "/invites/"+sid, nil, http.StatusOK).Map(t); p["channel_id"] != general || p["user_name"] != "alice" {
			t.Errorf("preview by server id %v", p)
		}
		e.call(t, e.h.NewUser("dave"), http.MethodPost, "/invites/"+sid, nil, http.StatusOK)
	})
}

func TestDeleteAndListInvites(t *testing.T) {
	e := newEnv(t)
	alice, bob, carol := e.h.NewUser("alice"), e.h.NewUser("bob"), e.h.NewUser("carol")
	sid, general := e.server(t, alice, "Den")
	e.join(t, sid, bob)
	e.join(t, sid, carol)
	mine := e.call(t, bob, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK).Map(t)["_id"].(string)
	theirs := e.call(t, carol, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK).Map(t)["_id"].(string)

	res := e.call(t, alice, http.MethodGet, "/servers/"+sid+"/invites", nil, http.StatusOK)
	var list []map[string]any
	res.JSON(t, &list)
	if len(list) != 2 {
		t.Fatalf("invites %s", res.Body)
	}
	for _, inv := range list {
		if inv["type"] != "Server" || inv["server"] != sid {
			t.Errorf("invite %v", inv)
		}
	}
	e.fail(t, bob, http.MethodGet, "/servers/"+sid+"/invites", nil, http.StatusForbidden, "MissingPermission", "ManageServer")

	e.fail(t, bob, http.MethodDelete, "/invites/"+theirs, nil, http.StatusForbidden, "MissingPermission", "ManageServer")
	e.call(t, bob, http.MethodDelete, "/invites/"+mine, nil, http.StatusNoContent)
	e.call(t, alice, http.MethodDelete, "/invites/"+theirs, nil, http.StatusNoContent)
	e.fail(t, alice, http.MethodDelete, "/invites/"+theirs, nil, http.StatusNotFound, "NotFound")
	e.fail(t, nil, http.MethodGet, "/invites/"+mine, nil, http.StatusNotFound, "NotFound")
	if e.call(t, alice, http.MethodGet, "/servers/"+sid+"/invites", nil, http.StatusOK).JSON(t, &list); len(list) != 0 {
		t.Errorf("invites left %v", list)
	}
}
