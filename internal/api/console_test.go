package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
)

// The routes of the operator's console (web/src/admin): overview, user
// and server pages, registration invites and the instance's audit log.

// adminLog reads the instance's audit log as the admin sees it.
func adminLog(t *testing.T, h *apitest.Harness, admin *apitest.User, query string) []map[string]any {
	t.Helper()
	var out []map[string]any
	h.Get("/admin/audit"+query, admin.Token).JSON(t, &out)
	return out
}

// wantLogged checks that the newest entry of the audit log is action on
// target by who.
func wantLogged(t *testing.T, h *apitest.Harness, admin *apitest.User, action, target string) map[string]any {
	t.Helper()
	log := adminLog(t, h, admin, "?limit=1")
	if len(log) != 1 || log[0]["action"] != action || log[0]["target"] != target || log[0]["user"] != string(admin.ID) {
		t.Fatalf("newest audit entry = %v, want %s on %s by %s", log, action, target, admin.ID)
	}
	return log[0]
}

func TestConsoleOverview(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits)
	admin, alice := h.NewUser("Admin"), h.NewUser("Alice")
	makeAdmin(t, h, admin)
	newServer(t, h, alice)

	var o map[string]any
	h.Get("/admin/overview", admin.Token).JSON(t, &o)
	if o["users"] != float64(2) || o["servers"] != float64(1) || o["channels"] == float64(0) || o["open_reports"] != float64(0) {
		t.Errorf("figures = %v", o)
	}
	if o["version"] == "" || !strings.HasPrefix(o["store"].(string), "sqlite") || o["bus"] != "inproc" || o["invite_only"] != false {
		t.Errorf("instance = %v", o)
	}
	if _, ok := o["uptime_seconds"].(float64); !ok || o["last_backup"] != nil {
		t.Errorf("uptime, last backup = %v, %v", o["uptime_seconds"], o["last_backup"])
	}
	types := func(o map[string]any) map[string]bool {
		out := map[string]bool{}
		for _, w := range o["warnings"].([]any) {
			out[w.(map[string]any)["type"].(string)] = true
		}
		return out
	}
	// The test server has neither push nor mail; one node, so disk uploads are fine.
	if w := types(o); !w["PushOff"] || !w["MailOff"] || w["DiskUploadsShared"] || w["BackupStale"] {
		t.Errorf("warnings = %v", o["warnings"])
	}

	// A backup taken eight days ago is stale; a fresh one is not.
	ctx := context.Background()
	old := &chat.AdminAction{ID: chat.NewIDAt(time.Now().Add(-8 * 24 * time.Hour)), Action: "Backup", Target: "backup"}
	if err := h.Server.Store.InsertAdminAction(ctx, old); err != nil {
		t.Fatal(err)
	}
	h.Get("/admin/overview", admin.Token).JSON(t, &o)
	if !types(o)["BackupStale"] || o["last_backup"] == nil {
		t.Errorf("after an old backup: %v", o)
	}
	if err := h.Server.App.RecordBackup(ctx, "/backups/today.db"); err != nil {
		t.Fatal(err)
	}
	h.Get("/admin/overview", admin.Token).JSON(t, &o)
	if types(o)["BackupStale"] {
		t.Errorf("after a fresh backup: %v", o["warnings"])
	}
}

func TestConsoleOverviewVoiceUnreachable(t *testing.T) {
	t.Parallel()
	up := newLiveKitStub(t)
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) {
		c.Voice.Enabled = true
		c.Voice.Nodes = []config.VoiceNode{
			{Name: "up", URL: up, PublicURL: "wss://up.test", APIKey: "k", APISecret: strings.Repeat("s", 32)},
			{Name: "down", URL: "http://127.0.0.1:1", PublicURL: "wss://down.test", APIKey: "k", APISecret: strings.Repeat("s", 32)},
		}
	})
	admin := h.NewUser("Admin")
	makeAdmin(t, h, admin)
	var o map[string]any
	h.Get("/admin/overview", admin.Token).JSON(t, &o)
	var unreachable []string
	for _, w := range o["warnings"].([]any) {
		if w := w.(map[string]any); w["type"] == "VoiceUnreachable" {
			unreachable = append(unreachable, w["message"].(string))
		}
	}
	if len(unreachable) != 1 || !strings.Contains(unreachable[0], `"down"`) {
		t.Errorf("voice warnings = %v", unreachable)
	}
}

// newLiveKitStub answers at a LiveKit node's root as LiveKit does.
func newLiveKitStub(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("OK")) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestConsoleUserPage(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) { c.Passwords = config.Passwords{MemoryKiB: 64, Passes: 1} })
	admin, alice, bob := h.NewUser("Admin"), h.NewUser("Alice"), h.NewUser("Bob")
	makeAdmin(t, h, admin)
	loginable(t, h, bob, goodPassword)
	sv := newServer(t, h, alice, bob)
	botUser, _ := newBotUser(t, h, bob, "bobsbot")
	if res := report(h, alice.Token, map[string]any{"type": "User", "id": string(bob.ID), "report_reason": "SpamAbuse"}, "rude"); res.Status != 200 {
		t.Fatalf("report = %d %s", res.Status, res.Body)
	}
	if res := report(h, bob.Token, map[string]any{"type": "User", "id": string(alice.ID), "report_reason": "SpamAbuse"}, ""); res.Status != 200 {
		t.Fatalf("report = %d %s", res.Status, res.Body)
	}

	// Found by part of the address.
	var list []map[string]any
	h.Get("/admin/users?query="+strings.ToUpper(strings.Split(bob.Email, "@")[0]), admin.Token).JSON(t, &list)
	if len(list) != 1 || list[0]["user"].(map[string]any)["_id"] != string(bob.ID) {
		t.Fatalf("search by email = %v", list)
	}

	var p map[string]any
	h.Get("/admin/users/"+string(bob.ID)+"/page", admin.Token).JSON(t, &p)
	if p["user"].(map[string]any)["username"] != "Bob" || p["email"] != bob.Email || p["mfa"] != false || p["disabled"] != false {
		t.Errorf("account = %v", p)
	}
	sessions := p["session_list"].([]any)
	if len(sessions) != 1 || sessions[0].(map[string]any)["token"] != nil || sessions[0].(map[string]any)["_id"] == "" {
		t.Errorf("sessions = %v", sessions)
	}
	if s := p["servers"].([]any); len(s) != 1 || s[0].(map[string]any)["_id"] != string(sv.ID) || s[0].(map[string]any)["owner"] != false {
		t.Errorf("servers = %v", s)
	}
	if b := p["bots"].([]any); len(b) != 1 || b[0].(map[string]any)["_id"] != string(botUser.ID) {
		t.Errorf("bots = %v", b)
	}
	by, against := p["reports_by"].([]any), p["reports_against"].([]any)
	if len(by) != 1 || by[0].(map[string]any)["content"].(map[string]any)["id"] != string(alice.ID) ||
		len(against) != 1 || against[0].(map[string]any)["additional_context"] != "rude" {
		t.Errorf("reports by %v, against %v", by, against)
	}
	wantError(t, h.Get("/admin/users/"+string(chat.NewID())+"/page", admin.Token), 404, "NotFound")

	// A reset link, then a password set by the operator (sessions end).
	res := h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(bob.ID) + "/password", Session: admin.Token, Body: map[string]any{}})
	if link, _ := res.Map(t)["link"].(string); res.Status != 200 || !strings.Contains(link, "/login/reset/") {
		t.Fatalf("reset link = %d %s", res.Status, res.Body)
	}
	wantLogged(t, h, admin, "ResetPassword", string(bob.ID))
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(bob.ID) + "/password", Session: admin.Token,
		Body: map[string]any{"password": "short"}}), 400, "ShortPassword")
	sock := h.Connect(bob.Token)
	res = h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(bob.ID) + "/password", Session: admin.Token,
		Body: map[string]any{"password": "a brand new passphrase"}})
	if res.Status != 200 || res.Map(t)["link"] != nil {
		t.Fatalf("set password = %d %s", res.Status, res.Body)
	}
	sock.Expect("Logout")
	login(t, h, bob.Email, "a brand new passphrase")

	// The export is a download of everything stored.
	res = h.Get("/admin/users/"+string(bob.ID)+"/export", admin.Token)
	if res.Status != 200 || !strings.Contains(res.Header.Get("Content-Disposition"), string(bob.ID)) ||
		res.Map(t)["user"].(map[string]any)["_id"] != string(bob.ID) {
		t.Fatalf("export = %d %s", res.Status, res.Body)
	}
	wantLogged(t, h, admin, "ExportUser", string(bob.ID))

	// The page lists what operators did to the user.
	if res := h.Do(apitest.Request{Method: "POST", Path: "/admin/users/" + string(bob.ID) + "/disable", Session: admin.Token}); res.Status != 204 {
		t.Fatalf("disable = %d %s", res.Status, res.Body)
	}
	e := wantLogged(t, h, admin, "DisableUser", string(bob.ID))
	h.Get("/admin/users/"+string(bob.ID)+"/page", admin.Token).JSON(t, &p)
	actions := p["actions"].([]any)
	if len(actions) != 4 || actions[0].(map[string]any)["_id"] != e["_id"] || p["disabled"] != true {
		t.Errorf("actions on the page = %v", actions)
	}
}

func TestConsoleServers(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits)
	admin, owner, member, other := h.NewUser("Admin"), h.NewUser("Owner"), h.NewUser("Member"), h.NewUser("Other")
	makeAdmin(t, h, admin)
	sv := newServer(t, h, owner, member, other)
	newServer(t, h, other)

	var list []map[string]any
	h.Get("/admin/servers?query=BURR", admin.Token).JSON(t, &list)
	if len(list) != 2 || list[0]["members"] != float64(3) {
		t.Fatalf("search = %v", list)
	}
	h.Get("/admin/servers?query="+string(sv.ID), admin.Token).JSON(t, &list)
	if len(list) != 1 || list[0]["server"].(map[string]any)["_id"] != string(sv.ID) {
		t.Fatalf("search by id = %v", list)
	}
	wantError(t, h.Get("/admin/servers?limit=5000", admin.Token), 400, "FailedValidation")

	var p map[string]any
	h.Get("/admin/servers/"+string(sv.ID), admin.Token).JSON(t, &p)
	if p["owner"].(map[string]any)["_id"] != string(owner.ID) || p["members"] != float64(3) || len(p["channels"].([]any)) != len(sv.Channels) {
		t.Errorf("page = %v", p)
	}
	if _, ok := p["audit_log"].([]any); !ok {
		t.Errorf("audit log = %v", p["audit_log"])
	}
	wantError(t, h.Get("/admin/servers/"+string(chat.NewID()), admin.Token), 404, "NotFound")

	sock := h.Connect(member.Token)
	path := "/admin/servers/" + string(sv.ID)
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: path + "/transfer", Session: admin.Token,
		Body: map[string]any{"owner": string(admin.ID)}}), 400, "FailedValidation")
	res := h.Do(apitest.Request{Method: "POST", Path: path + "/transfer", Session: admin.Token, Body: map[string]any{"owner": string(member.ID)}})
	if res.Status != 200 || res.Map(t)["owner"] != string(member.ID) {
		t.Fatalf("transfer = %d %s", res.Status, res.Body)
	}
	sock.ExpectMatch("ServerUpdate", func(p map[string]any) bool {
		return p["data"].(map[string]any)["owner"] == string(member.ID)
	})
	wantLogged(t, h, admin, "TransferServer", string(sv.ID))

	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: path + "/members/" + string(member.ID), Session: admin.Token}), 400, "InvalidOperation")
	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: path + "/members/" + string(admin.ID), Session: admin.Token}), 404, "NotFound")
	if res := h.Do(apitest.Request{Method: "DELETE", Path: path + "/members/" + string(other.ID), Session: admin.Token}); res.Status != 204 {
		t.Fatalf("remove member = %d %s", res.Status, res.Body)
	}
	sock.ExpectMatch("ServerMemberLeave", func(p map[string]any) bool { return p["user"] == string(other.ID) })
	if _, err := h.Server.Store.FetchMember(context.Background(), sv.ID, other.ID); err == nil {
		t.Error("the member is still there")
	}
	wantLogged(t, h, admin, "RemoveMember", string(sv.ID))

	if res := h.Do(apitest.Request{Method: "DELETE", Path: path, Session: admin.Token}); res.Status != 204 {
		t.Fatalf("delete = %d %s", res.Status, res.Body)
	}
	sock.ExpectMatch("ServerDelete", func(p map[string]any) bool { return p["id"] == string(sv.ID) })
	if _, err := h.Server.Store.FetchServer(context.Background(), sv.ID); err == nil {
		t.Error("the server survived")
	}
	wantLogged(t, h, admin, "DeleteServer", string(sv.ID))
	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: path, Session: admin.Token}), 404, "NotFound")
}

func TestConsoleRegistrationInvites(t *testing.T) {
	t.Parallel()
	h := startAuth(t, func(c *config.Config) { c.Registration.InviteOnly = true })
	admin := h.NewUser("Admin")
	makeAdmin(t, h, admin)

	var page map[string]any
	h.Get("/admin/invites", admin.Token).JSON(t, &page)
	if page["invite_only"] != true || len(page["invites"].([]any)) != 0 {
		t.Fatalf("invites = %v", page)
	}
	create := func() string {
		res := h.Do(apitest.Request{Method: "POST", Path: "/admin/invites", Session: admin.Token})
		code, _ := res.Map(t)["_id"].(string)
		if res.Status != 200 || len(code) != 10 {
			t.Fatalf("create = %d %s", res.Status, res.Body)
		}
		return code
	}
	used, revoked := create(), create()
	wantLogged(t, h, admin, "CreateRegistrationInvite", revoked)
	email := newEmail("newcomer")
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/create",
		Body: map[string]any{"email": email, "password": goodPassword, "invite": used}}); res.Status != 204 {
		t.Fatalf("register with the code = %d %s", res.Status, res.Body)
	}
	login(t, h, email, goodPassword)

	if res := h.Do(apitest.Request{Method: "DELETE", Path: "/admin/invites/" + revoked, Session: admin.Token}); res.Status != 204 {
		t.Fatalf("revoke = %d %s", res.Status, res.Body)
	}
	wantLogged(t, h, admin, "DeleteRegistrationInvite", revoked)
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/account/create",
		Body: map[string]any{"email": newEmail("late"), "password": goodPassword, "invite": revoked}}), 400, "InvalidInvite")
	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: "/admin/invites/" + revoked, Session: admin.Token}), 404, "NotFound")
	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: "/admin/invites/" + used, Session: admin.Token}), 400, "InvalidOperation")
	h.Get("/admin/invites", admin.Token).JSON(t, &page)
	if invs := page["invites"].([]any); len(invs) != 1 || invs[0].(map[string]any)["_id"] != used || invs[0].(map[string]any)["used"] != true {
		t.Errorf("invites after = %v", invs)
	}
}

func TestConsoleAuditLog(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits)
	admin, alice, bob := h.NewUser("Admin"), h.NewUser("Alice"), h.NewUser("Bob")
	makeAdmin(t, h, admin)
	sv := newServer(t, h, alice, bob)
	storedMessage(t, h, sv.Channels[0], bob, "spam")
	if res := report(h, alice.Token, map[string]any{"type": "User", "id": string(bob.ID), "report_reason": "SpamAbuse"}, ""); res.Status != 200 {
		t.Fatalf("report = %d %s", res.Status, res.Body)
	}
	var reports []map[string]any
	h.Get("/admin/reports?status=Created", admin.Token).JSON(t, &reports)
	id := reports[0]["_id"].(string)
	res := h.Do(apitest.Request{Method: "POST", Path: "/admin/reports/" + id + "/resolve", Session: admin.Token,
		Body: map[string]any{"notes": "spammer", "action": "BanUser"}})
	if res.Status != 200 {
		t.Fatalf("resolve = %d %s", res.Status, res.Body)
	}
	res = h.Do(apitest.Request{Method: "PATCH", Path: "/admin/users/" + string(alice.ID), Session: admin.Token, Body: map[string]any{"badges": 2}})
	if res.Status != 200 {
		t.Fatalf("edit = %d %s", res.Status, res.Body)
	}

	log := adminLog(t, h, admin, "")
	var got []string
	for _, e := range log {
		if e["user"] != string(admin.ID) {
			t.Errorf("entry without its actor: %v", e)
		}
		got = append(got, e["action"].(string)+" "+e["target"].(string))
	}
	want := []string{"EditUser " + string(alice.ID), "ResolveReport " + id, "WipeUser " + string(bob.ID)}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("log = %v, want %v", got, want)
	}
	if d := log[1]["detail"].(map[string]any); d["action"] != "BanUser" || d["notes"] != "spammer" {
		t.Errorf("resolve detail = %v", d)
	}
	if older := adminLog(t, h, admin, "?before="+log[0]["_id"].(string)+"&limit=1"); len(older) != 1 || older[0]["_id"] != log[1]["_id"] {
		t.Errorf("page before = %v", older)
	}
	if mine := adminLog(t, h, admin, "?target="+string(bob.ID)); len(mine) != 1 || mine[0]["action"] != "WipeUser" {
		t.Errorf("by target = %v", mine)
	}
	wantError(t, h.Get("/admin/audit?limit=0", admin.Token), 400, "FailedValidation")
}
