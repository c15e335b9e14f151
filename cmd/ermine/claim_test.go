package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
)

// TestAdminClaim hands an imported author's history to a real account
// and reads it back through the API: history, search and reactions show
// the real user, and the imported one is gone from the server.
func TestAdminClaim(t *testing.T) {
	dir := t.TempDir()
	h := runningNode(t, dir)
	ctx := context.Background()
	st := h.Server.Store
	alice := h.NewUser("Alice")
	res := h.Do(apitest.Request{Method: http.MethodPost, Path: "/servers/create", Session: alice.Token,
		Body: map[string]any{"name": "Moved in"}})
	if res.Status != http.StatusOK {
		t.Fatalf("create server: %d %s", res.Status, res.Body)
	}
	var created struct {
		Server   chat.Server    `json:"server"`
		Channels []chat.Channel `json:"channels"`
	}
	res.JSON(t, &created)
	srv, ch := created.Server.ID, created.Channels[0].ID

	// What an import leaves: an author without an account, a member of
	// the server, with messages dated in the past.
	then := time.Date(2019, 5, 1, 10, 0, 0, 0, time.UTC)
	ghost := &chat.User{ID: chat.NewIDAt(then), Username: "alice_on_discord", Discriminator: "0420", Flags: chat.UserFlagImported}
	if err := st.InsertUser(ctx, ghost); err != nil {
		t.Fatal(err)
	}
	nick := "Alice (Discord)"
	if err := st.InsertMember(ctx, &chat.Member{ID: chat.MemberID{Server: srv, User: ghost.ID}, JoinedAt: chat.TimeOf(then), Nickname: &nick}); err != nil {
		t.Fatal(err)
	}
	text := func(s string) *string { return &s }
	var theirs []chat.ID
	for i := range 3 {
		m := &chat.Message{ID: chat.NewIDAt(then.Add(time.Duration(i) * time.Minute)), Channel: ch, Author: ghost.ID,
			Content: text("a memory from the old place")}
		theirs = append(theirs, m.ID)
		if err := st.InsertMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	bob := &chat.User{ID: chat.NewIDAt(then), Username: "bob_on_discord", Discriminator: "0001", Flags: chat.UserFlagImported}
	if err := st.InsertUser(ctx, bob); err != nil {
		t.Fatal(err)
	}
	reacted := &chat.Message{ID: chat.NewIDAt(then.Add(time.Hour)), Channel: ch, Author: bob.ID, Content: text("hi <@" + string(ghost.ID) + ">"),
		Mentions: []chat.ID{ghost.ID}, Reactions: map[string][]chat.ID{"👍": {bob.ID, ghost.ID}}}
	if err := st.InsertMessage(ctx, reacted); err != nil {
		t.Fatal(err)
	}

	// A longer channel: open clients hear of the changes among its newest
	// 100 messages only.
	res = h.Do(apitest.Request{Method: http.MethodPost, Path: "/servers/" + string(srv) + "/channels", Session: alice.Token,
		Body: map[string]any{"name": "archive"}})
	if res.Status != http.StatusOK {
		t.Fatalf("create channel: %d %s", res.Status, res.Body)
	}
	var archive chat.Channel
	res.JSON(t, &archive)
	var old []*chat.Message
	for i := range 120 {
		old = append(old, &chat.Message{ID: chat.NewIDAt(then.Add(time.Duration(i) * time.Second)), Channel: archive.ID, Author: ghost.ID,
			Content: text("an old story")})
	}
	if err := st.InsertMessages(ctx, old); err != nil {
		t.Fatal(err)
	}
	sock := h.Connect(alice.Token)
	// As a client showing the server does: its member list's changes come.
	sock.Send(map[string]any{"type": "Subscribe", "server_id": srv})
	sock.Send(map[string]any{"type": "Ping", "data": 1})
	sock.Expect("Pong")

	// Only imported authors can be claimed, and only by real accounts.
	if _, err := ermine(t, "--data", dir, "admin", "claim", string(alice.ID), string(ghost.ID)); err == nil || !strings.Contains(err.Error(), "not made by an import") {
		t.Fatalf("claiming a real account: %v", err)
	}
	if _, err := ermine(t, "--data", dir, "admin", "claim", string(ghost.ID), string(bob.ID)); err == nil || !strings.Contains(err.Error(), "imported author") {
		t.Fatalf("claiming into an imported account: %v", err)
	}

	out, err := ermine(t, "--data", dir, "admin", "claim", "alice_on_discord#0420", "Alice#"+alice.Discriminator)
	if err != nil {
		t.Fatalf("admin claim: %v", err)
	}
	if !strings.Contains(out, "123 messages, 1 reactions, 1 mentions, 1 servers") || !strings.Contains(out, "told of the 104 changed messages") {
		t.Errorf("claim printed %q", out)
	}

	// Alice's open client is told: the imported member left, the changed
	// messages (in one Bulk frame per channel, the newest 100 of the
	// archive) have her as author, and the imported user is deleted.
	updates := map[chat.ID]map[string]any{}
	for range 2 {
		bulk := sock.Expect("Bulk")
		for _, item := range bulk["v"].([]any) {
			ev := item.(map[string]any)
			if ev["type"] != "MessageUpdate" {
				t.Fatalf("Bulk holds %v", ev)
			}
			updates[chat.ID(ev["id"].(string))] = ev["data"].(map[string]any)
		}
	}
	for _, id := range theirs {
		if updates[id]["author"] != string(alice.ID) {
			t.Errorf("MessageUpdate of %s: %v, want author Alice", id, updates[id])
		}
	}
	for i, m := range old {
		switch d, sent := updates[m.ID]; {
		case i < 20 && sent:
			t.Errorf("old message %d (beyond the newest 100) sent: %v", i, d)
		case i >= 20 && (!sent || d["author"] != string(alice.ID)):
			t.Errorf("recent message %d: %v, want author Alice", i, d)
		}
	}
	if d := updates[reacted.ID]; d["author"] != nil || d["mentions"] == nil || d["reactions"] == nil {
		t.Errorf("MessageUpdate of the message Alice reacted to: %v, want reactions and mentions only", d)
	}
	if len(updates) != 104 {
		t.Errorf("%d MessageUpdates, want 104", len(updates))
	}
	ev := sock.ExpectMatch("UserUpdate", func(ev map[string]any) bool { return ev["id"] == string(ghost.ID) })
	if flags, _ := ev["data"].(map[string]any)["flags"].(float64); uint32(flags)&chat.UserFlagDeleted == 0 {
		t.Errorf("UserUpdate of the imported user: %v, want the deleted flag", ev)
	}

	// History.
	var page struct {
		Messages []chat.Message `json:"messages"`
		Users    []chat.User    `json:"users"`
	}
	res = h.Get("/channels/"+string(ch)+"/messages?include_users=true&sort=Oldest", alice.Token)
	if res.Status != http.StatusOK {
		t.Fatalf("history: %d %s", res.Status, res.Body)
	}
	res.JSON(t, &page)
	byID := map[chat.ID]chat.Message{}
	for _, m := range page.Messages {
		byID[m.ID] = m
	}
	for _, id := range theirs {
		if m, ok := byID[id]; !ok || m.Author != alice.ID {
			t.Errorf("history: message %s author %q, want Alice %s", id, m.Author, alice.ID)
		}
		if !id.Time().Equal(then) && id.Time().Before(then) {
			t.Errorf("message %s moved in time", id)
		}
	}
	for _, u := range page.Users {
		if u.ID == ghost.ID {
			t.Errorf("history still lists the imported author")
		}
	}
	if m := byID[reacted.ID]; len(m.Reactions["👍"]) != 2 || m.Reactions["👍"][1] != alice.ID || len(m.Mentions) != 1 || m.Mentions[0] != alice.ID {
		t.Errorf("reactions %v, mentions %v: want Alice in place of the imported author", m.Reactions, m.Mentions)
	}

	// Search.
	res = h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + string(ch) + "/search", Session: alice.Token,
		Body: map[string]any{"query": "memory", "include_users": true}})
	if res.Status != http.StatusOK {
		t.Fatalf("search: %d %s", res.Status, res.Body)
	}
	page.Messages, page.Users = nil, nil
	res.JSON(t, &page)
	if len(page.Messages) != 3 {
		t.Fatalf("search found %d messages, want 3: %s", len(page.Messages), res.Body)
	}
	for _, m := range page.Messages {
		if m.Author != alice.ID {
			t.Errorf("search: message %s author %s, want Alice", m.ID, m.Author)
		}
	}
	if len(page.Users) != 1 || page.Users[0].ID != alice.ID {
		t.Errorf("search users %+v, want only Alice", page.Users)
	}

	// The imported member left; Alice kept her own membership.
	if res := h.Get("/servers/"+string(srv)+"/members/"+string(ghost.ID), alice.Token); res.Status != http.StatusNotFound {
		t.Errorf("imported member after claim: %d", res.Status)
	}
	// Claiming again moves nothing.
	out, err = ermine(t, "--data", dir, "admin", "claim", string(ghost.ID), string(alice.ID))
	if err != nil || !strings.Contains(out, "0 messages, 0 reactions, 0 mentions, 0 servers") {
		t.Errorf("second claim: %q, %v", out, err)
	}
}
