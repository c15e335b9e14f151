package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	natstest "github.com/nats-io/nats-server/v2/test"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	ermineserver "ermine/internal/server"
	"ermine/internal/store"
)

// runningNode starts a node on dir, as `ermine --data dir` would, with
// the in-process bus: the admin command must reach it through the store.
func runningNode(t *testing.T, dir string) *apitest.Harness {
	t.Helper()
	return apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) {
		c.Data = dir
		c.Passwords = config.Passwords{MemoryKiB: 64, Passes: 1}
	})
}

func TestAdminCommandWhileServing(t *testing.T) {
	dir := t.TempDir()
	h := runningNode(t, dir)
	ctx := context.Background()
	alice, bob := h.NewUser("Alice"), h.NewUser("Bob")
	ch := &chat.Channel{ID: chat.NewID(), ChannelType: chat.ChannelSavedMessages, User: bob.ID}
	if err := h.Server.Store.InsertChannel(ctx, ch); err != nil {
		t.Fatal(err)
	}
	content := "a note to self"
	if err := h.Server.Store.InsertMessage(ctx, &chat.Message{ID: chat.NewID(), Channel: ch.ID, Author: bob.ID, Content: &content}); err != nil {
		t.Fatal(err)
	}
	if err := h.Server.Store.InsertFile(ctx, &chat.FileRecord{File: chat.File{ID: "bobs-upload", Tag: "attachments",
		Filename: "cat.png", ContentType: "image/png"}, Hash: "h", UploaderID: bob.ID, UploadedAt: chat.Now()}); err != nil {
		t.Fatal(err)
	}
	sock := h.Connect(bob.Token)
	// send posts a note as Bob and removes it again, so that the counts
	// and the export below see the one message stored above.
	send := func() int {
		res := h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(ch.ID) + "/messages",
			Session: bob.Token, Body: map[string]any{"content": "note"}})
		if res.Status == http.StatusOK {
			if err := h.Server.Store.DeleteMessage(ctx, chat.ID(res.Map(t)["_id"].(string))); err != nil {
				t.Fatal(err)
			}
		}
		return res.Status
	}
	for range 2 { // the second send is answered from the node's access cache
		if status := send(); status != http.StatusOK {
			t.Fatalf("send before disable = %d", status)
		}
	}

	// Disabling from the command line logs the running node's sockets out.
	out, err := ermine(t, "--data", dir, "admin", "disable", "Bob#"+bob.Discriminator)
	if err != nil {
		t.Fatalf("admin disable: %v", err)
	}
	if !strings.Contains(out, string(bob.ID)) {
		t.Errorf("disable printed %q", out)
	}
	sock.Expect("Logout")
	if res := h.Get("/users/@me", bob.Token); res.Status != http.StatusUnauthorized {
		t.Errorf("session after disable = %d", res.Status)
	}
	// The node's access cache hears of the ended sessions through the
	// relay too, as soon as its sockets do (within the relay's interval).
	for deadline := time.Now().Add(5 * time.Second); send() != http.StatusUnauthorized; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a send after disable was still accepted")
		}
	}
	if _, err := ermine(t, "--data", dir, "admin", "enable", string(bob.ID)); err != nil {
		t.Fatalf("admin enable: %v", err)
	}

	// Privilege opens the admin API.
	if res := h.Get("/admin/stats", alice.Token); res.Status != http.StatusForbidden {
		t.Fatalf("stats before grant = %d", res.Status)
	}
	if _, err := ermine(t, "--data", dir, "admin", "grant-privileged", string(alice.ID)); err != nil {
		t.Fatalf("grant: %v", err)
	}
	if res := h.Get("/admin/stats", alice.Token); res.Status != http.StatusOK {
		t.Fatalf("stats after grant = %d %s", res.Status, res.Body)
	}
	if _, err := ermine(t, "--data", dir, "admin", "revoke-privileged", string(alice.ID)); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	if res := h.Get("/admin/stats", alice.Token); res.Status != http.StatusForbidden {
		t.Fatalf("stats after revoke = %d", res.Status)
	}

	// Listing, showing and counting.
	out, err = ermine(t, "--data", dir, "admin", "users", "ali")
	if err != nil || !strings.Contains(out, string(alice.ID)) || strings.Contains(out, string(bob.ID)) {
		t.Errorf("users ali = %q, %v", out, err)
	}
	out, err = ermine(t, "--data", dir, "admin", "stats")
	var counts map[string]int
	if err != nil || json.Unmarshal([]byte(out), &counts) != nil || counts["users"] != 2 || counts["messages"] != 1 {
		t.Errorf("stats = %q, %v", out, err)
	}

	// A reset link that the reset route takes.
	out, err = ermine(t, "--data", dir, "admin", "reset-password", string(bob.ID))
	if err != nil || !strings.Contains(out, "/login/reset/") {
		t.Fatalf("reset-password = %q, %v", out, err)
	}
	token := strings.TrimSpace(out[strings.LastIndex(out, "/")+1:])
	if res := h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/reset_password",
		Body: map[string]any{"token": token, "password": "a brand new passphrase"}}); res.Status != http.StatusNoContent {
		t.Fatalf("reset with the printed link = %d %s", res.Status, res.Body)
	}
	// A password from stdin.
	stdin = strings.NewReader("another good passphrase\n")
	t.Cleanup(func() { stdin = os.Stdin })
	if _, err := ermine(t, "--data", dir, "admin", "reset-password", "--stdin", string(bob.ID)); err != nil {
		t.Fatalf("reset-password --stdin: %v", err)
	}
	acc, err := h.Server.Store.FetchAccount(ctx, bob.ID)
	if err != nil || !strings.HasPrefix(acc.PasswordHash, "$argon2id$") {
		t.Fatalf("account after reset = %+v, %v", acc, err)
	}
	stdin = strings.NewReader("short\n")
	if _, err := ermine(t, "--data", dir, "admin", "reset-password", "--stdin", string(bob.ID)); err == nil {
		t.Error("a weak password was accepted")
	}

	// Export: everything about Bob, without secrets.
	file := filepath.Join(t.TempDir(), "bob.json")
	if _, err := ermine(t, "--data", dir, "admin", "export", string(bob.ID), file); err != nil {
		t.Fatalf("export: %v", err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var x map[string]any
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	if msgs := x["messages"].([]any); len(msgs) != 1 || msgs[0].(map[string]any)["content"] != content {
		t.Errorf("exported messages = %v", x["messages"])
	}
	if ups := x["uploads"].([]any); len(ups) != 1 || ups[0].(map[string]any)["filename"] != "cat.png" {
		t.Errorf("exported uploads = %v", x["uploads"])
	}
	if x["user"].(map[string]any)["username"] != "Bob" || x["account"].(map[string]any)["email"] != bob.Email {
		t.Errorf("export = %s", raw)
	}
	if strings.Contains(string(raw), bob.Token) || strings.Contains(string(raw), "argon2") {
		t.Error("the export holds a secret")
	}

	// Wipe and reports from the command line.
	if err := h.Server.Store.SetRelationship(ctx, alice.ID, bob.ID, chat.RelationFriend); err != nil {
		t.Fatal(err)
	}
	if err := h.Server.Store.SetRelationship(ctx, bob.ID, alice.ID, chat.RelationFriend); err != nil {
		t.Fatal(err)
	}
	sock = h.Connect(alice.Token) // follows Bob now
	if res := h.Do(apitest.Request{Method: "POST", Path: "/safety/report", Session: alice.Token,
		Body: map[string]any{"content": map[string]any{"type": "User", "id": string(bob.ID), "report_reason": "SpamAbuse"}}}); res.Status != 200 {
		t.Fatalf("report = %d %s", res.Status, res.Body)
	}
	out, err = ermine(t, "--data", dir, "admin", "reports", "Created")
	if err != nil || !strings.Contains(out, string(bob.ID)) {
		t.Fatalf("reports = %q, %v", out, err)
	}
	id := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1])[0]
	if out, err := ermine(t, "--data", dir, "admin", "resolve", "--note", "spammer", "--action", "BanUser", id); err != nil {
		t.Fatalf("resolve: %q, %v", out, err)
	}
	if p := sock.Expect("UserPlatformWipe"); p["user_id"] != string(bob.ID) {
		t.Errorf("wipe = %v", p)
	}
	if _, err := ermine(t, "--data", dir, "admin", "wipe", string(chat.NewID()), "ban"); err == nil {
		t.Error("wiping an unknown user succeeded")
	}
	if _, err := ermine(t, "--data", dir, "admin", "frobnicate"); err == nil {
		t.Error("an unknown admin command succeeded")
	}
}

func TestVapidGenerate(t *testing.T) {
	out, err := ermine(t, "vapid", "generate")
	if err != nil {
		t.Fatal(err)
	}
	// The printed pair is a valid [push] section.
	f := filepath.Join(t.TempDir(), "push.toml")
	if err := os.WriteFile(f, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ermine(t, "--config", f, "--data", t.TempDir(), "config"); err != nil {
		t.Fatalf("the generated keys do not validate: %v\n%s", err, out)
	}
}

// reads are the API answers a restored instance must give unchanged.
func reads(t *testing.T, h *apitest.Harness, token string, server, channel chat.ID) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, p := range []string{"/users/@me", "/users/dms", "/servers/" + string(server), "/channels/" + string(channel),
		"/channels/" + string(channel) + "/messages?include_users=true", "/servers/" + string(server) + "/members",
		"/auth/session/all", "/sync/unreads", "/auth/account/"} {
		res := h.Get(p, token)
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", p, res.Status, res.Body)
		}
		var v any
		res.JSON(t, &v)
		out[p] = v
	}
	return out
}

func TestBackupRestore(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	h := runningNode(t, src)
	alice, bob := h.NewUser("Alice"), h.NewUser("Bob")
	res := h.Do(apitest.Request{Method: "POST", Path: "/servers/create", Session: alice.Token, Body: map[string]any{"name": "Den"}})
	if res.Status != 200 {
		t.Fatalf("create server = %d %s", res.Status, res.Body)
	}
	server := chat.ID(res.Map(t)["server"].(map[string]any)["_id"].(string))
	channel := chat.ID(res.Map(t)["channels"].([]any)[0].(map[string]any)["_id"].(string))
	inv := h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(channel) + "/invites", Session: alice.Token}).Map(t)
	if res := h.Do(apitest.Request{Method: "POST", Path: "/invites/" + inv["_id"].(string), Session: bob.Token}); res.Status != 200 {
		t.Fatalf("join = %d %s", res.Status, res.Body)
	}
	for _, m := range []struct {
		token, text string
	}{{alice.Token, "hello"}, {bob.Token, "hi <@" + string(alice.ID) + ">"}, {alice.Token, "welcome"}} {
		if res := h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(channel) + "/messages", Session: m.token,
			Body: map[string]any{"content": m.text}}); res.Status != 200 {
			t.Fatalf("send = %d %s", res.Status, res.Body)
		}
	}
	if res := h.Do(apitest.Request{Method: "PUT", Path: "/users/" + string(bob.ID) + "/friend", Session: alice.Token}); res.Status != 200 {
		t.Fatalf("friend = %d %s", res.Status, res.Body)
	}
	// An upload's bytes, as the disk store keeps them.
	blob := filepath.Join(src, "files", "ab", "abcdef")
	if err := os.MkdirAll(filepath.Dir(blob), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob, []byte("picture bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The channel's newest message is written in the background; wait
	// for it so the reads below are what the backup holds.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if h.Get("/channels/"+string(channel), alice.Token).Map(t)["last_message_id"] != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("last_message_id never written")
		}
	}
	want := reads(t, h, alice.Token, server, channel)
	wantBob := reads(t, h, bob.Token, server, channel)

	// Backed up while serving.
	plain := filepath.Join(t.TempDir(), "ermine.db")
	archive := filepath.Join(t.TempDir(), "ermine.tar.gz")
	if _, err := ermine(t, "--data", src, "backup", plain); err != nil {
		t.Fatalf("backup: %v", err)
	}
	if _, err := ermine(t, "--data", src, "backup", "--files", archive); err != nil {
		t.Fatalf("backup --files: %v", err)
	}
	if _, err := ermine(t, "--data", src, "backup", archive); err == nil {
		t.Error("backup overwrote an existing file")
	}
	// Both hold every password hash and private message: the owner's only.
	for _, f := range []string{plain, archive} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("backup %s: mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
	// Each backup is in the instance's audit log, for the console's warning.
	taken, err := h.Server.Store.FetchAdminActions(context.Background(), store.AdminActionQuery{Target: "backup", Limit: 10})
	if err != nil || len(taken) != 2 || taken[0].Action != "Backup" || taken[0].Detail["file"] != archive {
		t.Errorf("recorded backups = %+v, %v", taken, err)
	}

	// Restored into an empty data directory, served again.
	if out, err := ermine(t, "--data", dst, "restore", archive); err != nil {
		t.Fatalf("restore: %v", err)
	} else if !strings.Contains(out, "1 files") {
		t.Errorf("restore printed %q", out)
	}
	if _, err := ermine(t, "--data", dst, "restore", archive); err == nil {
		t.Error("restore replaced a database without --force")
	}
	if b, err := os.ReadFile(filepath.Join(dst, "files", "ab", "abcdef")); err != nil || string(b) != "picture bytes" {
		t.Errorf("restored upload = %q, %v", b, err)
	}
	r := runningNode(t, dst)
	// Restoring under a running server would leave it on the old
	// database, losing whatever it writes next: refused.
	if _, err := ermine(t, "--data", dst, "restore", "--force", plain); !errors.Is(err, ermineserver.ErrDataDirInUse) {
		t.Errorf("restore --force into a served directory: %v", err)
	}
	if got := reads(t, r, alice.Token, server, channel); !reflect.DeepEqual(got, want) {
		t.Errorf("restored answers differ for Alice:\n got %v\nwant %v", got, want)
	}
	if got := reads(t, r, bob.Token, server, channel); !reflect.DeepEqual(got, wantBob) {
		t.Errorf("restored answers differ for Bob:\n got %v\nwant %v", got, wantBob)
	}

	// The plain copy restores too (over the previous one, with --force).
	other := t.TempDir()
	if _, err := ermine(t, "--data", other, "restore", plain); err != nil {
		t.Fatalf("restore plain: %v", err)
	}
	junk := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(junk, []byte("not a database at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ermine(t, "--data", t.TempDir(), "restore", junk); err == nil {
		t.Error("restoring junk succeeded")
	}
}

// TestAdminCommandOverNATS: with a shared bus, the command publishes its
// events there, and the node relays nothing from the store.
func TestAdminCommandOverNATS(t *testing.T) {
	opts := natstest.DefaultTestOptions
	opts.Port = -1
	srv := natstest.RunServer(&opts)
	t.Cleanup(srv.Shutdown)
	dir := t.TempDir()
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) {
		c.Data = dir
		c.Bus = config.Bus{Kind: config.BusNATS, URL: srv.ClientURL()}
	})
	bob := h.NewUser("Bob")
	sock := h.Connect(bob.Token)
	env := map[string]string{"ERMINE_BUS_KIND": "nats", "ERMINE_BUS_URL": srv.ClientURL()}
	var out, errOut strings.Builder
	if err := run(context.Background(), []string{"--data", dir, "admin", "disable", string(bob.ID)},
		func(k string) string { return env[k] }, &out, &errOut); err != nil {
		t.Fatalf("admin disable: %v\n%s", err, errOut.String())
	}
	if strings.Contains(out.String(), "in-process") {
		t.Errorf("over NATS the command said %q", out.String())
	}
	sock.Expect("Logout")
	evs, err := h.Server.Store.TakeRelayEvents(context.Background(), 10, time.Now().Add(-time.Minute))
	if err != nil || len(evs) != 0 {
		t.Errorf("relayed events over NATS = %v, %v", evs, err)
	}
}

// TestAdminCommandRelayWhateverTheBus: a command run with the in-process
// bus (it writes its events into the store) reaches clients of a node on
// NATS, which takes them out and publishes them there; run with no node
// serving, the command says plainly that no one is told now.
func TestAdminCommandRelayWhateverTheBus(t *testing.T) {
	opts := natstest.DefaultTestOptions
	opts.Port = -1
	srv := natstest.RunServer(&opts)
	t.Cleanup(srv.Shutdown)
	dir := t.TempDir()
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) {
		c.Data = dir
		c.Bus = config.Bus{Kind: config.BusNATS, URL: srv.ClientURL()}
	})
	bob := h.NewUser("Bob")
	sock := h.Connect(bob.Token)
	out, err := ermine(t, "--data", dir, "admin", "disable", string(bob.ID))
	if err != nil {
		t.Fatalf("admin disable: %v", err)
	}
	if !strings.Contains(out, "running server passes this on") {
		t.Errorf("with a node serving the command said %q", out)
	}
	sock.Expect("Logout")

	idle := t.TempDir()
	cfg := config.Default()
	cfg.Data = idle
	st, err := ermineserver.OpenStore(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	carol := &chat.User{ID: chat.NewID(), Username: "carol", Discriminator: "0001"}
	if err := st.InsertUser(t.Context(), carol); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, err = ermine(t, "--data", idle, "admin", "badges", string(carol.ID), "1")
	if err != nil {
		t.Fatalf("admin disable: %v", err)
	}
	if !strings.Contains(out, "no server is running") {
		t.Errorf("with no node serving the command said %q", out)
	}
}
