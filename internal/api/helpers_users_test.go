package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"golang.org/x/crypto/argon2"

	"ermine/internal/apitest"
	"ermine/internal/chat"
)

// The helpers below set up state directly in the store, so a test spends
// its requests (and rate-limit windows) on the route it checks.

// freshSession logs u in once more and returns the new token: each
// session has its own rate-limit windows.
func freshSession(t *testing.T, h *apitest.Harness, u *apitest.User) string {
	t.Helper()
	tok := chat.NewToken(64)
	if err := h.Server.Store.InsertSession(context.Background(),
		&chat.Session{ID: chat.NewID(), UserID: u.ID, Token: tok, Name: "extra"}); err != nil {
		t.Fatal(err)
	}
	return tok
}

// setRelation stores both sides of a relationship.
func setRelation(t *testing.T, h *apitest.Harness, a, b chat.ID, ab, ba chat.RelationshipStatus) {
	t.Helper()
	ctx := context.Background()
	if err := h.Server.Store.SetRelationship(ctx, a, b, ab); err != nil {
		t.Fatal(err)
	}
	if err := h.Server.Store.SetRelationship(ctx, b, a, ba); err != nil {
		t.Fatal(err)
	}
}

// relation reads a's stored status toward b.
func relation(t *testing.T, h *apitest.Harness, a, b chat.ID) chat.RelationshipStatus {
	t.Helper()
	st, err := h.Server.Store.FetchRelationship(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// befriend makes two users friends.
func befriend(t *testing.T, h *apitest.Harness, a, b *apitest.User) {
	t.Helper()
	setRelation(t, h, a.ID, b.ID, chat.RelationFriend, chat.RelationFriend)
}

// setPassword gives u's account an argon2id password.
func setPassword(t *testing.T, h *apitest.Harness, u *apitest.User, password string) {
	t.Helper()
	ctx := context.Background()
	acc, err := h.Server.Store.FetchAccount(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	salt := []byte("ermine-test-salt")
	key := argon2.IDKey([]byte(password), salt, 1, 64, 1, 32)
	acc.PasswordHash = fmt.Sprintf("$argon2id$v=19$m=64,t=1,p=1$%s$%s",
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
	if err := h.Server.Store.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
}

// uploadRecord stores an unused upload with tag, as the file service
// would after an upload by u, and returns its id.
func uploadRecord(t *testing.T, h *apitest.Harness, u *apitest.User, tag string) string {
	t.Helper()
	id := chat.NewToken(42)
	w, hgt := 64, 64
	rec := &chat.FileRecord{
		File: chat.File{ID: id, Tag: tag, Filename: "picture.png", ContentType: "image/png", Size: 1234,
			Metadata: chat.Metadata{Type: "Image", Width: &w, Height: &hgt}},
		Hash: chat.NewToken(64), UploaderID: u.ID, UploadedAt: chat.Now(),
	}
	if err := h.Server.Store.InsertFile(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return id
}

// fileRecord reads a stored upload.
func fileRecord(t *testing.T, h *apitest.Harness, id string) *chat.FileRecord {
	t.Helper()
	f, err := h.Server.Store.FetchFile(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// newServer stores a server owned by owner with members (owner included).
func newServer(t *testing.T, h *apitest.Harness, owner *apitest.User, members ...*apitest.User) *chat.Server {
	t.Helper()
	ctx := context.Background()
	st := h.Server.Store
	sv := &chat.Server{ID: chat.NewID(), Owner: owner.ID, Name: "Burrow", Channels: []chat.ID{},
		DefaultPermissions: 4000322560}
	ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: sv.ID, Name: "general"}
	sv.Channels = append(sv.Channels, ch.ID)
	if err := st.InsertServer(ctx, sv); err != nil {
		t.Fatal(err)
	}
	if err := st.InsertChannel(ctx, ch); err != nil {
		t.Fatal(err)
	}
	for _, m := range append([]*apitest.User{owner}, members...) {
		if err := st.InsertMember(ctx, &chat.Member{ID: chat.MemberID{Server: sv.ID, User: m.ID}, JoinedAt: chat.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	return sv
}

// newBotUser stores a bot owned by owner and returns its user and token.
func newBotUser(t *testing.T, h *apitest.Harness, owner *apitest.User, name string) (*chat.User, string) {
	t.Helper()
	ctx := context.Background()
	id := chat.NewID()
	u := &chat.User{ID: id, Username: name, Discriminator: "0042", Bot: &chat.BotInformation{Owner: owner.ID}}
	if err := h.Server.Store.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	tok := chat.NewToken(64)
	if err := h.Server.Store.InsertBot(ctx, &chat.Bot{ID: id, Owner: owner.ID, Token: tok}); err != nil {
		t.Fatal(err)
	}
	return u, tok
}

// wantError checks a response is the error typ with status (and names
// the missing permission when one is given).
func wantError(t *testing.T, res *apitest.Response, status int, typ string, permission ...string) map[string]any {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status = %d, want %d: %s", res.Status, status, res.Body)
	}
	m := res.Map(t)
	if m["type"] != typ {
		t.Fatalf("error type = %v, want %s: %s", m["type"], typ, res.Body)
	}
	if len(permission) > 0 && m["permission"] != permission[0] {
		t.Fatalf("permission = %v, want %s", m["permission"], permission[0])
	}
	return m
}

// wantOK checks a response is 200 and returns its object.
func wantOK(t *testing.T, res *apitest.Response) map[string]any {
	t.Helper()
	if res.Status != http.StatusOK {
		t.Fatalf("status = %d, want 200: %s", res.Status, res.Body)
	}
	return res.Map(t)
}

// jsonOf encodes v as JSON.
func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }
