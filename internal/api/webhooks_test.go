package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/perm"
)

// eventSocket is an events WebSocket of one user, read on a goroutine.
type eventSocket struct {
	c       *websocket.Conn
	packets chan map[string]any
	done    chan struct{}
	err     error
}

// connectEvents opens the events WebSocket with token and reads
// Authenticated and Ready.
func connectEvents(t *testing.T, h *apitest.Harness, token string) *eventSocket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q := url.Values{"version": {"1"}, "format": {"json"}, "token": {token}}
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.URL, "http")+"/events?"+q.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		t.Fatalf("dial events: %v", err)
	}
	c.SetReadLimit(8 << 20)
	s := &eventSocket{c: c, packets: make(chan map[string]any, 1024), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				s.err = err
				return
			}
			var p map[string]any
			if err := json.Unmarshal(b, &p); err != nil {
				s.err = err
				return
			}
			s.packets <- p
		}
	}()
	t.Cleanup(func() { c.Close(websocket.StatusNormalClosure, "") })
	for _, want := range []string{"Authenticated", "Ready"} {
		if p := s.next(t); p["type"] != want {
			t.Fatalf("got %v, want %s", p["type"], want)
		}
	}
	return s
}

func (s *eventSocket) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case p := <-s.packets:
		return p
	case <-s.done:
		t.Fatalf("events connection ended: %v", s.err)
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return nil
}

// wait skips packets until one of type typ arrives; Pong and presence
// noise is skipped, but another webhook or message event on the way
// fails the test, so events are checked in order.
func (s *eventSocket) wait(t *testing.T, typ string) map[string]any {
	t.Helper()
	for {
		p := s.next(t)
		got, _ := p["type"].(string)
		if got == typ {
			return p
		}
		if strings.HasPrefix(got, "Webhook") || strings.HasPrefix(got, "Message") {
			t.Fatalf("got %s before %s: %v", got, typ, p)
		}
	}
}

// quiet fails when a webhook or message event arrives within d.
func (s *eventSocket) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case p := <-s.packets:
			if got, _ := p["type"].(string); strings.HasPrefix(got, "Webhook") || strings.HasPrefix(got, "Message") {
				t.Fatalf("unexpected %s: %v", got, p)
			}
		case <-deadline:
			return
		}
	}
}

// webhookServer is a server whose one text channel its owner and reader
// see, and outsider, a member too, does not.
func webhookServer(t *testing.T, h *apitest.Harness, owner, reader, outsider *apitest.User) chat.ID {
	t.Helper()
	ctx := context.Background()
	st := h.Server.Store
	sv := newServer(t, h, owner, reader, outsider)
	role := chat.NewID()
	sv.Roles = map[chat.ID]chat.Role{role: {Name: "readers", Rank: 1}}
	if err := st.UpdateServer(ctx, sv); err != nil {
		t.Fatal(err)
	}
	if err := st.UpdateMember(ctx, &chat.Member{ID: chat.MemberID{Server: sv.ID, User: reader.ID}, JoinedAt: chat.Now(),
		Roles: []chat.ID{role}}); err != nil {
		t.Fatal(err)
	}
	ch, err := st.FetchChannel(ctx, sv.Channels[0])
	if err != nil {
		t.Fatal(err)
	}
	ch.DefaultPermissions = &chat.Override{D: int64(perm.ViewChannel)}
	ch.RolePermissions = map[chat.ID]chat.Override{role: {A: int64(perm.ViewChannel)}}
	if err := st.UpdateChannel(ctx, ch); err != nil {
		t.Fatal(err)
	}
	return ch.ID
}

func TestWebhooks(t *testing.T) {
	h := apitest.Start(t, apitest.NoRateLimits)
	owner, reader, outsider := h.NewUser("hookmaster"), h.NewUser("reader"), h.NewUser("outsider")
	channel := webhookServer(t, h, owner, reader, outsider)
	ownerWS, readerWS, outsiderWS := connectEvents(t, h, owner.Token), connectEvents(t, h, reader.Token), connectEvents(t, h, outsider.Token)
	sockets := []*eventSocket{ownerWS, readerWS}
	everyone := func(typ string) []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, s := range sockets {
			out = append(out, s.wait(t, typ))
		}
		return out
	}
	do := func(method, path, session string, body any) *apitest.Response {
		t.Helper()
		return h.Do(apitest.Request{Method: method, Path: path, Session: session, Body: body})
	}

	// Create, with an avatar.
	avatar := uploadRecord(t, h, owner, chat.TagAvatars)
	res := do(http.MethodPost, "/channels/"+string(channel)+"/webhooks", owner.Token, map[string]any{"name": "CI", "avatar": avatar})
	apitest.CheckSchema(t, "Webhook", res.Body)
	hook := wantOK(t, res)
	id, token := hook["id"].(string), hook["token"].(string)
	if len(token) != 64 || hook["name"] != "CI" || hook["creator_id"] != string(owner.ID) || hook["channel_id"] != string(channel) ||
		hook["permissions"] != float64(876609536) || hook["avatar"].(map[string]any)["_id"] != avatar {
		t.Fatalf("created %v", hook)
	}
	if f := fileRecord(t, h, avatar); f.UsedFor == "" {
		t.Error("the avatar upload is not marked used")
	}
	for _, ev := range everyone("WebhookCreate") {
		if ev["id"] != id || ev["name"] != "CI" || ev["token"] != nil {
			t.Errorf("WebhookCreate = %v", ev)
		}
		if _, shown := ev["token"]; !shown {
			t.Error("WebhookCreate lacks token: null")
		}
	}
	hookPath, tokenPath := "/webhooks/"+id, "/webhooks/"+id+"/"+token

	t.Run("create refused", func(t *testing.T) {
		path := "/channels/" + string(channel) + "/webhooks"
		wantError(t, do(http.MethodPost, path, reader.Token, map[string]any{"name": "mine"}), 403, "MissingPermission", "ManageWebhooks")
		wantError(t, do(http.MethodPost, path, outsider.Token, map[string]any{"name": "mine"}), 404, "NotFound")
		wantError(t, do(http.MethodPost, path, owner.Token, map[string]any{"name": ""}), 422, "FailedValidation")
		wantError(t, do(http.MethodPost, path, owner.Token, map[string]any{"name": strings.Repeat("n", 33)}), 422, "FailedValidation")
		wantError(t, do(http.MethodPost, path, owner.Token, map[string]any{"name": "x", "avatar": avatar}), 404, "NotFound") // used
		wantError(t, do(http.MethodPost, path, owner.Token, map[string]any{"name": "x", "avatar": uploadRecord(t, h, owner, chat.TagIcons)}), 404, "NotFound")
		wantError(t, do(http.MethodPost, path, "", map[string]any{"name": "x"}), 401, "NotAuthenticated")
	})

	// List and fetch: the token only to those who may manage the webhook.
	res = do(http.MethodGet, "/channels/"+string(channel)+"/webhooks", owner.Token, nil)
	var list []map[string]any
	res.JSON(t, &list)
	if res.Status != 200 || len(list) != 1 || list[0]["id"] != id || list[0]["token"] != token {
		t.Fatalf("list = %d %s", res.Status, res.Body)
	}
	wantError(t, do(http.MethodGet, "/channels/"+string(channel)+"/webhooks", reader.Token, nil), 403, "MissingPermission", "ManageWebhooks")
	res = do(http.MethodGet, hookPath, reader.Token, nil)
	apitest.CheckSchema(t, "ResponseWebhook", res.Body)
	got := wantOK(t, res)
	if _, has := got["token"]; has || got["avatar"] != avatar || got["name"] != "CI" {
		t.Errorf("fetch by session = %v", got)
	}
	wantError(t, do(http.MethodGet, hookPath, outsider.Token, nil), 404, "NotFound")
	if got := wantOK(t, do(http.MethodGet, tokenPath, "", nil)); got["token"] != token {
		t.Errorf("fetch by token = %v", got)
	}
	wantError(t, do(http.MethodGet, "/webhooks/"+id+"/"+strings.Repeat("x", 64), "", nil), 401, "NotAuthenticated")
	wantError(t, do(http.MethodGet, "/webhooks/"+string(chat.NewID())+"/"+token, "", nil), 404, "NotFound")

	// Edit with a session, then with the token.
	wantError(t, do(http.MethodPatch, hookPath, reader.Token, map[string]any{"name": "nope"}), 403, "MissingPermission", "ManageWebhooks")
	edited := wantOK(t, do(http.MethodPatch, hookPath, owner.Token, map[string]any{"name": "Builder"}))
	if edited["name"] != "Builder" || edited["token"] != token {
		t.Errorf("edit = %v", edited)
	}
	for _, ev := range everyone("WebhookUpdate") {
		data := ev["data"].(map[string]any)
		if ev["id"] != id || data["name"] != "Builder" || len(ev["remove"].([]any)) != 0 || strings.Contains(fmt.Sprint(ev), token) {
			t.Errorf("WebhookUpdate = %v", ev)
		}
	}
	wantError(t, do(http.MethodPatch, tokenPath, "", map[string]any{"permissions": 876609536 | int64(perm.ManageChannel)}),
		403, "CannotGiveMissingPermissions")
	edited = wantOK(t, do(http.MethodPatch, tokenPath, "", map[string]any{"remove": []string{"Avatar"}}))
	if _, has := edited["avatar"]; has || edited["token"] != token {
		t.Errorf("edit by token = %v", edited)
	}
	for _, ev := range everyone("WebhookUpdate") {
		if r := ev["remove"].([]any); len(r) != 1 || r[0] != "Avatar" {
			t.Errorf("WebhookUpdate = %v", ev)
		}
	}
	if f := fileRecord(t, h, avatar); f.Deleted == nil || !*f.Deleted {
		t.Error("the removed avatar is not released")
	}
	wantError(t, do(http.MethodPatch, tokenPath, "", map[string]any{"remove": []string{"Name"}}), 422, "FailedValidation")

	// A new avatar through the session edit; messages then carry its id.
	second := uploadRecord(t, h, owner, chat.TagAvatars)
	edited = wantOK(t, do(http.MethodPatch, hookPath, owner.Token, map[string]any{"avatar": second}))
	if edited["avatar"].(map[string]any)["_id"] != second {
		t.Errorf("edit avatar = %v", edited)
	}
	for _, ev := range everyone("WebhookUpdate") {
		if ev["data"].(map[string]any)["avatar"].(map[string]any)["_id"] != second {
			t.Errorf("WebhookUpdate = %v", ev)
		}
	}
	res = h.Do(apitest.Request{Method: http.MethodPost, Path: tokenPath, Body: map[string]any{"content": "with a face"},
		Header: map[string]string{"Idempotency-Key": "deploy-1"}})
	if m := wantOK(t, res); m["webhook"].(map[string]any)["avatar"] != second {
		t.Errorf("message = %v", m)
	}
	everyone("Message")
	res = h.Do(apitest.Request{Method: http.MethodPost, Path: tokenPath, Body: map[string]any{"content": "with a face"},
		Header: map[string]string{"Idempotency-Key": "deploy-1"}})
	wantError(t, res, 409, "DuplicateNonce")
	wantOK(t, do(http.MethodPatch, hookPath, owner.Token, map[string]any{"remove": []string{"Avatar"}}))
	everyone("WebhookUpdate")

	// Execute: plain, then with embeds, masquerade, a reply and reactions.
	res = do(http.MethodPost, tokenPath, "", map[string]any{"content": "build passed"})
	apitest.CheckSchema(t, "Message", res.Body)
	plain := wantOK(t, res)
	wh, _ := plain["webhook"].(map[string]any)
	if plain["author"] != id || wh["name"] != "Builder" || wh["avatar"] != nil || plain["user"] != nil {
		t.Fatalf("message = %v", plain)
	}
	for _, ev := range everyone("Message") {
		if ev["_id"] != plain["_id"] || ev["webhook"].(map[string]any)["name"] != "Builder" {
			t.Errorf("Message = %v", ev)
		}
	}
	rich := wantOK(t, do(http.MethodPost, tokenPath, "", map[string]any{
		"content":      "details",
		"embeds":       []map[string]any{{"title": "Report", "description": "all green", "colour": "#0f890f"}},
		"masquerade":   map[string]any{"name": "Release bot"},
		"replies":      []map[string]any{{"id": plain["_id"], "mention": false}},
		"interactions": map[string]any{"reactions": []string{"👍"}},
	}))
	if e := rich["embeds"].([]any)[0].(map[string]any); e["type"] != "Text" || e["title"] != "Report" ||
		rich["masquerade"].(map[string]any)["name"] != "Release bot" || rich["replies"].([]any)[0] != plain["_id"] {
		t.Errorf("rich message = %v", rich)
	}
	everyone("Message")
	msg := wantOK(t, do(http.MethodGet, "/channels/"+string(channel)+"/messages/"+plain["_id"].(string), reader.Token, nil))
	if msg["webhook"].(map[string]any)["name"] != "Builder" {
		t.Errorf("stored message = %v", msg)
	}

	t.Run("execute over its permissions", func(t *testing.T) {
		wantError(t, do(http.MethodPost, tokenPath, "", map[string]any{"attachments": []string{uploadRecord(t, h, owner, chat.TagAttachments)}}),
			403, "MissingPermission", "UploadFiles")
		wantError(t, do(http.MethodPost, tokenPath, "", map[string]any{"content": "hi", "masquerade": map[string]any{"colour": "red"}}),
			403, "MissingPermission", "ManageRole")
		wantError(t, do(http.MethodPost, tokenPath, "", map[string]any{"content": "@everyone"}), 403, "MissingPermission", "MentionEveryone")
		wantError(t, do(http.MethodPost, tokenPath, "", map[string]any{}), 422, "EmptyMessage")
		wantError(t, do(http.MethodPost, "/webhooks/"+id+"/"+strings.Repeat("y", 64), "", map[string]any{"content": "hi"}), 401, "NotAuthenticated")

		// A webhook allowed only to send: no embeds, masquerade or reactions.
		narrow := wantOK(t, do(http.MethodPost, "/channels/"+string(channel)+"/webhooks", owner.Token, map[string]any{"name": "narrow"}))
		everyone("WebhookCreate")
		narrowPath := "/webhooks/" + narrow["id"].(string)
		wantOK(t, do(http.MethodPatch, narrowPath, owner.Token, map[string]any{"permissions": int64(perm.SendMessage)}))
		if ev := everyone("WebhookUpdate"); ev[0]["data"].(map[string]any)["permissions"] != float64(perm.SendMessage) {
			t.Errorf("WebhookUpdate = %v", ev[0])
		}
		narrowToken := narrowPath + "/" + narrow["token"].(string)
		wantError(t, do(http.MethodPost, narrowToken, "", map[string]any{"embeds": []map[string]any{{"title": "x"}}}), 403, "MissingPermission", "SendEmbeds")
		wantError(t, do(http.MethodPost, narrowToken, "", map[string]any{"content": "x", "masquerade": map[string]any{"name": "y"}}), 403, "MissingPermission", "Masquerade")
		wantError(t, do(http.MethodPost, narrowToken, "", map[string]any{"content": "x", "interactions": map[string]any{"reactions": []string{"👍"}}}), 403, "MissingPermission", "React")
		wantError(t, do(http.MethodPost, narrowToken+"/github", "", nil), 400, "InvalidOperation") // no event header
		wantOK(t, do(http.MethodPatch, narrowPath, owner.Token, map[string]any{"permissions": 0}))
		everyone("WebhookUpdate")
		wantError(t, do(http.MethodPost, narrowToken, "", map[string]any{"content": "x"}), 403, "MissingPermission", "SendMessage")

		// Deleted with its token.
		if res := do(http.MethodDelete, narrowToken, "", nil); res.Status != http.StatusNoContent {
			t.Fatalf("delete by token = %d %s", res.Status, res.Body)
		}
		if ev := everyone("WebhookDelete"); ev[0]["id"] != narrow["id"] {
			t.Errorf("WebhookDelete = %v", ev[0])
		}
		wantError(t, do(http.MethodPost, narrowToken, "", map[string]any{"content": "x"}), 404, "NotFound")
	})

	t.Run("own messages", func(t *testing.T) {
		msgPath := tokenPath + "/" + plain["_id"].(string)
		res := do(http.MethodPatch, msgPath, "", map[string]any{"content": "build passed (edited)"})
		if got := wantOK(t, res); got["content"] != "build passed (edited)" || got["edited"] == nil {
			t.Errorf("edit = %v", got)
		}
		if ev := everyone("MessageUpdate"); ev[0]["id"] != plain["_id"] || ev[0]["data"].(map[string]any)["content"] != "build passed (edited)" {
			t.Errorf("MessageUpdate = %v", ev[0])
		}
		theirs := wantOK(t, do(http.MethodPost, "/channels/"+string(channel)+"/messages", owner.Token, map[string]any{"content": "mine"}))
		everyone("Message")
		wantError(t, do(http.MethodPatch, tokenPath+"/"+theirs["_id"].(string), "", map[string]any{"content": "hijack"}), 403, "CannotEditMessage")
		wantError(t, do(http.MethodDelete, tokenPath+"/"+theirs["_id"].(string), "", nil), 403, "CannotDeleteMessage")
		wantError(t, do(http.MethodDelete, "/webhooks/"+id+"/"+strings.Repeat("z", 64)+"/"+plain["_id"].(string), "", nil), 401, "NotAuthenticated")
		// Users cannot edit the webhook's message as their own.
		wantError(t, do(http.MethodPatch, "/channels/"+string(channel)+"/messages/"+rich["_id"].(string), owner.Token,
			map[string]any{"content": "x"}), 403, "CannotEditMessage")
		if res := do(http.MethodDelete, msgPath, "", nil); res.Status != http.StatusNoContent {
			t.Fatalf("delete = %d %s", res.Status, res.Body)
		}
		if ev := everyone("MessageDelete"); ev[0]["id"] != plain["_id"] {
			t.Errorf("MessageDelete = %v", ev[0])
		}
		wantError(t, do(http.MethodDelete, msgPath, "", nil), 404, "NotFound")
	})

	t.Run("github", func(t *testing.T) {
		for _, c := range githubCases() {
			res := h.Do(apitest.Request{Method: http.MethodPost, Path: tokenPath + "/github", Body: c.body,
				Header: map[string]string{"X-GitHub-Event": c.event, "Content-Type": "application/json"}})
			if res.Status != http.StatusOK || len(res.Body) != 0 {
				t.Fatalf("%s: %d %s", c.name, res.Status, res.Body)
			}
			if c.colour == "" {
				continue // the next case's Message proves nothing was posted
			}
			for _, ev := range everyone("Message") {
				embeds, _ := ev["embeds"].([]any)
				if ev["author"] != id || len(embeds) != 1 {
					t.Fatalf("%s: Message = %v", c.name, ev)
				}
				e := embeds[0].(map[string]any)
				if e["type"] != "Text" || e["colour"] != c.colour || e["title"] != "octocat" ||
					e["icon_url"] != "https://avatars.example/octocat.png" || e["url"] != "https://github.com/octocat" ||
					!strings.HasPrefix(e["description"].(string), c.want) {
					t.Errorf("%s: embed = %v, want colour %s and description starting %q", c.name, e, c.colour, c.want)
				}
			}
		}
		for _, c := range []struct{ event, body string }{
			{"deployment", `{"sender":{"login":"a"},"repository":{"full_name":"a/b"}}`},
			{"push", `{"ref": 5}`},
			{"issues", `not json`},
			{"issues", `{"action":"opened","repository":{"full_name":"a/b"}}`},
		} {
			res := h.Do(apitest.Request{Method: http.MethodPost, Path: tokenPath + "/github", Body: c.body,
				Header: map[string]string{"X-GitHub-Event": c.event}})
			wantError(t, res, 400, "InvalidOperation")
		}
		// GitHub's default content type: the JSON in the form field "payload".
		star := githubCases()[9]
		res := h.Do(apitest.Request{Method: http.MethodPost, Path: tokenPath + "/github", Body: url.Values{"payload": {star.body}}.Encode(),
			Header: map[string]string{"X-GitHub-Event": "star", "Content-Type": "application/x-www-form-urlencoded"}})
		if res.Status != http.StatusOK {
			t.Fatalf("form delivery: %d %s", res.Status, res.Body)
		}
		for _, ev := range everyone("Message") {
			if e := ev["embeds"].([]any)[0].(map[string]any); e["description"] != star.want {
				t.Errorf("form delivery: embed = %v", e)
			}
		}
		res = h.Do(apitest.Request{Method: http.MethodPost, Path: tokenPath + "/github", Body: "nopayload=1",
			Header: map[string]string{"X-GitHub-Event": "star", "Content-Type": "application/x-www-form-urlencoded"}})
		wantError(t, res, 400, "InvalidOperation")
		res = h.Do(apitest.Request{Method: http.MethodPost, Path: "/webhooks/" + id + "/" + strings.Repeat("w", 64) + "/github",
			Body: `{}`, Header: map[string]string{"X-GitHub-Event": "ping"}})
		wantError(t, res, 401, "NotAuthenticated")
	})

	// Delete with a session.
	wantError(t, do(http.MethodDelete, hookPath, reader.Token, nil), 403, "MissingPermission", "ManageWebhooks")
	if res := do(http.MethodDelete, hookPath, owner.Token, nil); res.Status != http.StatusNoContent {
		t.Fatalf("delete = %d %s", res.Status, res.Body)
	}
	if ev := everyone("WebhookDelete"); ev[0]["id"] != id {
		t.Errorf("WebhookDelete = %v", ev[0])
	}
	wantError(t, do(http.MethodGet, tokenPath, "", nil), 404, "NotFound")
	wantError(t, do(http.MethodPost, tokenPath, "", map[string]any{"content": "late"}), 404, "NotFound")

	// Nothing of this reached the member who cannot see the channel.
	outsiderWS.quiet(t, 300*time.Millisecond)
}

type githubCase struct {
	name, event string
	body        string
	colour      string // "" when nothing is posted
	want        string // start of the description
}

// githubCases are deliveries shaped like GitHub's, trimmed to a few
// fields besides the ones the embeds show.
func githubCases() []githubCase {
	const common = `"sender":{"login":"octocat","id":1,"avatar_url":"https://avatars.example/octocat.png","html_url":"https://github.com/octocat"},` +
		`"repository":{"id":2,"name":"hello","full_name":"octocat/hello","html_url":"https://github.com/octocat/hello","private":false}`
	issue := `{"number":7,"title":"Crash on start","html_url":"https://github.com/octocat/hello/issues/7","body":"It crashes.","state":"open"}`
	pr := `{"number":8,"title":"Fix crash","html_url":"https://github.com/octocat/hello/pull/8","body":"Fixes #7","draft":false}`
	return []githubCase{
		{"ping", "ping", `{"zen":"Keep it logically awesome.","hook_id":1,` + common + `}`, "", ""},
		{"push", "push", `{"ref":"refs/heads/main","before":"0000000","after":"abcdef1234567890","forced":false,` +
			`"compare":"https://github.com/octocat/hello/compare/a...b","commits":[` +
			`{"id":"abcdef1234567890","url":"https://github.com/octocat/hello/commit/abcdef1","message":"Fix the crash on start\n\nLong text","author":{"name":"Mona"}},` +
			`{"id":"1234567890abcdef","url":"https://github.com/octocat/hello/commit/1234567","message":"` + strings.Repeat("long ", 20) + `","author":{"name":"Mona"}}],` + common + `}`,
			"#279adc", "#### [[octocat/hello:main] 2 new commit](https://github.com/octocat/hello/compare/a...b)\n[`abcdef12`](https://github.com/octocat/hello/commit/abcdef1) Fix the crash on start - Mona\n"},
		{"force push", "push", `{"ref":"refs/heads/feature/x","before":"1","after":"fedcba9876543210","forced":true,` +
			`"compare":"https://github.com/octocat/hello/compare/1...f","commits":[],` + common + `}`,
			"#e73e3e", "#### [octocat/hello] Branch feature/x was force-pushed to fedcba98\n[compare changes](https://github.com/octocat/hello/compare/1...f)"},
		{"issue opened", "issues", `{"action":"opened","issue":` + issue + `,` + common + `}`,
			"#d76a34", "#### [[octocat/hello] Issue Opened #7: Crash on start](https://github.com/octocat/hello/issues/7)\nIt crashes."},
		{"issue labeled", "issues", `{"action":"labeled","issue":` + issue + `,` + common + `}`, "", ""},
		{"issue closed", "issues", `{"action":"closed","issue":` + issue + `,` + common + `}`,
			"#202224", "#### [[octocat/hello] Issue Closed #7: Crash on start](https://github.com/octocat/hello/issues/7)"},
		{"pull request opened", "pull_request", `{"action":"opened","number":8,"pull_request":` + pr + `,` + common + `}`,
			"#d76a34", "#### [[octocat/hello] Pull Request Opened #8: Fix crash](https://github.com/octocat/hello/pull/8)\nFixes #7"},
		{"pull request reopened", "pull_request", `{"action":"reopened","number":8,"pull_request":` + pr + `,` + common + `}`,
			"#0f890f", "#### [[octocat/hello] Pull Request Reopened #8: Fix crash](https://github.com/octocat/hello/pull/8)"},
		{"unstar", "star", `{"action":"deleted","starred_at":null,` + common + `}`, "", ""},
		{"star", "star", `{"action":"created","starred_at":"2026-01-01T00:00:00Z",` + common + `}`,
			"#202224", "#### [[octocat/hello] New star added](https://github.com/octocat/hello)"},
		{"issue comment", "issue_comment", `{"action":"created","issue":` + issue + `,"comment":{"body":"Same here","html_url":"https://github.com/c/1"},` + common + `}`,
			"#d9916d", "#### [[octocat/hello] New comment on issue #7: Crash on start](https://github.com/octocat/hello/issues/7)\nSame here"},
		{"branch created", "create", `{"ref":"v1.0","ref_type":"tag","master_branch":"main","pusher_type":"user",` + common + `}`,
			"#202224", "#### [octocat/hello] New tag created: v1.0"},
	}
}

func TestWebhooksGoWithTheirChannel(t *testing.T) {
	h := apitest.Start(t)
	owner := h.NewUser("groupie")
	group := createGroup(t, h, owner, map[string]any{"name": "builds"})
	gid := group["_id"].(string)
	hook := wantOK(t, h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + gid + "/webhooks", Session: owner.Token,
		Body: map[string]any{"name": "ci"}}))
	tokenPath := "/webhooks/" + hook["id"].(string) + "/" + hook["token"].(string)
	wantOK(t, h.Do(apitest.Request{Method: http.MethodGet, Path: tokenPath}))
	if res := h.Do(apitest.Request{Method: http.MethodDelete, Path: "/channels/" + gid, Session: owner.Token}); res.Status != http.StatusNoContent {
		t.Fatalf("delete group = %d %s", res.Status, res.Body)
	}
	wantError(t, h.Do(apitest.Request{Method: http.MethodGet, Path: tokenPath}), 404, "NotFound")

	// Saved messages and direct messages take no webhooks.
	saved := wantOK(t, h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/" + string(owner.ID) + "/dm", Session: owner.Token}))
	wantError(t, h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + saved["_id"].(string) + "/webhooks",
		Session: owner.Token, Body: map[string]any{"name": "ci"}}), 400, "InvalidOperation")
}

func TestWebhooksDisabled(t *testing.T) {
	h := apitest.Start(t, func(c *config.Config) { c.Webhooks.Enabled = false })
	owner := h.NewUser("switcher")
	group := createGroup(t, h, owner, map[string]any{"name": "quiet"})
	for _, req := range []apitest.Request{
		{Method: http.MethodPost, Path: "/channels/" + group["_id"].(string) + "/webhooks", Session: owner.Token, Body: map[string]any{"name": "ci"}},
		{Method: http.MethodGet, Path: "/channels/" + group["_id"].(string) + "/webhooks", Session: owner.Token},
		{Method: http.MethodGet, Path: "/webhooks/" + string(chat.NewID()), Session: owner.Token},
		{Method: http.MethodPost, Path: "/webhooks/" + string(chat.NewID()) + "/" + chat.NewToken(64), Body: map[string]any{"content": "x"}},
		{Method: http.MethodPost, Path: "/webhooks/" + string(chat.NewID()) + "/" + chat.NewToken(64) + "/github", Body: `{}`,
			Header: map[string]string{"X-GitHub-Event": "ping"}},
	} {
		if m := wantError(t, h.Do(req), 400, "FeatureDisabled"); m["feature"] != "webhooks" {
			t.Errorf("%s %s: %v", req.Method, req.Path, m)
		}
	}
}

// TestWebhookRateLimit checks the token routes fall in the default
// bucket (20 requests per 10 s), keyed by address as they carry no
// session.
func TestWebhookRateLimit(t *testing.T) {
	h := apitest.Start(t)
	owner := h.NewUser("limited")
	group := createGroup(t, h, owner, map[string]any{"name": "limits"})
	hook := wantOK(t, h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + group["_id"].(string) + "/webhooks",
		Session: owner.Token, Body: map[string]any{"name": "ci"}}))
	path := "/webhooks/" + hook["id"].(string) + "/" + hook["token"].(string)
	for i := 0; i < 20; i++ {
		res := h.Do(apitest.Request{Method: http.MethodPost, Path: path, Body: map[string]any{"content": fmt.Sprint(i)}})
		if res.Status != 200 || res.Header.Get("X-RateLimit-Limit") != "20" {
			t.Fatalf("request %d: %d, limit %q: %s", i, res.Status, res.Header.Get("X-RateLimit-Limit"), res.Body)
		}
	}
	res := h.Do(apitest.Request{Method: http.MethodGet, Path: path})
	if res.Status != http.StatusTooManyRequests {
		t.Fatalf("21st request: %d %s", res.Status, res.Body)
	}
}
