package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/server"
	"ermine/internal/testbed"
)

// otherEngine returns the configuration change that puts a node on the
// other store engine than SQLite: PostgreSQL in a fresh schema when
// ERMINE_TEST_POSTGRES is set, else SQLite again (the test then checks
// the round trip on one engine).
func otherEngine(t *testing.T) (func(*config.Config), string) {
	t.Helper()
	dsn := os.Getenv("ERMINE_TEST_POSTGRES")
	if dsn == "" {
		return func(*config.Config) {}, ""
	}
	db := testbed.Schema(t, dsn)
	return func(c *config.Config) { c.Database.URL = db }, db
}

// call sends a request and fails the test unless it answers want.
func call(t *testing.T, h *apitest.Harness, token, method, path string, body any, want int) *apitest.Response {
	t.Helper()
	res := h.Do(apitest.Request{Method: method, Path: path, Session: token, Body: body})
	if res.Status != want {
		t.Fatalf("%s %s = %d, want %d: %s", method, path, res.Status, want, res.Body)
	}
	return res
}

// uploadFile sends bytes to the file service and returns the file id.
func uploadFile(t *testing.T, h *apitest.Harness, token, tag, name string, data []byte) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, h.URL+"/autumn/"+tag, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-Session-Token", token)
	res, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("upload %s: %d %s", tag, res.StatusCode, b)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("upload %s: %v in %s", tag, err, b)
	}
	return out.ID
}

// seedInstance fills a node with an object of every kind through the API
// (and the store for what the API makes slowly), and returns the reads
// that show them: a path with the token to read it with.
func seedInstance(t *testing.T, h *apitest.Harness) []read {
	ctx := context.Background()
	alice, bob, carol := h.NewUser("Alice"), h.NewUser("Bob"), h.NewUser("Carol")
	var reads []read
	get := func(token, path string) { reads = append(reads, read{token: token, path: path}) }

	avatar := uploadFile(t, h, alice.Token, "avatars", "me.png", pngBytes(t))
	call(t, h, alice.Token, http.MethodPatch, "/users/@me", map[string]any{"avatar": avatar, "status": map[string]any{"text": "moving"},
		"profile": map[string]any{"content": "hello"}}, http.StatusOK)
	var created struct {
		Server   chat.Server    `json:"server"`
		Channels []chat.Channel `json:"channels"`
	}
	call(t, h, alice.Token, http.MethodPost, "/servers/create", map[string]any{"name": "Old Town", "description": "a server"}, http.StatusOK).JSON(t, &created)
	sid, general := string(created.Server.ID), string(created.Channels[0].ID)
	var second chat.Channel
	call(t, h, alice.Token, http.MethodPost, "/servers/"+sid+"/channels", map[string]any{"type": "Text", "name": "second", "description": "more"}, http.StatusOK).JSON(t, &second)
	var role struct {
		ID string `json:"id"`
	}
	call(t, h, alice.Token, http.MethodPost, "/servers/"+sid+"/roles", map[string]any{"name": "Mod"}, http.StatusOK).JSON(t, &role)
	call(t, h, alice.Token, http.MethodPatch, "/servers/"+sid+"/roles/"+role.ID, map[string]any{"colour": "#ff0000", "hoist": true}, http.StatusOK)
	call(t, h, alice.Token, http.MethodPatch, "/servers/"+sid, map[string]any{"categories": []map[string]any{{"id": "cat1", "title": "Main", "channels": []string{general, string(second.ID)}}}}, http.StatusOK)
	var inv struct {
		Code string `json:"_id"`
	}
	call(t, h, alice.Token, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK).JSON(t, &inv)
	call(t, h, bob.Token, http.MethodPost, "/invites/"+inv.Code, nil, http.StatusOK)
	call(t, h, carol.Token, http.MethodPost, "/invites/"+inv.Code, nil, http.StatusOK)
	call(t, h, alice.Token, http.MethodPatch, "/servers/"+sid+"/members/"+string(bob.ID), map[string]any{"nickname": "Bobby", "roles": []string{role.ID}}, http.StatusOK)
	call(t, h, alice.Token, http.MethodPut, "/servers/"+sid+"/bans/"+string(carol.ID), map[string]any{"reason": "spam"}, http.StatusOK)

	attachment := uploadFile(t, h, bob.Token, "attachments", "notes.txt", []byte("the bytes of an attachment\n"))
	var first, reply chat.Message
	call(t, h, alice.Token, http.MethodPost, "/channels/"+general+"/messages", map[string]any{"content": "welcome to the old town"}, http.StatusOK).JSON(t, &first)
	call(t, h, bob.Token, http.MethodPost, "/channels/"+general+"/messages", map[string]any{"content": "thanks <@" + string(alice.ID) + ">",
		"replies": []map[string]any{{"id": first.ID, "mention": true}}, "attachments": []string{attachment}}, http.StatusOK).JSON(t, &reply)
	call(t, h, bob.Token, http.MethodPut, "/channels/"+general+"/messages/"+string(first.ID)+"/reactions/%F0%9F%91%8D", nil, http.StatusNoContent)
	call(t, h, alice.Token, http.MethodPost, "/channels/"+general+"/messages/"+string(first.ID)+"/pin", nil, http.StatusNoContent)
	call(t, h, alice.Token, http.MethodPatch, "/channels/"+general+"/messages/"+string(first.ID), map[string]any{"content": "welcome to the old town!"}, http.StatusOK)
	for i := range 30 {
		call(t, h, alice.Token, http.MethodPost, "/channels/"+string(second.ID)+"/messages", map[string]any{"content": fmt.Sprintf("history %d", i)}, http.StatusOK)
	}
	call(t, h, bob.Token, http.MethodPut, "/channels/"+general+"/ack/"+string(first.ID), nil, http.StatusNoContent)

	for _, pair := range [][2]chat.ID{{alice.ID, bob.ID}, {bob.ID, alice.ID}} {
		if err := h.Server.Store.SetRelationship(ctx, pair[0], pair[1], chat.RelationFriend); err != nil {
			t.Fatal(err)
		}
	}
	var dm chat.Channel
	call(t, h, alice.Token, http.MethodGet, "/users/"+string(bob.ID)+"/dm", nil, http.StatusOK).JSON(t, &dm)
	call(t, h, alice.Token, http.MethodPost, "/channels/"+string(dm.ID)+"/messages", map[string]any{"content": "a private word"}, http.StatusOK)
	var group chat.Channel
	call(t, h, alice.Token, http.MethodPost, "/channels/create", map[string]any{"name": "the group", "users": []string{string(bob.ID)}}, http.StatusOK).JSON(t, &group)
	call(t, h, bob.Token, http.MethodPost, "/channels/"+string(group.ID)+"/messages", map[string]any{"content": "in the group"}, http.StatusOK)
	var groupInv struct {
		Code string `json:"_id"`
	}
	call(t, h, alice.Token, http.MethodPost, "/channels/"+string(group.ID)+"/invites", nil, http.StatusOK).JSON(t, &groupInv)
	call(t, h, alice.Token, http.MethodPost, "/sync/settings/set", map[string]any{"theme": `{"dark":true}`}, http.StatusNoContent)
	var bot struct {
		ID    string `json:"_id"`
		Token string `json:"token"`
	}
	call(t, h, alice.Token, http.MethodPost, "/bots/create", map[string]any{"name": "helperbot"}, http.StatusOK).JSON(t, &bot)
	// The bot joins and speaks: its message must stay a bot's (search's
	// author_type), which the API's message shape does not show.
	call(t, h, alice.Token, http.MethodPost, "/bots/"+bot.ID+"/invite", map[string]any{"server": sid}, http.StatusNoContent)
	var botMsg chat.Message
	res := h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + general + "/messages", Bot: bot.Token,
		Body: map[string]any{"content": "beep from the bot"}})
	if res.Status != http.StatusOK {
		t.Fatalf("bot message = %d %s", res.Status, res.Body)
	}
	res.JSON(t, &botMsg)
	var hook struct {
		ID string `json:"id"`
	}
	call(t, h, alice.Token, http.MethodPost, "/channels/"+general+"/webhooks", map[string]any{"name": "hook"}, http.StatusOK).JSON(t, &hook)
	emoji := uploadFile(t, h, alice.Token, "emojis", "e.png", pngBytes(t))
	call(t, h, alice.Token, http.MethodPut, "/custom/emoji/"+emoji, map[string]any{"name": "town", "parent": map[string]any{"type": "Server", "id": sid}}, http.StatusOK)
	// An emoji outlives its deleted server (detached).
	var gone struct {
		Server chat.Server `json:"server"`
	}
	call(t, h, alice.Token, http.MethodPost, "/servers/create", map[string]any{"name": "Gone"}, http.StatusOK).JSON(t, &gone)
	detached := uploadFile(t, h, alice.Token, "emojis", "d.png", pngBytes(t))
	call(t, h, alice.Token, http.MethodPut, "/custom/emoji/"+detached, map[string]any{"name": "gone", "parent": map[string]any{"type": "Server", "id": gone.Server.ID}}, http.StatusOK)
	call(t, h, alice.Token, http.MethodDelete, "/servers/"+string(gone.Server.ID), nil, http.StatusNoContent)
	if err := h.Server.Store.SetRelationship(ctx, alice.ID, carol.ID, chat.RelationFriend); err != nil {
		t.Fatal(err)
	}
	if err := h.Server.Store.SetRelationship(ctx, carol.ID, alice.ID, chat.RelationFriend); err != nil {
		t.Fatal(err)
	}

	for _, u := range []*apitest.User{alice, bob, carol} {
		get(u.Token, "/users/@me")
		get(u.Token, "/users/dms")
		get(u.Token, "/sync/unreads")
		get(u.Token, "/auth/account/")
		get(u.Token, "/auth/session/all")
		get(alice.Token, "/users/"+string(u.ID))
		get(alice.Token, "/users/"+string(u.ID)+"/profile")
		get(alice.Token, "/users/"+string(u.ID)+"/flags")
	}
	for _, ch := range []string{general, string(second.ID), string(dm.ID), string(group.ID)} {
		get(alice.Token, "/channels/"+ch)
		get(alice.Token, "/channels/"+ch+"/messages?include_users=true&limit=100")
	}
	get(alice.Token, "/channels/"+string(group.ID)+"/members")
	get(alice.Token, "/channels/"+general+"/webhooks")
	get(alice.Token, "/channels/"+general+"/messages/"+string(reply.ID))
	get(alice.Token, "/servers/"+sid)
	get(alice.Token, "/servers/"+sid+"/members")
	get(alice.Token, "/servers/"+sid+"/members/"+string(bob.ID))
	get(alice.Token, "/servers/"+sid+"/bans")
	get(alice.Token, "/servers/"+sid+"/invites")
	get(alice.Token, "/servers/"+sid+"/emojis")
	get(alice.Token, "/servers/"+sid+"/roles/"+role.ID)
	get(alice.Token, "/servers/"+sid+"/audit_logs")
	get(alice.Token, "/invites/"+inv.Code)
	get(alice.Token, "/custom/emoji/"+emoji)
	reads = append(reads, read{token: alice.Token, path: "/custom/emoji/" + detached, contains: "Detached"},
		read{token: bob.Token, path: "/invites/" + groupInv.Code, contains: string(group.ID)})
	get(alice.Token, "/bots/@me")
	get(alice.Token, "/bots/"+bot.ID)
	get(alice.Token, "/webhooks/"+hook.ID)
	get(alice.Token, "/users/"+string(bob.ID)+"/mutual")
	reads = append(reads, read{token: alice.Token, path: "/search", contains: string(botMsg.ID),
		body: map[string]any{"server": sid, "filters": map[string]any{"author_type": []string{"Bot"}}}})
	reads = append(reads, read{token: alice.Token, path: "/sync/settings/fetch", body: map[string]any{"keys": []string{"theme"}}})
	reads = append(reads, read{token: alice.Token, path: "/channels/" + string(second.ID) + "/search", body: map[string]any{"query": "history", "sort": "Oldest"}})
	reads = append(reads, read{file: "/autumn/attachments/" + attachment + "/notes.txt"}, read{file: "/autumn/avatars/" + avatar + "/me.png"},
		read{file: "/autumn/emojis/" + emoji + "/e.png"})
	return reads
}

// read is one API answer the round trip compares.
type read struct {
	token, path string
	body        any    // POST with this body when set
	contains    string // the answer before the export must hold this
	file        string // a file download, compared byte for byte
}

func (r read) do(t *testing.T, h *apitest.Harness) (int, []byte) {
	t.Helper()
	if r.file != "" {
		res, err := h.Client.Get(h.URL + r.file)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	req := apitest.Request{Method: http.MethodGet, Path: r.path, Session: r.token}
	if r.body != nil {
		req.Method, req.Body = http.MethodPost, r.body
	}
	res := h.Do(req)
	return res.Status, res.Body
}

// pngBytes is a small valid PNG.
func pngBytes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "files", "testdata", "pixel.png"))
	if err == nil {
		return b
	}
	// 1x1 transparent PNG.
	return []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x03\x00\x08\xfc\x02\xfe\xa7\x9a\xa0\xa0\x00\x00\x00\x00IEND\xaeB`\x82")
}

// TestExportImportRoundTrip exports an instance holding an object of
// every kind, imports it into an empty instance on the other store
// engine, and compares every API answer and file.
func TestExportImportRoundTrip(t *testing.T) {
	dirA := t.TempDir()
	// The instance is seeded by one node, stopped (which writes what it
	// keeps in memory, such as channels' last messages), and read by a
	// fresh node on the same data.
	var reads []read
	t.Run("seed", func(t *testing.T) {
		seed := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) { c.Data = dirA })
		reads = seedInstance(t, seed)
	})
	if t.Failed() {
		t.FailNow()
	}
	a := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) { c.Data = dirA })
	want := make([][]byte, len(reads))
	for i, r := range reads {
		status, body := r.do(t, a)
		if status != http.StatusOK {
			t.Fatalf("before export: %s%s = %d %s", r.path, r.file, status, body)
		}
		if r.contains != "" && !bytes.Contains(body, []byte(r.contains)) {
			t.Fatalf("before export: %s lacks %s: %s", r.path, r.contains, body)
		}
		want[i] = body
	}

	for _, form := range []string{"export.tar.gz", "export-dir/"} {
		t.Run(strings.Trim(form, "/"), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), form)
			out, err := ermine(t, "--data", dirA, "export", file)
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			if !strings.Contains(out, "exported to") {
				t.Errorf("export printed %q", out)
			}
			engine, dsn := otherEngine(t)
			dirB := t.TempDir()
			args := []string{"--data", dirB}
			if dsn != "" {
				args = append(args, "--config", writeDatabaseConfig(t, dsn))
			}
			out, err = ermine(t, append(args, "import", "bulk", file)...)
			if err != nil {
				t.Fatalf("import bulk: %v\n%s", err, out)
			}
			// A second import into the now full instance is refused.
			if _, err := ermine(t, append(args, "import", "bulk", file)...); err == nil || !strings.Contains(err.Error(), "not empty") {
				t.Errorf("second import: %v, want a refusal", err)
			}
			b := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) { c.Data = dirB }, engine)
			for i, r := range reads {
				status, body := r.do(t, b)
				if status != http.StatusOK {
					t.Errorf("after import: %s%s = %d %s", r.path, r.file, status, body)
					continue
				}
				if r.file != "" {
					if !bytes.Equal(body, want[i]) {
						t.Errorf("file %s: %d bytes differ from the original's %d", r.file, len(body), len(want[i]))
					}
					continue
				}
				if g, w := normal(t, body), normal(t, want[i]); g != w {
					t.Errorf("%s differs after the round trip:\n got %s\nwant %s", r.path, g, w)
				}
			}
		})
	}
}

// writeDatabaseConfig writes a configuration file naming the database.
func writeDatabaseConfig(t *testing.T, dsn string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ermine.toml")
	if err := os.WriteFile(p, []byte(fmt.Sprintf("[database]\nurl = %q\n", dsn)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// normal re-encodes JSON with sorted keys, and drops what differs by
// nature between two nodes (online state).
func normal(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestExportOneServer exports a single server and imports it into an
// empty instance: the server, its channels and history arrive, and its
// people as imported authors without a login, ready to be claimed.
func TestExportOneServer(t *testing.T) {
	dirA := t.TempDir()
	var reads []read
	t.Run("seed", func(t *testing.T) {
		seed := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) { c.Data = dirA })
		reads = seedInstance(t, seed)
	})
	if t.Failed() {
		t.FailNow()
	}
	var sid chat.ID
	for _, r := range reads {
		if rest, ok := strings.CutPrefix(r.path, "/servers/"); ok && sid == "" {
			sid = chat.ID(strings.Split(rest, "/")[0])
		}
	}
	file := filepath.Join(t.TempDir(), "one.tar")
	if _, err := ermine(t, "--data", dirA, "export", "--server", string(sid), file); err != nil {
		t.Fatalf("export --server: %v", err)
	}
	dirB := t.TempDir()
	if out, err := ermine(t, "--data", dirB, "import", "bulk", file); err != nil {
		t.Fatalf("import bulk: %v\n%s", err, out)
	}
	cfg := config.Default()
	cfg.Data = dirB
	st, err := server.OpenStore(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.FetchServer(t.Context(), sid)
	if err != nil {
		t.Fatalf("the server did not arrive: %v", err)
	}
	n, err := st.CountObjects(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n.Accounts != 0 || n.Channels != len(s.Channels) || n.Messages != 34 {
		t.Errorf("counts %+v: want no account, the server's %d channels and its 34 messages", n, len(s.Channels))
	}
	members, err := st.FetchMembers(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		u, err := st.FetchUser(t.Context(), m.ID.User)
		if err != nil {
			t.Fatalf("member %s has no user: %v", m.ID.User, err)
		}
		if u.Bot == nil && u.Flags&chat.UserFlagImported == 0 { // bots stay bots
			t.Errorf("user %s arrived without the imported flag", u.Username)
		}
	}
}
