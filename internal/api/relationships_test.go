package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
)

// TestRelationshipTransitions walks every row of the transition table of
// behaviour.md §2.1: caller A acts on B from a stored starting state; the
// test checks the answer, both stored sides and the UserRelationship
// event each side receives (or that none is sent).
func TestRelationshipTransitions(t *testing.T) {
	h := apitest.Start(t)
	const (
		none         = chat.RelationNone
		friend       = chat.RelationFriend
		outgoing     = chat.RelationOutgoing
		incoming     = chat.RelationIncoming
		blocked      = chat.RelationBlocked
		blockedOther = chat.RelationBlockedOther
	)
	cases := []struct {
		name           string
		method, route  string // route is "friend" or "block"
		ab, ba         chat.RelationshipStatus
		status         int
		errType        string
		wantAB, wantBA chat.RelationshipStatus
	}{
		{"add: none sends a request", "PUT", "friend", none, none, 200, "", outgoing, incoming},
		{"add: incoming accepts", "PUT", "friend", incoming, outgoing, 200, "", friend, friend},
		{"add: already friends", "PUT", "friend", friend, friend, 409, "AlreadyFriends", friend, friend},
		{"add: already sent", "PUT", "friend", outgoing, incoming, 409, "AlreadySentRequest", outgoing, incoming},
		{"add: blocked", "PUT", "friend", blocked, blockedOther, 409, "Blocked", blocked, blockedOther},
		{"add: blocked by other", "PUT", "friend", blockedOther, blocked, 403, "BlockedByOther", blockedOther, blocked},
		{"remove: friend", "DELETE", "friend", friend, friend, 200, "", none, none},
		{"remove: cancel outgoing", "DELETE", "friend", outgoing, incoming, 200, "", none, none},
		{"remove: decline incoming", "DELETE", "friend", incoming, outgoing, 200, "", none, none},
		{"remove: none", "DELETE", "friend", none, none, 200, "NoEffect", none, none},
		{"remove: blocked", "DELETE", "friend", blocked, blockedOther, 200, "NoEffect", blocked, blockedOther},
		{"block: none", "PUT", "block", none, none, 200, "", blocked, blockedOther},
		{"block: friend", "PUT", "block", friend, friend, 200, "", blocked, blockedOther},
		{"block: incoming", "PUT", "block", incoming, outgoing, 200, "", blocked, blockedOther},
		{"block: outgoing", "PUT", "block", outgoing, incoming, 200, "", blocked, blockedOther},
		{"block: blocked other", "PUT", "block", blockedOther, blocked, 200, "", blocked, blocked},
		{"block: already blocked", "PUT", "block", blocked, blockedOther, 200, "NoEffect", blocked, blockedOther},
		{"unblock: both blocked", "DELETE", "block", blocked, blocked, 200, "", blockedOther, blocked},
		{"unblock: only mine", "DELETE", "block", blocked, blockedOther, 200, "", none, none},
		{"unblock: not blocked", "DELETE", "block", none, none, 200, "NoEffect", none, none},
		{"unblock: friend", "DELETE", "block", friend, friend, 200, "NoEffect", friend, friend},
		{"unblock: blocked by other", "DELETE", "block", blockedOther, blocked, 200, "NoEffect", blockedOther, blocked},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := h.NewUser("alpha"), h.NewUser("beta")
			setRelation(t, h, a.ID, b.ID, tc.ab, tc.ba)
			ev := h.Listen(event.Private(a.ID), event.Private(b.ID))
			res := h.Do(apitest.Request{Method: tc.method, Path: "/users/" + string(b.ID) + "/" + tc.route, Session: a.Token, Body: "{}"})
			if tc.errType != "" {
				wantError(t, res, tc.status, tc.errType)
				ev.None(150 * time.Millisecond)
			} else {
				apitest.CheckSchema(t, "User", res.Body)
				u := wantOK(t, res)
				if u["_id"] != string(b.ID) || u["relationship"] != string(tc.wantAB) {
					t.Errorf("response user = %v, want B with relationship %s", u, tc.wantAB)
				}
				checkRelationshipEvent(t, ev, a.ID, b.ID, tc.wantAB)
				checkRelationshipEvent(t, ev, b.ID, a.ID, tc.wantBA)
			}
			if got := relation(t, h, a.ID, b.ID); got != tc.wantAB {
				t.Errorf("A→B = %s, want %s", got, tc.wantAB)
			}
			if got := relation(t, h, b.ID, a.ID); got != tc.wantBA {
				t.Errorf("B→A = %s, want %s", got, tc.wantBA)
			}
		})
	}
}

// checkRelationshipEvent waits for the UserRelationship on receiver's
// private topic and checks it names the other user as the receiver sees
// them.
func checkRelationshipEvent(t *testing.T, ev *apitest.Events, receiver, other chat.ID, status chat.RelationshipStatus) {
	t.Helper()
	e := ev.Wait(chat.EvUserRelationship, func(e apitest.Event) bool { return e.Topic == event.Private(receiver) })
	u := e.Body["user"].(map[string]any)
	if e.Body["id"] != string(receiver) || e.Body["status"] != string(status) ||
		u["_id"] != string(other) || u["relationship"] != string(status) {
		t.Errorf("UserRelationship to %s = %s, want user %s with %s", receiver, e.Raw, other, status)
	}
	if _, ok := u["relations"]; ok {
		t.Errorf("event leaks the other user's relations: %s", e.Raw)
	}
	b, err := jsonOf(u)
	if err != nil {
		t.Fatal(err)
	}
	apitest.CheckSchema(t, "User", b)
}

func TestRelationshipRefusals(t *testing.T) {
	h := apitest.Start(t)

	t.Run("self", func(t *testing.T) {
		me := h.NewUser("narcissus")
		for _, r := range []apitest.Request{
			{Method: "PUT", Path: "/users/@me/friend"},
			{Method: "PUT", Path: "/users/" + string(me.ID) + "/friend"},
			{Method: "DELETE", Path: "/users/" + string(me.ID) + "/friend"},
			{Method: "PUT", Path: "/users/" + string(me.ID) + "/block"},
			{Method: "DELETE", Path: "/users/" + string(me.ID) + "/block"},
			{Method: "POST", Path: "/users/friend", Body: map[string]string{"username": "narcissus#" + me.Discriminator}},
		} {
			r.Session = me.Token
			wantError(t, h.Do(r), 200, "NoEffect")
		}
	})
	t.Run("bots", func(t *testing.T) {
		me, owner := h.NewUser("human"), h.NewUser("maker")
		bot, tok := newBotUser(t, h, owner, "clank")
		ev := h.Listen(event.Private(me.ID), event.Private(bot.ID))
		for _, r := range []apitest.Request{
			{Method: "PUT", Path: "/users/" + string(bot.ID) + "/friend", Session: me.Token},
			{Method: "DELETE", Path: "/users/" + string(bot.ID) + "/friend", Session: me.Token},
			{Method: "POST", Path: "/users/friend", Session: me.Token, Body: map[string]string{"username": "clank#0042"}},
			{Method: "PUT", Path: "/users/" + string(me.ID) + "/friend", Bot: tok},
			{Method: "POST", Path: "/users/friend", Bot: tok, Body: map[string]string{"username": "human#" + me.Discriminator}},
		} {
			wantError(t, h.Do(r), 400, "IsBot")
		}
		ev.None(150 * time.Millisecond)
	})
	t.Run("too many pending", func(t *testing.T) {
		me := h.NewUser("eager")
		// A new account may have 5 pending outgoing requests.
		for i := 0; i < 5; i++ {
			other := h.NewUser("target")
			setRelation(t, h, me.ID, other.ID, chat.RelationOutgoing, chat.RelationIncoming)
		}
		next := h.NewUser("sixth")
		m := wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/users/" + string(next.ID) + "/friend", Session: me.Token}),
			400, "TooManyPendingFriendRequests")
		if m["max"] != float64(5) {
			t.Errorf("max = %v", m["max"])
		}
		if got := relation(t, h, me.ID, next.ID); got != chat.RelationNone {
			t.Errorf("request stored anyway: %s", got)
		}
		// Accepting an incoming request is not a pending request.
		inc := h.NewUser("asker")
		setRelation(t, h, me.ID, inc.ID, chat.RelationIncoming, chat.RelationOutgoing)
		wantOK(t, h.Do(apitest.Request{Method: "PUT", Path: "/users/" + string(inc.ID) + "/friend", Session: me.Token}))
	})
	t.Run("unknown user", func(t *testing.T) {
		me := h.NewUser("lonely")
		for _, r := range []apitest.Request{
			{Method: "PUT", Path: "/users/" + string(chat.NewID()) + "/friend"},
			{Method: "PUT", Path: "/users/" + string(chat.NewID()) + "/block"},
			{Method: "POST", Path: "/users/friend", Body: map[string]string{"username": "nobody#0002"}},
		} {
			r.Session = me.Token
			wantError(t, h.Do(r), 404, "NotFound")
		}
	})
	t.Run("usernames are not ids", func(t *testing.T) {
		me, other := h.NewUser("picky"), h.NewUser("named")
		wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/users/named%23" + other.Discriminator + "/friend", Session: me.Token}),
			404, "NotFound")
		wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/users/named/friend", Session: me.Token}), 404, "NotFound")
	})
}

func TestSendFriendRequest(t *testing.T) {
	h := apitest.Start(t)
	me, other := h.NewUser("seeker"), h.NewUser("Sought")
	ev := h.Listen(event.Private(me.ID), event.Private(other.ID))
	res := h.Do(apitest.Request{Method: http.MethodPost, Path: "/users/friend", Session: me.Token,
		Body: map[string]string{"username": strings.ToUpper("sought") + "#" + other.Discriminator}})
	apitest.CheckSchema(t, "User", res.Body)
	u := wantOK(t, res)
	if u["_id"] != string(other.ID) || u["relationship"] != "Outgoing" {
		t.Errorf("user = %v", u)
	}
	checkRelationshipEvent(t, ev, me.ID, other.ID, chat.RelationOutgoing)
	checkRelationshipEvent(t, ev, other.ID, me.ID, chat.RelationIncoming)

	// The other side accepts by id.
	u = wantOK(t, h.Do(apitest.Request{Method: http.MethodPut, Path: "/users/" + string(me.ID) + "/friend", Session: other.Token}))
	if u["relationship"] != "Friend" {
		t.Errorf("accepted = %v", u)
	}
	checkRelationshipEvent(t, ev, other.ID, me.ID, chat.RelationFriend)
	checkRelationshipEvent(t, ev, me.ID, other.ID, chat.RelationFriend)

	for _, body := range []any{
		map[string]string{"username": "sought"},
		map[string]string{"username": "#" + other.Discriminator},
		map[string]string{"username": "sought#"},
	} {
		wantError(t, h.Do(apitest.Request{Method: http.MethodPost, Path: "/users/friend", Session: me.Token, Body: body}),
			400, "InvalidProperty")
	}
	wantError(t, h.Do(apitest.Request{Method: http.MethodPost, Path: "/users/friend", Session: me.Token, Body: map[string]any{}}),
		422, "FailedValidation")
}
