package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pquerna/otp/totp"
	"go.mongodb.org/mongo-driver/v2/bson"

	"ermine/internal/apitest"
	"ermine/internal/config"
	"ermine/internal/importer/revolt/revolttest"
	"ermine/internal/testbed"
)

// target is an empty instance to import into: a data directory and, for
// PostgreSQL, a database URL.
type target struct {
	name string
	data string
	db   string
}

func (tg target) env() func(string) string {
	return env(map[string]string{"ERMINE_DATABASE_URL": tg.db})
}

func (tg target) option(c *config.Config) {
	c.Data = tg.data
	c.Database.URL = tg.db
	c.Limits.RateLimits = false
}

// targets returns SQLite and, with ERMINE_TEST_POSTGRES, a fresh
// PostgreSQL schema.
func targets(t *testing.T) []target {
	ts := []target{{name: "sqlite", data: t.TempDir()}}
	dsn := os.Getenv("ERMINE_TEST_POSTGRES")
	if dsn == "" {
		return ts
	}
	return append(ts, target{name: "postgres", data: t.TempDir(), db: testbed.Schema(t, dsn)})
}

func importArgs(tg target, f *revolttest.Fixture, extra ...string) []string {
	args := []string{"--data", tg.data, "import", "revolt", "--dump", f.Dump, "--files", f.Files, "--encryption-key", f.Key}
	return append(args, extra...)
}

// TestImportRevolt imports generated dumps of every layout into each
// store, then reads everything back through the API and the WebSocket of
// a node started on the result.
func TestImportRevolt(t *testing.T) {
	layouts := []struct {
		name string
		opt  revolttest.Options
	}{
		{"current", revolttest.Options{Messages: 250}},
		{"legacy", revolttest.Options{Legacy: true, Messages: 30, Gzip: true}},
		{"archive", revolttest.Options{Messages: 30, Archive: true, Gzip: true}},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			f, err := revolttest.Write(t.TempDir(), l.opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, tg := range targets(t) {
				t.Run(tg.name, func(t *testing.T) {
					var out, errOut bytes.Buffer
					if err := run(t.Context(), importArgs(tg, f), tg.env(), &out, &errOut); err != nil {
						t.Fatalf("import: %v\n%s", err, errOut.String())
					}
					for _, want := range []string{"messages", "left out: MFA tickets", "left out: left the server", "ratelimit_events", "unknown field legacy_theme ignored"} {
						if !strings.Contains(out.String(), want) {
							t.Errorf("report lacks %q:\n%s", want, out.String())
						}
					}
					checkImported(t, apitest.Start(t, tg.option), f)
				})
			}
		})
	}
}

func checkImported(t *testing.T, h *apitest.Harness, f *revolttest.Fixture) {
	t.Helper()
	// The old password logs in.
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"email": f.AliceEmail, "password": f.Password, "friendly_name": "after the move"}})
	m := res.Map(t)
	if res.Status != 200 || m["result"] != "Success" || m["user_id"] != string(f.Alice) {
		t.Fatalf("alice's login = %d %s", res.Status, res.Body)
	}
	// Bob's account asks for his TOTP, which still works.
	res = h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"email": f.BobEmail, "password": f.Password}})
	m = res.Map(t)
	if res.Status != 200 || m["result"] != "MFA" {
		t.Fatalf("bob's login = %d %s, want MFA", res.Status, res.Body)
	}
	code, err := totp.GenerateCode(f.TOTPSecret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	res = h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"mfa_ticket": m["ticket"], "mfa_response": map[string]any{"totp_code": code}}})
	m = res.Map(t)
	if res.Status != 200 || m["result"] != "Success" {
		t.Fatalf("bob's TOTP = %d %s", res.Status, res.Body)
	}
	bobToken, _ := m["token"].(string)
	// Carol's account is disabled.
	res = h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"email": "carol@example.com", "password": f.Password}})
	if res.Status == 200 {
		t.Errorf("disabled carol logged in: %s", res.Body)
	}

	// The old session token and the bot token work.
	tok := f.SessionToken
	me := h.Get("/users/@me", tok).Map(t)
	if me["_id"] != string(f.Alice) || me["username"] != "alice" || me["display_name"] != "Alice A." || me["pronouns"] != "she/her" {
		t.Errorf("@me = %v", me)
	}
	if av, _ := me["avatar"].(map[string]any); av == nil || av["_id"] != f.Avatar {
		t.Errorf("avatar = %v", me["avatar"])
	}
	res = h.Do(apitest.Request{Method: "GET", Path: "/users/@me", Bot: f.BotToken})
	if m := res.Map(t); res.Status != 200 || m["_id"] != string(f.BotUser) {
		t.Errorf("bot @me = %d %s", res.Status, res.Body)
	}
	sessions := h.Get("/auth/session/all", tok)
	if !strings.Contains(string(sessions.Body), "Firefox on Linux") {
		t.Errorf("sessions = %s", sessions.Body)
	}
	rel := h.Get("/users/"+string(f.Bob), tok).Map(t)
	if rel["relationship"] != "Friend" {
		t.Errorf("alice→bob relationship = %v", rel["relationship"])
	}
	bots := h.Get("/bots/"+string(f.BotUser), tok).Map(t)
	if b, _ := bots["bot"].(map[string]any); b == nil || b["interactions_url"] != "https://bot.example.com/hook" || b["token"] != f.BotToken {
		t.Errorf("bot = %v", bots)
	}

	// The server, its roles, channels and members.
	srv := h.Get("/servers/"+string(f.Server), tok).Map(t)
	roles, _ := srv["roles"].(map[string]any)
	admin, _ := roles[string(f.Admin)].(map[string]any)
	if srv["name"] != "Moving Day" || admin == nil || admin["colour"] != "linear-gradient(30deg, #ff0000, #0000ff)" {
		t.Errorf("server = %v", srv)
	}
	if icon, _ := srv["icon"].(map[string]any); icon == nil || icon["_id"] != f.Icon {
		t.Errorf("server icon = %v", srv["icon"])
	}
	gen := h.Get("/channels/"+string(f.General), tok).Map(t)
	if gen["name"] != "general" || gen["slowmode"] != float64(5) {
		t.Errorf("general = %v", gen)
	}
	voice := h.Get("/channels/"+string(f.Voice), tok).Map(t)
	if voice["channel_type"] != "TextChannel" || voice["voice"] == nil {
		t.Errorf("voice channel = %v", voice)
	}
	mem := h.Get("/servers/"+string(f.Server)+"/members/"+string(f.Bob), tok).Map(t)
	if mem["nickname"] != "bobby" || mem["joined_at"] != "2025-03-02T10:00:00.000Z" {
		t.Errorf("bob's membership = %v", mem)
	}
	for _, u := range []string{string(f.Alice), string(f.BotUser)} {
		mem := h.Get("/servers/"+string(f.Server)+"/members/"+u, tok).Map(t)
		if mem["joined_at"] != "2025-03-02T10:00:00.000Z" {
			t.Errorf("%s joined_at = %v (every encoding of the same instant)", u, mem["joined_at"])
		}
	}
	if res := h.Get("/servers/"+string(f.Server)+"/members/"+string(f.Carol), tok); res.Status != 404 {
		t.Errorf("carol (left, pending deletion) is a member: %d", res.Status)
	}
	bans := h.Get("/servers/"+string(f.Server)+"/bans", tok)
	if !strings.Contains(string(bans.Body), "spam") {
		t.Errorf("bans = %s", bans.Body)
	}
	perms := h.Get("/channels/"+string(f.DM), tok).Map(t)
	if perms["channel_type"] != "DirectMessage" {
		t.Errorf("dm = %v", perms)
	}
	if inv := h.Get("/invites/"+f.Invite, "").Map(t); inv["server_id"] != string(f.Server) {
		t.Errorf("invite = %v", inv)
	}

	// Permissions in effect: bob is timed out until tomorrow, alice owns
	// the server.
	res = h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(f.General) + "/messages", Session: bobToken,
		Body: map[string]any{"content": "am I muted?"}})
	if res.Status != 403 {
		t.Errorf("timed-out bob sent a message: %d %s", res.Status, res.Body)
	}
	res = h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(f.General) + "/messages", Session: tok,
		Body: map[string]any{"content": "first message after the move"}})
	if res.Status != 200 {
		t.Errorf("alice's message = %d %s", res.Status, res.Body)
	}
	sent := res.Map(t)["_id"]
	// Bob's read state and his mention came over.
	unreads := h.Get("/sync/unreads", bobToken)
	if !strings.Contains(string(unreads.Body), string(f.Reply)) || !strings.Contains(string(unreads.Body), string(f.Pinned)) {
		t.Errorf("bob's unreads = %s", unreads.Body)
	}
	settings := h.Do(apitest.Request{Method: "POST", Path: "/sync/settings/fetch", Session: tok, Body: map[string]any{"keys": []string{"theme"}}})
	if !strings.Contains(string(settings.Body), "#fd6671") {
		t.Errorf("alice's settings = %s", settings.Body)
	}
	if e := h.Get("/custom/emoji/"+string(f.Emoji), tok).Map(t); e["name"] != "party" {
		t.Errorf("emoji = %v", e)
	}
	if wh := h.Get("/webhooks/"+string(f.Webhook)+"/"+f.WebhookToken, "").Map(t); wh["name"] != "CI" {
		t.Errorf("webhook by token = %v", wh)
	}

	// Reports with their snapshots (alice is privileged) and the audit log.
	reports := string(h.Get("/admin/reports", tok).Body)
	for _, want := range []string{"it pinged me", "Rejected", `"_type":"Message"`, string(f.Reply)} {
		if !strings.Contains(reports, want) {
			t.Errorf("admin reports lack %s: %s", want, reports)
		}
	}
	if audit := string(h.Get("/servers/"+string(f.Server)+"/audit_logs", tok).Body); !strings.Contains(audit, "BanCreate") {
		t.Errorf("audit log = %s", audit)
	}

	// History, page by page, oldest first.
	var got []string
	after := ""
	for {
		path := "/channels/" + string(f.General) + "/messages?limit=100&sort=Oldest"
		if after != "" {
			path += "&after=" + after
		}
		var page []map[string]any
		h.Get(path, tok).JSON(t, &page)
		if len(page) == 0 {
			break
		}
		for _, m := range page {
			got = append(got, m["_id"].(string))
		}
		after = got[len(got)-1]
	}
	if len(got) == len(f.Messages)+1 && got[len(got)-1] == sent {
		got = got[:len(got)-1] // the one alice just sent
	}
	if len(got) != len(f.Messages) {
		t.Fatalf("history has %d messages, want %d", len(got), len(f.Messages))
	}
	for i, id := range f.Messages {
		if got[i] != string(id) {
			t.Fatalf("history[%d] = %s, want %s", i, got[i], id)
		}
	}
	pin := h.Get("/channels/"+string(f.General)+"/messages/"+string(f.Pinned), tok).Map(t)
	reactions, _ := pin["reactions"].(map[string]any)
	atts, _ := pin["attachments"].([]any)
	if pin["pinned"] != true || pin["edited"] == nil || len(reactions) != 2 || len(atts) != 1 {
		t.Errorf("pinned message = %v", pin)
	}
	reply := h.Get("/channels/"+string(f.General)+"/messages/"+string(f.Reply), tok).Map(t)
	if mq, _ := reply["masquerade"].(map[string]any); mq == nil || mq["name"] != "Helper Bot" || fmt.Sprint(reply["replies"]) != "["+string(f.Pinned)+"]" {
		t.Errorf("reply = %v", reply)
	}
	hook := h.Get("/channels/"+string(f.General)+"/messages/"+string(f.ByHook), tok).Map(t)
	if wh, _ := hook["webhook"].(map[string]any); wh == nil || wh["name"] != "CI" {
		t.Errorf("webhook message = %v", hook)
	}
	sys := h.Get("/channels/"+string(f.General)+"/messages/"+string(f.System), tok).Map(t)
	if s, _ := sys["system"].(map[string]any); s == nil || s["type"] != "user_joined" {
		t.Errorf("system message = %v", sys)
	}

	// File bytes are the originals.
	for id, want := range f.FileBytes() {
		tag := "attachments"
		switch id {
		case f.Avatar:
			tag = "avatars"
		case f.Icon:
			tag = "icons"
		}
		resp, err := http.Get(h.URL + "/autumn/" + tag + "/" + id + "/original")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(body, want) {
			t.Errorf("file %s/%s = %d, %d bytes; want the %d original bytes", tag, id, resp.StatusCode, len(body), len(want))
		}
	}

	// The events WebSocket: Ready with the imported server and channels.
	ready := readyFrame(t, h, tok)
	for _, want := range []string{string(f.Server), string(f.General), string(f.DM), string(f.Bob), "Moving Day"} {
		if !strings.Contains(ready, want) {
			t.Errorf("Ready lacks %s", want)
		}
	}
}

// readyFrame connects to the events WebSocket with token and returns the
// Ready frame.
func readyFrame(t *testing.T, h *apitest.Harness, token string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(h.URL, "http") + "/events?" + url.Values{"version": {"1"}, "format": {"json"}, "token": {token}}.Encode()
	c, _, err := websocket.Dial(ctx, u, nil) //nolint:bodyclose // coder/websocket closes it
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.CloseNow() }()
	c.SetReadLimit(16 << 20)
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("events: %v", err)
		}
		if strings.Contains(string(b[:min(len(b), 40)]), `"Ready"`) {
			return string(b)
		}
	}
}

// TestImportRevoltInterrupted cuts the messages file short, so the import
// stops after committing some batches; with the file whole again the same
// command resumes and ends with every message once.
func TestImportRevoltInterrupted(t *testing.T) {
	f, err := revolttest.Write(t.TempDir(), revolttest.Options{Messages: 3000})
	if err != nil {
		t.Fatal(err)
	}
	msgs := f.Dump + "/revolt/messages.bson"
	whole, err := os.ReadFile(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(msgs, whole[:len(whole)*3/4], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(t.Context(), importArgs(tg, f), tg.env(), &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), "collection messages") || !strings.Contains(err.Error(), "truncated") ||
				!strings.Contains(err.Error(), "run the same command again") {
				t.Fatalf("import of a truncated dump = %v", err)
			}
			// The instance is marked unfinished: the server will not start.
			if _, err := apitest.TryStart(t, tg.option); err == nil || !strings.Contains(err.Error(), "import revolt --dump") {
				t.Fatalf("start on an unfinished import = %v", err)
			}
			if err := os.WriteFile(msgs, whole, 0o644); err != nil {
				t.Fatal(err)
			}
			out.Reset()
			errOut.Reset()
			if err := run(t.Context(), importArgs(tg, f), tg.env(), &out, &errOut); err != nil {
				t.Fatalf("resumed import: %v\n%s", err, errOut.String())
			}
			if !strings.Contains(errOut.String(), "resuming") {
				t.Errorf("second run did not resume:\n%s", errOut.String())
			}
			checkImported(t, apitest.Start(t, tg.option), f)
			// Put the short file back for the next target.
			if err := os.WriteFile(msgs, whole[:len(whole)*3/4], 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestImportRevoltRefusals covers the inputs the import refuses.
func TestImportRevoltRefusals(t *testing.T) {
	f, err := revolttest.Write(t.TempDir(), revolttest.Options{Messages: 3})
	if err != nil {
		t.Fatal(err)
	}
	tg := target{name: "sqlite", data: t.TempDir()}

	wrong := append([]string(nil), importArgs(tg, f)...)
	wrong[len(wrong)-1] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	err = run(t.Context(), wrong, tg.env(), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "collection attachments") || !strings.Contains(err.Error(), "encryption_key") {
		t.Fatalf("import with a wrong key = %v", err)
	}
	noKey := importArgs(tg, f)[:len(importArgs(tg, f))-2]
	if err := run(t.Context(), noKey, tg.env(), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "pass --encryption-key") {
		t.Fatalf("import without the key = %v", err)
	}
	if err := run(t.Context(), importArgs(tg, f), tg.env(), io.Discard, io.Discard); err != nil {
		t.Fatalf("import with the right key after a wrong one: %v", err)
	}
	// Once imported the instance is not empty.
	err = run(t.Context(), importArgs(tg, f), tg.env(), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("import into a non-empty instance = %v", err)
	}

	old, err := revolttest.Write(t.TempDir(), revolttest.Options{Revision: 25})
	if err != nil {
		t.Fatal(err)
	}
	err = run(t.Context(), importArgs(target{data: t.TempDir()}, old), env(nil), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "too old") || !strings.Contains(err.Error(), "revision 25") {
		t.Fatalf("import of a revision 25 dump = %v", err)
	}

	bad, err := revolttest.Write(t.TempDir(), revolttest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A users document whose username is a number: an unknown shape.
	users := bad.Dump + "/revolt/users.bson"
	b, _ := os.ReadFile(users)
	odd, err := bson.Marshal(bson.D{{Key: "_id", Value: "oops"}, {Key: "username", Value: int32(7)}})
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, odd...)
	if err := os.WriteFile(users, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = run(t.Context(), importArgs(target{data: t.TempDir()}, bad), env(nil), &out, io.Discard)
	if err != nil {
		t.Fatalf("import with an odd user: %v", err)
	}
	if !strings.Contains(out.String(), "unknown shape") || !strings.Contains(out.String(), "oops") {
		t.Errorf("report does not name the odd user:\n%s", out.String())
	}
}
