package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
)

// env is a node for the server tests, without rate limits: the tests call
// one server's routes far more often than its bucket allows.
type env struct {
	h *apitest.Harness
}

func newEnv(t *testing.T, opts ...apitest.Option) *env {
	t.Helper()
	return &env{h: apitest.Start(t, append([]apitest.Option{apitest.NoRateLimits}, opts...)...)}
}

// withLimits changes the app's limits of a test node.
func withLimits(f func(l *config.Limits)) apitest.Option {
	return func(c *config.Config) { f(&c.Limits) }
}

// call sends a request as u (no token when nil) and checks its status.
func (e *env) call(t *testing.T, u *apitest.User, method, path string, body any, want int) *apitest.Response {
	t.Helper()
	req := apitest.Request{Method: method, Path: path, Body: body}
	if u != nil {
		req.Session = u.Token
	}
	res := e.h.Do(req)
	if res.Status != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, res.Status, res.Body, want)
	}
	return res
}

// fail sends a request and checks it is refused with status and error
// type; for MissingPermission and TooMany* the extra field is checked too
// (permission name or max).
func (e *env) fail(t *testing.T, u *apitest.User, method, path string, body any, status int, typ string, extra ...any) {
	t.Helper()
	res := e.call(t, u, method, path, body, status)
	m := res.Map(t)
	if m["type"] != typ {
		t.Fatalf("%s %s = %s, want type %s", method, path, res.Body, typ)
	}
	if len(extra) == 0 {
		return
	}
	key := "permission"
	if _, ok := extra[0].(int); ok {
		key = "max"
	}
	if fmt.Sprint(m[key]) != fmt.Sprint(extra[0]) {
		t.Fatalf("%s %s = %s, want %s %v", method, path, res.Body, key, extra[0])
	}
}

// server creates a server owned by u and returns its id and the id of
// its General channel.
func (e *env) server(t *testing.T, u *apitest.User, name string) (string, string) {
	t.Helper()
	res := e.call(t, u, http.MethodPost, "/servers/create", map[string]any{"name": name}, http.StatusOK)
	var out struct {
		Server   chat.Server    `json:"server"`
		Channels []chat.Channel `json:"channels"`
	}
	res.JSON(t, &out)
	return string(out.Server.ID), string(out.Channels[0].ID)
}

// join makes u a member of server sid directly in the store, with roles.
func (e *env) join(t *testing.T, sid string, u *apitest.User, roles ...string) {
	t.Helper()
	m := &chat.Member{ID: chat.MemberID{Server: chat.ID(sid), User: u.ID}, JoinedAt: chat.Now()}
	for _, r := range roles {
		m.Roles = append(m.Roles, chat.ID(r))
	}
	if err := e.h.Server.Store.InsertMember(context.Background(), m); err != nil {
		t.Fatalf("join: %v", err)
	}
}

// member reads a membership from the store.
func (e *env) member(t *testing.T, sid string, u *apitest.User) *chat.Member {
	t.Helper()
	m, err := e.h.Server.Store.FetchMember(context.Background(), chat.ID(sid), u.ID)
	if err != nil {
		t.Fatalf("member: %v", err)
	}
	return m
}

// role creates a role through the API as owner with the given server
// permissions allowed and returns its id.
func (e *env) role(t *testing.T, owner *apitest.User, sid, name string, allow uint64) string {
	t.Helper()
	res := e.call(t, owner, http.MethodPost, "/servers/"+sid+"/roles", map[string]any{"name": name}, http.StatusOK)
	id := res.Map(t)["id"].(string)
	if allow != 0 {
		e.call(t, owner, http.MethodPut, "/servers/"+sid+"/permissions/"+id,
			map[string]any{"permissions": map[string]any{"allow": allow, "deny": 0}}, http.StatusOK)
	}
	return id
}

// channel creates a text channel through the API as u.
func (e *env) channel(t *testing.T, u *apitest.User, sid, name string) string {
	t.Helper()
	res := e.call(t, u, http.MethodPost, "/servers/"+sid+"/channels", map[string]any{"name": name}, http.StatusOK)
	return res.Map(t)["_id"].(string)
}

// fetchServer reads a server through the API as u.
func (e *env) fetchServer(t *testing.T, u *apitest.User, sid string) *chat.Server {
	t.Helper()
	var s chat.Server
	e.call(t, u, http.MethodGet, "/servers/"+sid, nil, http.StatusOK).JSON(t, &s)
	return &s
}

// upload inserts an unused upload record of tag, as the file service
// would after an upload, and returns its id.
func (e *env) upload(t *testing.T, u *apitest.User, tag, contentType string) string {
	t.Helper()
	id := string(chat.NewID())
	side := 64
	if tag != chat.TagEmojis {
		id = chat.NewToken(42)
	}
	f := &chat.FileRecord{File: chat.File{ID: id, Tag: tag, Filename: "f", ContentType: contentType, Size: 10,
		Metadata: chat.Metadata{Type: "Image", Width: &side, Height: &side}}, Hash: chat.NewToken(64), UploaderID: u.ID, UploadedAt: chat.Now()}
	if err := e.h.Server.Store.InsertFile(context.Background(), f); err != nil {
		t.Fatalf("upload: %v", err)
	}
	return id
}

// bot inserts a bot user owned by owner and returns it with its token.
func (e *env) bot(t *testing.T, owner *apitest.User, name string) *apitest.User {
	t.Helper()
	ctx := context.Background()
	id := chat.NewID()
	token := chat.NewToken(64)
	st := e.h.Server.Store
	if err := st.InsertUser(ctx, &chat.User{ID: id, Username: name, Discriminator: "0001",
		Bot: &chat.BotInformation{Owner: owner.ID}}); err != nil {
		t.Fatalf("bot: %v", err)
	}
	if err := st.InsertBot(ctx, &chat.Bot{ID: id, Owner: owner.ID, Token: token}); err != nil {
		t.Fatalf("bot: %v", err)
	}
	return &apitest.User{ID: id, Username: name, Token: token} // Token is the bot token
}

// asBot sends a request with a bot token.
func (e *env) asBot(t *testing.T, token, method, path string, body any) *apitest.Response {
	t.Helper()
	return e.h.Do(apitest.Request{Method: method, Path: path, Body: body, Bot: token})
}

// override is a request override.
func override(allow, deny uint64) map[string]any {
	return map[string]any{"permissions": map[string]any{"allow": allow, "deny": deny}}
}
