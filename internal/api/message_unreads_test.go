package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
)

func TestAckAndUnreads(t *testing.T) {
	f := newMsgFixture(t)
	owner, member, outsider := f.h.NewUser("owner"), f.h.NewUser("member"), f.h.NewUser("outsider")
	s, ch := f.server(owner)
	f.join(s, member)
	second := f.channel(s)

	res := f.h.Get("/sync/unreads", member.Token)
	if res.Status != 200 || string(res.Body) != "[]" {
		t.Fatalf("unreads = %d %s, want []", res.Status, res.Body)
	}

	mention := f.sendOK(owner, ch.ID, "hey <@"+string(member.ID)+">")
	later := f.sendOK(owner, ch.ID, "again <@"+string(member.ID)+">")
	private := f.h.Listen(event.Private(member.ID))

	// Acking the first message leaves the later mention unread.
	if res := f.do(member, http.MethodPut, "/channels/"+string(ch.ID)+"/ack/"+mention["_id"].(string), nil); res.Status != http.StatusNoContent {
		t.Fatalf("ack = %d %s", res.Status, res.Body)
	}
	got := private.Wait(chat.EvChannelAck, nil)
	if got.Body["id"] != string(ch.ID) || got.Body["user"] != string(member.ID) || got.Body["message_id"] != mention["_id"] {
		t.Errorf("ChannelAck = %s", got.Raw)
	}
	res = f.h.Get("/sync/unreads", member.Token)
	var list []chat.ChannelUnread
	res.JSON(t, &list)
	if len(list) != 1 || list[0].LastID == nil || string(*list[0].LastID) != mention["_id"] ||
		len(list[0].Mentions) != 1 || string(list[0].Mentions[0]) != later["_id"] {
		t.Errorf("unreads = %s", res.Body)
	}
	for _, u := range list {
		apitest.CheckSchema(t, "ChannelUnread", mustJSON(t, u))
	}

	wantError(t, f.do(outsider, http.MethodPut, "/channels/"+string(ch.ID)+"/ack/"+string(chat.NewID()), nil), 404, "NotFound")
	bot, token := f.bot(owner, "acker")
	f.join(s, bot)
	wantError(t, f.h.Do(apitest.Request{Method: http.MethodPut, Path: "/channels/" + string(ch.ID) + "/ack/" + string(chat.NewID()),
		Bot: token}), 400, "IsBot")
	private.None(50 * time.Millisecond)

	// Acking the server marks every channel read now.
	before := chat.NewID()
	if res := f.do(member, http.MethodPut, "/servers/"+string(s.ID)+"/ack", nil); res.Status != http.StatusNoContent {
		t.Fatalf("server ack = %d %s", res.Status, res.Body)
	}
	list = nil // decoding into the old slice would keep its mentions
	f.h.Get("/sync/unreads", member.Token).JSON(t, &list)
	if len(list) != 2 {
		t.Fatalf("unreads after server ack = %+v, want both channels", list)
	}
	for _, u := range list {
		if (u.ID.Channel != ch.ID && u.ID.Channel != second.ID) || u.LastID == nil || *u.LastID < before || len(u.Mentions) != 0 {
			t.Errorf("unread = %+v", u)
		}
	}
	wantError(t, f.do(outsider, http.MethodPut, "/servers/"+string(s.ID)+"/ack", nil), 404, "NotFound")
	wantError(t, f.do(member, http.MethodPut, "/servers/"+string(chat.NewID())+"/ack", nil), 404, "NotFound")
	wantError(t, f.do(nil, http.MethodGet, "/sync/unreads", nil), 401, "NotAuthenticated")
}

func TestAcknowledgePolicy(t *testing.T) {
	f := newMsgFixture(t)
	alice := f.h.NewUser("alice")
	res := f.do(alice, http.MethodPost, "/policy/acknowledge", nil)
	if res.Status != http.StatusOK || len(res.Body) != 0 {
		t.Fatalf("acknowledge = %d %q, want 200 with an empty body", res.Status, res.Body)
	}
	acct, err := f.h.Server.Store.FetchAccount(context.Background(), alice.ID)
	f.must(err)
	if acct.PolicyAcknowledged == nil || time.Since(acct.PolicyAcknowledged.Time) > time.Minute {
		t.Errorf("policy_acknowledged = %v", acct.PolicyAcknowledged)
	}
	_, token := f.bot(alice, "policybot")
	wantError(t, f.h.Do(apitest.Request{Method: http.MethodPost, Path: "/policy/acknowledge", Bot: token}), 400, "IsBot")
	wantError(t, f.do(nil, http.MethodPost, "/policy/acknowledge", nil), 401, "NotAuthenticated")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
