package api_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"ermine/internal/api"
	"ermine/internal/apitest"
	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/store"
)

// makeAdmin marks u privileged, as `ermine admin grant-privileged` does.
func makeAdmin(t *testing.T, h *apitest.Harness, u *apitest.User) {
	t.Helper()
	ctx := context.Background()
	usr, err := h.Server.Store.FetchUser(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	usr.Privileged = true
	if err := h.Server.Store.UpdateUser(ctx, usr); err != nil {
		t.Fatal(err)
	}
}

// loginable gives u a password and the stored address login looks up.
func loginable(t *testing.T, h *apitest.Harness, u *apitest.User, password string) {
	t.Helper()
	setPassword(t, h, u, password)
	ctx := context.Background()
	acc, err := h.Server.Store.FetchAccount(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	acc.EmailNormalised = normalised(t, u.Email)
	if err := h.Server.Store.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
}

func report(h *apitest.Harness, token string, content map[string]any, extra string) *apitest.Response {
	return h.Do(apitest.Request{Method: "POST", Path: "/safety/report", Session: token,
		Body: map[string]any{"content": content, "additional_context": extra}})
}

func storedMessage(t *testing.T, h *apitest.Harness, channel chat.ID, author *apitest.User, content string) *chat.Message {
	t.Helper()
	m := &chat.Message{ID: chat.NewID(), Channel: channel, Author: author.ID, Content: &content}
	if err := h.Server.Store.InsertMessage(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSafetyReport(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits)
	alice, bob, admin := h.NewUser("Alice"), h.NewUser("Bob"), h.NewUser("Admin")
	makeAdmin(t, h, admin)
	sv := newServer(t, h, bob, alice)
	general := sv.Channels[0]
	before := storedMessage(t, h, general, alice, "context before")
	bad := sendText(t, h, bob.Token, general, "buy cheap stuff here")
	badID := bad["_id"].(string)

	res := report(h, alice.Token, map[string]any{"type": "Message", "id": badID, "report_reason": "UnsolicitedSpam"}, "he keeps doing it")
	if res.Status != http.StatusOK || len(res.Body) != 0 {
		t.Fatalf("report = %d %q", res.Status, res.Body)
	}
	// Reporting it again while open changes nothing.
	if res := report(h, alice.Token, map[string]any{"type": "Message", "id": badID, "report_reason": "SpamAbuse"}, ""); res.Status != http.StatusOK {
		t.Fatalf("second report = %d %s", res.Status, res.Body)
	}

	// The message is deleted; the report keeps it.
	if res := h.Do(apitest.Request{Method: "DELETE", Path: "/channels/" + string(general) + "/messages/" + badID, Session: bob.Token}); res.Status != 204 {
		t.Fatalf("delete = %d %s", res.Status, res.Body)
	}
	var reports []map[string]any
	h.Get("/admin/reports?status=Created", admin.Token).JSON(t, &reports)
	if len(reports) != 1 {
		t.Fatalf("open reports = %v", reports)
	}
	r := reports[0]
	snap := r["snapshot"].(map[string]any)
	msg := snap["_message"].(map[string]any)
	if msg["content"] != "buy cheap stuff here" || msg["author"] != string(bob.ID) || r["additional_context"] != "he keeps doing it" {
		t.Errorf("report = %v", r)
	}
	prior := snap["_prior_context"].([]any)
	if len(prior) != 1 || prior[0].(map[string]any)["_id"] != string(before.ID) {
		t.Errorf("prior context = %v", prior)
	}
	if c := r["content"].(map[string]any); c["type"] != "Message" || c["id"] != badID || c["report_reason"] != "UnsolicitedSpam" {
		t.Errorf("content = %v", c)
	}

	// Servers and users, with a message for context.
	ctxMsg := storedMessage(t, h, general, bob, "rude words")
	if res := report(h, alice.Token, map[string]any{"type": "Server", "id": string(sv.ID), "report_reason": "Raid"}, ""); res.Status != 200 {
		t.Fatalf("server report = %d %s", res.Status, res.Body)
	}
	if res := report(h, alice.Token, map[string]any{"type": "User", "id": string(bob.ID), "report_reason": "Impersonation",
		"message_id": string(ctxMsg.ID)}, ""); res.Status != 200 {
		t.Fatalf("user report = %d %s", res.Status, res.Body)
	}
	h.Get("/admin/reports?limit=10", admin.Token).JSON(t, &reports)
	if len(reports) != 3 || reports[0]["content"].(map[string]any)["type"] != "User" {
		t.Fatalf("reports = %v", reports)
	}
	us := reports[0]["snapshot"].(map[string]any)
	if us["_user"].(map[string]any)["username"] != "Bob" || us["_message"].(map[string]any)["content"] != "rude words" {
		t.Errorf("user snapshot = %v", us)
	}
	if ss := reports[1]["snapshot"].(map[string]any); ss["_server"].(map[string]any)["name"] != "Burrow" {
		t.Errorf("server snapshot = %v", ss)
	}

	// The reported message's files are marked reported.
	file := uploadRecord(t, h, bob, "attachments")
	res = h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(general) + "/messages", Session: bob.Token,
		Body: map[string]any{"content": "look", "attachments": []string{file}}})
	if res.Status != 200 {
		t.Fatalf("send with attachment = %d %s", res.Status, res.Body)
	}
	if res := report(h, alice.Token, map[string]any{"type": "Message", "id": res.Map(t)["_id"], "report_reason": "Illegal"}, ""); res.Status != 200 {
		t.Fatalf("report with attachment = %d %s", res.Status, res.Body)
	}
	if f := fileRecord(t, h, file); f.Reported == nil || !*f.Reported {
		t.Errorf("file after report = %+v", f)
	}

	// What cannot be reported.
	mine := storedMessage(t, h, general, alice, "mine")
	wantError(t, report(h, alice.Token, map[string]any{"type": "Message", "id": string(mine.ID), "report_reason": "Illegal"}, ""), 400, "CannotReportYourself")
	wantError(t, report(h, alice.Token, map[string]any{"type": "User", "id": string(alice.ID), "report_reason": "SpamAbuse"}, ""), 400, "CannotReportYourself")
	wantError(t, report(h, bob.Token, map[string]any{"type": "Server", "id": string(sv.ID), "report_reason": "Raid"}, ""), 400, "CannotReportYourself")
	wantError(t, report(h, alice.Token, map[string]any{"type": "User", "id": string(bob.ID), "report_reason": "Raid"}, ""), 400, "FailedValidation")
	wantError(t, report(h, alice.Token, map[string]any{"type": "Thing", "id": string(bob.ID), "report_reason": "Raid"}, ""), 400, "FailedValidation")
	wantError(t, report(h, alice.Token, map[string]any{"type": "Message", "id": string(chat.NewID()), "report_reason": "Raid"}, ""), 404, "NotFound")
	wantError(t, report(h, alice.Token, map[string]any{"type": "User", "id": string(bob.ID), "report_reason": "SpamAbuse"}, strings.Repeat("x", 1001)), 400, "FailedValidation")
	// A message in a channel the reporter cannot see is not found.
	stranger := h.NewUser("Stranger")
	wantError(t, report(h, stranger.Token, map[string]any{"type": "Message", "id": string(ctxMsg.ID), "report_reason": "Raid"}, ""), 404, "NotFound")
	_, botToken := newBotUser(t, h, bob, "reportbot")
	res = h.Do(apitest.Request{Method: "POST", Path: "/safety/report", Bot: botToken,
		Body: map[string]any{"content": map[string]any{"type": "User", "id": string(alice.ID), "report_reason": "SpamAbuse"}}})
	wantError(t, res, 400, "IsBot")
	wantError(t, report(h, "", map[string]any{"type": "User", "id": string(bob.ID), "report_reason": "SpamAbuse"}, ""), 401, "NotAuthenticated")
}

func TestSafetyReportRateLimit(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t)
	alice := h.NewUser("Alice")
	var last *apitest.Response
	for range 4 {
		last = report(h, alice.Token, map[string]any{"type": "User", "id": string(h.NewUser("Target").ID), "report_reason": "SpamAbuse"}, "")
	}
	if last.Status != http.StatusTooManyRequests {
		t.Fatalf("fourth report in the window = %d %s", last.Status, last.Body)
	}
}

// TestAdminRoutesNeedPrivilege asks every route of the route table under
// /admin, as the table lists them, so a new admin route that forgets the
// check fails here without anyone adding it to a list.
func TestAdminRoutesNeedPrivilege(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits)
	plain, target := h.NewUser("Plain"), h.NewUser("Target")
	_, botToken := newBotUser(t, h, plain, "adminbot")
	// Real objects where a refused call could change them: a server with
	// a member, a registration invite.
	sv := newServer(t, h, target, plain)
	invs, err := h.Server.App.CreateRegistrationInvites(context.Background(), app.Operator(), 1)
	if err != nil {
		t.Fatal(err)
	}
	invite := invs[0].Code
	type route struct{ method, path string }
	var routes []route
	for _, p := range api.RoutePatterns() {
		method, path, ok := strings.Cut(p, " ")
		if !ok || !strings.HasPrefix(path, "/admin") {
			continue
		}
		// Every wildcard gets an id: the target user's where it names a
		// user, a fresh one elsewhere (the check comes before the lookup).
		segs := strings.Split(path, "/")
		for i, seg := range segs {
			if !strings.HasPrefix(seg, "{") {
				continue
			}
			switch seg {
			case "{$}":
				segs[i] = ""
			case "{target}", "{user}":
				segs[i] = string(target.ID)
			case "{server}":
				segs[i] = string(sv.ID)
			case "{member}":
				segs[i] = string(plain.ID)
			case "{code}":
				segs[i] = invite
			default:
				segs[i] = string(chat.NewID())
			}
		}
		routes = append(routes, route{method, strings.Join(segs, "/")})
	}
	if len(routes) < 23 || !slices.Contains(routes, route{"GET", "/admin/overview"}) {
		t.Fatalf("only %d admin routes in the table: %v", len(routes), routes)
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			body := map[string]any{"mode": "ban", "badges": 1, "owner": string(plain.ID), "password": "a long enough password"}
			wantError(t, h.Do(apitest.Request{Method: r.method, Path: r.path, Session: plain.Token, Body: body}), 403, "NotPrivileged")
			wantError(t, h.Do(apitest.Request{Method: r.method, Path: r.path, Bot: botToken, Body: body}), 403, "NotPrivileged")
			wantError(t, h.Do(apitest.Request{Method: r.method, Path: r.path, Body: body}), 401, "NotAuthenticated")
		})
	}
	// Nothing was changed by the refused calls.
	ctx := context.Background()
	u, err := h.Server.Store.FetchUser(ctx, target.ID)
	if err != nil || u.Flags != 0 || u.Badges != 0 {
		t.Fatalf("target after refused calls = %+v, %v", u, err)
	}
	if s, err := h.Server.Store.FetchServer(ctx, sv.ID); err != nil || s.Owner != target.ID {
		t.Fatalf("server after refused calls = %+v, %v", s, err)
	}
	if _, err := h.Server.Store.FetchMember(ctx, sv.ID, plain.ID); err != nil {
		t.Fatalf("member after refused calls: %v", err)
	}
	if _, err := h.Server.Store.FetchRegistrationInvite(ctx, invite); err != nil {
		t.Fatalf("invite after refused calls: %v", err)
	}
	if log, err := h.Server.Store.FetchAdminActions(ctx, store.AdminActionQuery{Limit: 10}); err != nil || len(log) != 1 { // the invite made above
		t.Fatalf("audit log after refused calls = %v, %v", log, err)
	}
}

func TestAdminDisable(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) { c.Passwords = config.Passwords{MemoryKiB: 64, Passes: 1} })
	admin, target := h.NewUser("Admin"), h.NewUser("Target")
	makeAdmin(t, h, admin)
	loginable(t, h, target, goodPassword)
	sock := h.Connect(target.Token)
	other := h.Connect(freshSession(t, h, target))

	if res := h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(target.ID) + "/disable", Session: admin.Token}); res.Status != 204 {
		t.Fatalf("disable = %d %s", res.Status, res.Body)
	}
	sock.Expect("Logout")
	other.Expect("Logout")
	wantError(t, h.Get("/users/@me", target.Token), 401, "InvalidSession")
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"email": target.Email, "password": goodPassword}})
	if m := res.Map(t); res.Status != 200 || m["result"] != "Disabled" || m["user_id"] != string(target.ID) {
		t.Fatalf("login while disabled = %d %s", res.Status, res.Body)
	}
	var au map[string]any
	h.Get("/admin/users/"+string(target.ID), admin.Token).JSON(t, &au)
	if au["disabled"] != true || au["sessions"] != float64(0) || au["email"] != target.Email {
		t.Errorf("admin view = %v", au)
	}

	if res := h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(target.ID) + "/enable", Session: admin.Token}); res.Status != 204 {
		t.Fatalf("enable = %d %s", res.Status, res.Body)
	}
	res = h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"email": target.Email, "password": goodPassword}})
	if res.Status != 200 || res.Map(t)["result"] != "Success" {
		t.Fatalf("login after enable = %d %s", res.Status, res.Body)
	}
	// An admin cannot disable themself, and unknown users are not found.
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(admin.ID) + "/disable", Session: admin.Token}), 400, "InvalidOperation")
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(chat.NewID()) + "/disable", Session: admin.Token}), 404, "NotFound")
}

func TestAdminWipe(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) { c.Passwords = config.Passwords{MemoryKiB: 64, Passes: 1} })
	admin, spammer := h.NewUser("Admin"), h.NewUser("Spammer")
	friend, member, stranger := h.NewUser("Friend"), h.NewUser("Member"), h.NewUser("Stranger")
	makeAdmin(t, h, admin)
	befriend(t, h, spammer, friend)
	sv := newServer(t, h, member, spammer, friend) // the friend shares the server too
	spam := storedMessage(t, h, sv.Channels[0], spammer, "spam spam spam")
	kept := storedMessage(t, h, sv.Channels[0], member, "not spam")

	sockSpammer := h.Connect(spammer.Token)
	sockFriend, sockMember, sockStranger := h.Connect(friend.Token), h.Connect(member.Token), h.Connect(stranger.Token)

	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(spammer.ID) + "/wipe", Session: admin.Token,
		Body: map[string]any{"mode": "vanish"}}), 400, "FailedValidation")
	if res := h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(spammer.ID) + "/wipe", Session: admin.Token,
		Body: map[string]any{"mode": "ban"}}); res.Status != 204 {
		t.Fatalf("wipe = %d %s", res.Status, res.Body)
	}
	for name, s := range map[string]*apitest.Socket{"friend": sockFriend, "member": sockMember} {
		p := s.Expect("UserPlatformWipe")
		if p["user_id"] != string(spammer.ID) || int(p["flags"].(float64))&chat.UserFlagSpam == 0 {
			t.Errorf("%s got %v", name, p)
		}
	}
	sockSpammer.Expect("Logout")
	sockFriend.None("UserPlatformWipe", 300*time.Millisecond) // once, though it follows the user and the server
	sockStranger.None("UserPlatformWipe", 100*time.Millisecond)

	ctx := context.Background()
	st := h.Server.Store
	u, err := st.FetchUser(ctx, spammer.ID)
	if err != nil || u.Flags&chat.UserFlagSpam == 0 {
		t.Fatalf("user after wipe = %+v, %v", u, err)
	}
	if _, err := st.FetchMessage(ctx, spam.ID); err == nil {
		t.Error("the spammer's message survived the wipe")
	}
	if _, err := st.FetchMessage(ctx, kept.ID); err != nil {
		t.Errorf("another member's message went: %v", err)
	}
	if _, err := st.FetchMember(ctx, sv.ID, spammer.ID); err == nil {
		t.Error("the spammer is still a member")
	}
	if relation(t, h, friend.ID, spammer.ID) != chat.RelationNone {
		t.Error("the friendship survived the wipe")
	}
	loginable(t, h, spammer, goodPassword)
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"email": spammer.Email, "password": goodPassword}})
	if res.Status != 200 || res.Map(t)["result"] != "Disabled" {
		t.Errorf("login after wipe = %d %s", res.Status, res.Body)
	}

	// A wiped bot's token stops working.
	botUser, botToken := newBotUser(t, h, member, "spambot")
	if res := h.Do(apitest.Request{Method: "GET", Path: "/users/@me", Bot: botToken}); res.Status != 200 {
		t.Fatalf("bot before wipe = %d %s", res.Status, res.Body)
	}
	if res := h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(botUser.ID) + "/wipe", Session: admin.Token,
		Body: map[string]any{"mode": "ban"}}); res.Status != 204 {
		t.Fatalf("wipe bot = %d %s", res.Status, res.Body)
	}
	wantError(t, h.Do(apitest.Request{Method: "GET", Path: "/users/@me", Bot: botToken}), 401, "InvalidSession")

	// Deleting: the user is anonymised and the deletion flag set.
	victim := h.NewUser("Victim")
	befriend(t, h, victim, friend)
	if res := h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(victim.ID) + "/wipe", Session: admin.Token,
		Body: map[string]any{"mode": "delete"}}); res.Status != 204 {
		t.Fatalf("wipe delete = %d %s", res.Status, res.Body)
	}
	if p := sockFriend.Expect("UserPlatformWipe"); int(p["flags"].(float64))&chat.UserFlagDeleted == 0 {
		t.Errorf("delete wipe = %v", p)
	}
	if u, err := st.FetchUser(ctx, victim.ID); err != nil || u.Username != "Deleted User" || u.Flags&chat.UserFlagDeleted == 0 {
		t.Errorf("deleted user = %+v, %v", u, err)
	}
}

func TestAdminUsersReportsAndStats(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits)
	admin, alice, bob := h.NewUser("Admin"), h.NewUser("Alice"), h.NewUser("Bobcat")
	makeAdmin(t, h, admin)
	sv := newServer(t, h, alice, bob)
	msg := storedMessage(t, h, sv.Channels[0], bob, "bad")

	var list []map[string]any
	h.Get("/admin/users?query=bobc", admin.Token).JSON(t, &list)
	if len(list) != 1 || list[0]["user"].(map[string]any)["_id"] != string(bob.ID) {
		t.Fatalf("search = %v", list)
	}
	h.Get("/admin/users?limit=2", admin.Token).JSON(t, &list)
	if len(list) != 2 {
		t.Fatalf("page = %v", list)
	}
	wantError(t, h.Get("/admin/users?limit=0", admin.Token), 400, "FailedValidation")

	// Badges and flags reach whoever follows the user.
	befriend(t, h, alice, bob)
	sock := h.Connect(alice.Token)
	res := h.Do(apitest.Request{Method: "PATCH", Path: "/admin/users/" + string(bob.ID), Session: admin.Token,
		Body: map[string]any{"badges": 256, "flags": 1}})
	if res.Status != 200 {
		t.Fatalf("edit = %d %s", res.Status, res.Body)
	}
	p := sock.ExpectMatch("UserUpdate", func(p map[string]any) bool {
		return p["id"] == string(bob.ID) && p["data"].(map[string]any)["badges"] != nil
	})
	if d := p["data"].(map[string]any); p["id"] != string(bob.ID) || d["badges"] != float64(256) || d["flags"] != float64(1) {
		t.Errorf("UserUpdate = %v", p)
	}

	// A report resolved with a note and an action on the item.
	if res := report(h, alice.Token, map[string]any{"type": "Message", "id": string(msg.ID), "report_reason": "Harassment"}, ""); res.Status != 200 {
		t.Fatalf("report = %d %s", res.Status, res.Body)
	}
	var reports []map[string]any
	h.Get("/admin/reports", admin.Token).JSON(t, &reports)
	id := reports[0]["_id"].(string)
	if got := h.Get("/admin/reports/"+id, admin.Token).Map(t); got["_id"] != id {
		t.Fatalf("report = %v", got)
	}
	var stats map[string]any
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		h.Get("/admin/stats", admin.Token).JSON(t, &stats)
		if stats["connections"] == float64(1) || time.Now().After(deadline) {
			break // the node counts a connection just after its Ready
		}
	}
	if stats["users"] != float64(3) || stats["servers"] != float64(1) || stats["messages"] != float64(1) ||
		stats["open_reports"] != float64(1) || stats["connections"] != float64(1) || stats["online_users"] != float64(1) {
		t.Errorf("stats = %v", stats)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/admin/reports/" + id + "/resolve", Session: admin.Token,
		Body: map[string]any{"action": "DeleteServer"}}), 400, "InvalidOperation")
	res = h.Do(apitest.Request{Method: "POST", Path: "/admin/reports/" + id + "/resolve", Session: admin.Token,
		Body: map[string]any{"notes": "removed", "action": "DeleteMessage"}})
	if res.Status != 200 {
		t.Fatalf("resolve = %d %s", res.Status, res.Body)
	}
	if r := res.Map(t); r["status"] != "Resolved" || r["notes"] != "removed" || r["closed_by"] != string(admin.ID) {
		t.Errorf("resolved = %v", r)
	}
	sock.Expect("MessageDelete")
	if _, err := h.Server.Store.FetchMessage(context.Background(), msg.ID); err == nil {
		t.Error("the reported message was not deleted")
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/admin/reports/" + id + "/resolve", Session: admin.Token,
		Body: map[string]any{}}), 400, "InvalidOperation")
	h.Get("/admin/reports?status=Created", admin.Token).JSON(t, &reports)
	if len(reports) != 0 {
		t.Errorf("open reports after resolving = %v", reports)
	}
	wantError(t, h.Get("/admin/reports?status=Maybe", admin.Token), 400, "FailedValidation")
	wantError(t, h.Get("/admin/reports/"+string(chat.NewID()), admin.Token), 404, "NotFound")
}
