package e2e_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/vmihailenco/msgpack/v5"

	"ermine/internal/apitest"
	"ermine/internal/config"

	"ermine/internal/testbed"
)

// TestHostileInput is the hostile-input campaign, bounded and on
// loopback: mutated bodies for the JSON routes, hostile paths and
// queries, malformed WebSocket packets in both formats and hostile
// uploads, against an in-process node on SQLite and, when
// ERMINE_TEST_POSTGRES is set (always in CI), on PostgreSQL. Every answer
// must be below 500 and, for errors, a JSON error body; afterwards the
// node must still serve requests and events. The inputs the first
// campaign found to differ between the stores (NUL in text, in ids and in
// tokens) must get the same answer on both.
func TestHostileInput(t *testing.T) {
	var sqliteLog, postgresLog, labels []string
	t.Run("stores", func(t *testing.T) {
		t.Run("sqlite", func(t *testing.T) {
			t.Parallel()
			sqliteLog, labels = campaign(t, apitest.Start(t, apitest.NoRateLimits))
		})
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			db := testbed.Database(t, testbed.Postgres(t))
			postgresLog, _ = campaign(t, apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) { c.Database.URL = db }))
		})
	})
	// The campaign is deterministic, so both stores must have given the
	// same status to every request.
	if sqliteLog == nil || postgresLog == nil {
		return
	}
	if len(sqliteLog) != len(postgresLog) {
		t.Fatalf("sqlite answered %d requests, postgres %d", len(sqliteLog), len(postgresLog))
	}
	diffs := 0
	for i := range sqliteLog {
		if sqliteLog[i] != postgresLog[i] {
			if diffs++; diffs <= 10 {
				t.Errorf("request %d (%s): sqlite %s, postgres %s", i, labels[i], sqliteLog[i], postgresLog[i])
			}
		}
	}
}

// world is what the campaign's requests refer to.
type world struct {
	h                            *apitest.Harness
	token, user, server, ch, msg string
	hook                         string // /webhooks/{id}/{token}
	client                       *http.Client
	requests                     int
	statuses                     map[int]int
	log                          []string // "method (n-byte body) → status" of every request, in order
	labels                       []string // the requests themselves, for messages
}

// campaign runs every part against h and returns the log of answers.
func campaign(t *testing.T, h *apitest.Harness) (log, labels []string) {
	start := time.Now()
	w := setup(t, h)
	t.Run("findings", w.findings)
	t.Run("mutated bodies", w.mutatedBodies)
	t.Run("hostile paths", w.hostilePaths)
	t.Run("websocket", func(t *testing.T) {
		for _, format := range []string{"json", "msgpack"} {
			w.websocket(t, format)
		}
	})
	t.Run("uploads", w.uploads)
	t.Run("password change logs out other sockets", w.passwordChange)
	t.Run("still serving", w.stillServing)
	t.Logf("%d requests in %v; answers by status: %v", w.requests, time.Since(start).Round(time.Millisecond), w.statuses)
	if t.Failed() {
		return nil, nil
	}
	return w.log, w.labels
}

func setup(t *testing.T, h *apitest.Harness) *world {
	u := h.NewUser("Mallory")
	w := &world{h: h, token: u.Token, user: string(u.ID), client: &http.Client{Timeout: 20 * time.Second},
		statuses: map[int]int{}}
	res := w.must(t, "POST", "/servers/create", `{"name":"target"}`)
	w.server = str(res, "server", "_id")
	w.ch = str(res, "channels", "0", "_id")
	w.msg = str(w.must(t, "POST", "/channels/"+w.ch+"/messages", `{"content":"first"}`), "_id")
	hook := w.must(t, "POST", "/channels/"+w.ch+"/webhooks", `{"name":"hook"}`)
	w.hook = "/webhooks/" + str(hook, "id") + "/" + str(hook, "token")
	return w
}

// answer is one response of the campaign.
type answer struct {
	status int
	ctype  string
	body   []byte
}

// do sends a request with the world's session and checks the campaign's
// invariants: no 5xx, and an error is a JSON object with a type.
func (w *world) do(t *testing.T, method, path string, body []byte) answer {
	t.Helper()
	return w.doWith(t, method, path, body, nil)
}

// doWith is do with extra request headers.
func (w *world) doWith(t *testing.T, method, path string, body []byte, header map[string]string) answer {
	t.Helper()
	w.requests++
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, w.h.URL+path, rd)
	if err != nil {
		return answer{} // a URL net/http will not send
	}
	req.Header.Set("X-Session-Token", w.token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := w.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	a := answer{res.StatusCode, res.Header.Get("Content-Type"), b}
	w.check(t, method+" "+path, body, a)
	return a
}

func (w *world) check(t *testing.T, what string, body []byte, a answer) {
	t.Helper()
	w.statuses[a.status]++
	// ids differ between runs; the status and the shape of the request do not
	w.log = append(w.log, fmt.Sprintf("%s (%d-byte body) → %d", strings.SplitN(what, " ", 2)[0], len(body), a.status))
	w.labels = append(w.labels, fmt.Sprintf("%s %.120q", what, body))
	if a.status >= 500 {
		t.Errorf("%s with %.200q: %d %s", what, body, a.status, a.body)
		return
	}
	if a.status >= 400 {
		var m map[string]any
		if !strings.HasPrefix(a.ctype, "application/json") || json.Unmarshal(a.body, &m) != nil || m["type"] == nil {
			t.Errorf("%s with %.200q: %d answered %q %.200q, not a JSON error body", what, body, a.status, a.ctype, a.body)
		}
	}
}

func (w *world) must(t *testing.T, method, path, body string) map[string]any {
	t.Helper()
	a := w.do(t, method, path, []byte(body))
	var m map[string]any
	if a.status != 200 || json.Unmarshal(a.body, &m) != nil {
		t.Fatalf("%s %s = %d %s", method, path, a.status, a.body)
	}
	return m
}

// findings are the inputs the first campaign answered differently on the
// two stores (500 on PostgreSQL): now the same validation error on both.
func (w *world) findings(t *testing.T) {
	for _, tc := range []struct {
		method, path, body string
		status             int
		field              string // named at the start of the message
	}{
		{"POST", "/channels/" + w.ch + "/messages", `{"content":"a\u0000b"}`, 422, "content"},
		{"PATCH", "/channels/" + w.ch + "/messages/" + w.msg, `{"content":"a\u0000b"}`, 422, "content"},
		{"POST", "/channels/" + w.ch + "/messages", `{"content":"x","replies":[{"id":"\u0000","mention":false}]}`, 422, "replies[0].id"},
		{"POST", "/channels/" + w.ch + "/messages", `{"content":"x","replies":[{"id":"not-an-id","mention":false}]}`, 422, "replies[0].id"},
		{"POST", "/sync/settings/set", `{"theme":"da\u0000rk"}`, 422, "theme"},
		{"POST", "/sync/settings/fetch", `{"keys":["theme","\u0000"]}`, 422, "keys[1]"},
		{"PATCH", "/auth/account/reset_password", `{"token":"abc\u0000","password":"long enough password here"}`, 422, "token"},
		{"GET", "/channels/%00/messages", ``, 404, ""},
		{"GET", "/channels/" + w.ch + "/messages?before=%00", ``, 422, "before"},
		{"GET", "/autumn/attachments/%00", ``, 404, ""},
		{"GET", "/invites/%C0%AF", ``, 404, ""},
		{"POST", w.hook, `{"content":"a\u0000b"}`, 422, "content"},
		{"POST", w.hook + "/github", `{"sender":{"login":"a\u0000"},"repository":{"full_name":"x/y"},"starred_at":"now","action":"created"}`, 422, "sender.login"},
	} {
		a := w.doWith(t, tc.method, tc.path, []byte(tc.body), map[string]string{"X-GitHub-Event": "star"})
		var m map[string]any
		_ = json.Unmarshal(a.body, &m)
		if a.status != tc.status {
			t.Errorf("%s %s %s = %d %s, want %d", tc.method, tc.path, tc.body, a.status, a.body, tc.status)
			continue
		}
		if tc.field != "" {
			if msg, _ := m["error"].(string); m["type"] != "FailedValidation" || !strings.HasPrefix(msg, tc.field+": ") {
				t.Errorf("%s %s %s = %s, want FailedValidation naming %s", tc.method, tc.path, tc.body, a.body, tc.field)
			}
		}
	}
	// Nothing of it was stored.
	page := w.do(t, "GET", "/channels/"+w.ch+"/messages?limit=100", nil)
	if bytes.Contains(page.body, []byte(`\u0000`)) {
		t.Errorf("a NUL reached the history: %s", page.body)
	}
}

// jsonRoutes are the JSON routes the campaign mutates, with a valid body
// each. Routes that would end the campaign's session are left out.
func (w *world) jsonRoutes() [][3]string {
	return [][3]string{
		{"POST", "/channels/" + w.ch + "/messages", `{"content":"hello <@` + w.user + `>","replies":[{"id":"` + w.msg + `","mention":true}],"embeds":[{"title":"t","description":"d"}],"masquerade":{"name":"m"},"interactions":{"reactions":["👍"]}}`},
		{"PATCH", "/channels/" + w.ch + "/messages/" + w.msg, `{"content":"edited","embeds":[]}`},
		{"POST", "/channels/" + w.ch + "/search", `{"query":"hello","limit":10,"sort":"Latest"}`},
		{"DELETE", "/channels/" + w.ch + "/messages/bulk", `{"ids":["` + w.msg + `"]}`},
		{"PATCH", "/channels/" + w.ch, `{"name":"renamed","description":"d","nsfw":false}`},
		{"PUT", "/channels/" + w.ch + "/permissions/default", `{"permissions":{"allow":0,"deny":0}}`},
		{"POST", "/channels/create", `{"name":"group","users":[]}`},
		{"POST", "/servers/create", `{"name":"another","description":"x"}`},
		{"PATCH", "/servers/" + w.server, `{"name":"renamed","categories":[{"id":"c1","title":"cat","channels":["` + w.ch + `"]}]}`},
		{"POST", "/servers/" + w.server + "/channels", `{"type":"Text","name":"more"}`},
		{"POST", "/servers/" + w.server + "/roles", `{"name":"role","rank":1}`},
		{"PUT", "/servers/" + w.server + "/permissions/default", `{"permissions":0}`},
		{"PATCH", "/servers/" + w.server + "/members/" + w.user, `{"nickname":"nick","roles":[]}`},
		{"PUT", "/servers/" + w.server + "/bans/" + w.user, `{"reason":"r"}`},
		{"POST", "/sync/settings/set?timestamp=5", `{"theme":"dark","ordering":"{\"a\":1}"}`},
		{"POST", "/sync/settings/fetch", `{"keys":["theme","ordering"]}`},
		{"PATCH", "/users/@me", `{"status":{"text":"hi","presence":"Online"},"profile":{"content":"bio"}}`},
		{"POST", "/users/friend", `{"username":"nobody#0001"}`},
		{"POST", "/bots/create", `{"name":"botname"}`},
		{"PATCH", "/auth/account/reset_password", `{"token":"abcdef","password":"long enough password here","remove_sessions":true}`},
		{"POST", "/auth/account/reset_password", `{"email":"nobody@ermine.test"}`},
		{"PUT", "/custom/emoji/" + w.msg, `{"name":"emoji","parent":{"type":"Server","id":"` + w.server + `"}}`},
		{"POST", "/onboard/complete", `{"username":"again"}`},
		{"POST", w.hook, `{"content":"from a hook","embeds":[{"title":"t"}],"masquerade":{"name":"m"}}`},
	}
}

// hostileValues replace a JSON value in a mutated body.
var hostileValues = []string{
	`"\u0000"`, `"a\u0000"`, `"\ud800"`, `"\\u0000"`, `""`, `"` + strings.Repeat("x", 70000) + `"`,
	`"01ARZ3NDEKTSV4RRFFQ69G5FAV"`, `"../../etc/passwd"`, `"'; DROP TABLE messages; --"`, `"@everyone"`,
	`0`, `-1`, `1e309`, `18446744073709551616`, `-9223372036854775809`, `1.5`, `true`, `null`,
	`[]`, `{}`, `[null]`, `{"$gt":""}`, strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
}

// mutate returns a variant of a valid JSON body.
func mutate(r *rand.Rand, body string) []byte {
	b := []byte(body)
	switch r.IntN(8) {
	case 0, 1, 2: // replace one value (a string or number) with a hostile one
		spans := valueSpans(b)
		if len(spans) == 0 {
			return b
		}
		s := spans[r.IntN(len(spans))]
		v := hostileValues[r.IntN(len(hostileValues))]
		return append(append(append([]byte{}, b[:s[0]]...), v...), b[s[1]:]...)
	case 3: // flip bytes
		out := append([]byte{}, b...)
		for range 1 + r.IntN(4) {
			out[r.IntN(len(out))] = byte(r.IntN(256))
		}
		return out
	case 4: // truncate
		return b[:r.IntN(len(b))]
	case 5: // insert bytes
		i := r.IntN(len(b) + 1)
		junk := []string{`\u0000`, `"`, `\`, `{`, `]`, ",", "\x00", "\xff\xfe", `,"extra":{"deep":["\u0000"]}`}[r.IntN(9)]
		return append(append(append([]byte{}, b[:i]...), junk...), b[i:]...)
	case 6: // duplicate keys
		if i := bytes.IndexByte(b, '{'); i >= 0 && len(b) > i+1 && b[i+1] == '"' {
			k := b[i+1 : i+1+bytes.IndexByte(b[i+2:], '"')+2]
			return append(append(append([]byte{}, b[:i+1]...), append(append([]byte{}, k...), `:"\u0000",`...)...), b[i+1:]...)
		}
		return b
	default: // whole-body oddities
		return []byte([]string{``, `null`, `[]`, `"str"`, `1`, `{"a":` + strings.Repeat(`{"a":`, 3000) + `1` + strings.Repeat(`}`, 3001),
			strings.Repeat(" ", 10) + body + "garbage", body + body}[r.IntN(8)])
	}
}

// valueSpans returns the byte ranges of the string and number values of
// a JSON text (not object keys).
func valueSpans(b []byte) [][2]int {
	var out [][2]int
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			k := j + 1
			for k < len(b) && b[k] == ' ' {
				k++
			}
			if k >= len(b) || b[k] != ':' {
				out = append(out, [2]int{i, min(j+1, len(b))})
			}
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(b) && strings.IndexByte("-+.eE0123456789", b[j]) >= 0 {
				j++
			}
			out = append(out, [2]int{i, j})
			i = j - 1
		}
	}
	return out
}

const mutationsPerRoute = 150

func (w *world) mutatedBodies(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4800))
	for _, rt := range w.jsonRoutes() {
		for range mutationsPerRoute {
			w.do(t, rt[0], rt[1], mutate(r, rt[2]))
		}
	}
}

// hostilePaths puts hostile text where ids, codes and emoji go, and in
// query values.
func (w *world) hostilePaths(t *testing.T) {
	bad := []string{"%00", "a%00b", "%ZZ", "..", "%2e%2e%2f", strings.Repeat("A", 5000), "%F0%9F%98%80", "%C0%AF",
		"01ARZ3NDEKTSV4RRFFQ69G5FAV", "01arz3ndektsv4rrffq69g5fav", "@me", "%20", "%27%20OR%201%3D1"}
	for _, p := range bad {
		for _, path := range []string{
			"/channels/" + p, "/channels/" + p + "/messages", "/channels/" + w.ch + "/messages/" + p,
			"/servers/" + p, "/servers/" + w.server + "/members/" + p, "/servers/" + w.server + "/roles/" + p,
			"/users/" + p, "/users/" + p + "/profile", "/users/" + p + "/default_avatar", "/invites/" + p, "/bots/" + p,
			"/custom/emoji/" + p, "/auth/session/" + p, "/autumn/attachments/" + p, "/autumn/avatars/" + p + "/x.png",
			"/channels/" + w.ch + "/messages?before=" + p + "&after=" + p + "&nearby=" + p + "&sort=" + p + "&limit=" + p,
			"/servers/" + w.server + "/members_experimental_query?query=" + p + "&experimental_api=true",
			"/january/embed?url=" + p, "/january/proxy?url=" + p, "/january/embed?url=http://" + p + "/",
		} {
			w.do(t, "GET", path, nil)
		}
		w.do(t, "PUT", "/channels/"+w.ch+"/messages/"+w.msg+"/reactions/"+p, nil)
		w.do(t, "DELETE", "/channels/"+w.ch+"/messages/"+w.msg+"/reactions/"+p+"?user_id="+p+"&remove_all="+p, nil)
		w.do(t, "PUT", "/channels/"+w.ch+"/ack/"+p, nil)
		w.do(t, "DELETE", "/auth/session/all?revoke_self="+p, nil)
	}
}

// websocket sends malformed packets on an unauthenticated and on an
// authenticated connection of one format; the node must keep both
// formats working.
func (w *world) websocket(t *testing.T, format string) {
	r := rand.New(rand.NewPCG(6, uint64(len(format))))
	enc := func(v any) []byte {
		if format == "msgpack" {
			b, _ := msgpack.Marshal(v)
			return b
		}
		b, _ := json.Marshal(v)
		return b
	}
	deep := any("x")
	for range 2000 {
		deep = map[string]any{"d": deep}
	}
	packets := [][]byte{
		enc(map[string]any{"type": "Authenticate", "token": "\x00"}),
		enc(map[string]any{"type": "Authenticate", "token": strings.Repeat("t", 8000)}),
		enc(map[string]any{"type": "Authenticate", "token": []any{1, 2}}),
		enc(map[string]any{"type": 5}),
		enc(map[string]any{"type": nil}),
		enc([]any{"type", "Ping"}),
		enc(map[string]any{"type": "BeginTyping", "channel": "\x00"}),
		enc(map[string]any{"type": "BeginTyping", "channel": map[string]any{"$ne": 1}}),
		enc(map[string]any{"type": "EndTyping", "channel": strings.Repeat("C", 10000)}),
		enc(map[string]any{"type": "Subscribe", "server_id": "../" + w.server}),
		enc(map[string]any{"type": "Subscribe", "server_id": 1e308}),
		enc(map[string]any{"type": "Ping", "data": []any{nil, 1.5, "\x00", map[string]any{"k": true}}}),
		[]byte(`{"type":"Ping","data":` + strings.Repeat("[", 3000) + strings.Repeat("]", 3000) + `}`),
		[]byte(`{"type":"Authenticate","token":"`), // truncated
		{0xc1, 0xc1, 0xc1},                        // never-used msgpack byte
		{0xdf, 0xff, 0xff, 0xff, 0xff},            // msgpack map claiming 4G entries
		{0xdd, 0x7f, 0xff, 0xff, 0xff, 0xa1, 'x'}, // msgpack array claiming 2G entries
		{0xdb, 0xff, 0xff, 0xff, 0xff},            // msgpack str claiming 4G bytes
		bytes.Repeat([]byte{0x91}, 4000),          // nested arrays
	}
	if b, err := msgpack.Marshal(deep); err == nil {
		packets = append(packets, b)
	}
	for range 40 {
		p := make([]byte, 1+r.IntN(200))
		for i := range p {
			p[i] = byte(r.IntN(256))
		}
		packets = append(packets, p)
	}
	packets = append(packets, bytes.Repeat([]byte("x"), 20000)) // over max_packet: closes the socket

	send := func(token string) {
		ws := w.dial(t, format, token)
		for i, p := range packets {
			typ := websocket.MessageText
			if format == "msgpack" || i%3 == 0 {
				typ = websocket.MessageBinary
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			err := ws.Write(ctx, typ, p)
			cancel()
			if err != nil { // the server closed it (an Error, a too-large frame): carry on with a new one
				_ = ws.CloseNow()
				ws = w.dial(t, format, token)
			}
		}
		_ = ws.CloseNow()
	}
	send("")
	send(w.token)

	// Both formats still authenticate and answer a Ping.
	for _, f := range []string{"json", "msgpack"} {
		ws := w.dial(t, f, w.token)
		w.expect(t, ws, f, "Authenticated")
		w.expect(t, ws, f, "Ready")
		ping := map[string]any{"type": "Ping", "data": 42}
		var b []byte
		typ := websocket.MessageText
		if f == "msgpack" {
			b, _ = msgpack.Marshal(ping)
			typ = websocket.MessageBinary
		} else {
			b, _ = json.Marshal(ping)
		}
		if err := ws.Write(t.Context(), typ, b); err != nil {
			t.Fatalf("%s ping: %v", f, err)
		}
		w.expect(t, ws, f, "Pong")
		_ = ws.CloseNow()
	}
}

func (w *world) dial(t *testing.T, format, token string) *websocket.Conn {
	t.Helper()
	q := url.Values{"version": {"1"}, "format": {format}}
	if token != "" {
		q.Set("token", token)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(w.h.URL, "http")+"/events?"+q.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		t.Fatalf("dial events (%s): %v", format, err)
	}
	ws.SetReadLimit(32 << 20)
	return ws
}

// expect reads packets until one of type typ, failing after 10 s.
func (w *world) expect(t *testing.T, ws *websocket.Conn, format, typ string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s (%s): %v", typ, format, err)
		}
		var m map[string]any
		if format == "msgpack" {
			err = msgpack.Unmarshal(b, &m)
		} else {
			err = json.Unmarshal(b, &m)
		}
		if err == nil && m["type"] == typ {
			return m
		}
	}
}

// uploads sends hostile files to the file service.
func (w *world) uploads(t *testing.T) {
	svgScript := []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(document.cookie)</script></svg>`)
	gifHTML := []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;" +
		"<html><script>alert(1)</script></html>")
	pngZip := append(pngImage(8, 8), []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00 evil.js alert(1)")...)
	png := pngImage(64, 64)
	files := []struct {
		name string
		data []byte
	}{
		{"bomb.png", pngBomb(100_000, 100_000)},
		{"bomb-16k.png", pngBomb(16_000, 16_000)},
		{"polyglot.gif", gifHTML},
		{"polyglot.png", pngZip},
		{"script.svg", svgScript},
		{"truncated.png", png[:len(png)/2]},
		{"truncated.jpg", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb\x00C\x00")},
		{"truncated.gif", gifHTML[:20]},
		{"truncated.webp", []byte("RIFF\x00\x10\x00\x00WEBPVP8L\x0a\x00\x00\x00\x2f\x07")},
		{"header-only.mp4", []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")},
		{"lies.png", []byte("this is text named like a picture")},
		{"empty.png", []byte{}},
		{"nul\x00name.png", png},
		{"not-utf8-\xc0\xaf.png", png},
		{strings.Repeat("long", 300) + ".png", png},
	}
	for _, tag := range []string{"attachments", "avatars", "icons", "banners", "backgrounds", "emojis"} {
		for _, f := range files {
			name, data := f.name, f.data
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			fw, _ := mw.CreateFormFile("file", name)
			_, _ = fw.Write(data)
			_ = mw.Close()
			req, _ := http.NewRequest("POST", w.h.URL+"/autumn/"+tag, &buf)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			req.Header.Set("X-Session-Token", w.token)
			w.requests++
			res, err := w.client.Do(req)
			if err != nil {
				t.Fatalf("upload %s to %s: %v", name, tag, err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			a := answer{res.StatusCode, res.Header.Get("Content-Type"), b}
			w.check(t, "upload "+name+" to "+tag, nil, a)
			var up struct{ ID string }
			if a.status != 200 || json.Unmarshal(b, &up) != nil || up.ID == "" {
				continue
			}
			// Whatever was kept is served inert.
			for _, path := range []string{"/autumn/" + tag + "/" + up.ID, "/autumn/" + tag + "/" + up.ID + "/" + name} {
				res, err := w.client.Get(w.h.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				w.check(t, "GET "+path, nil, answer{res.StatusCode, res.Header.Get("Content-Type"), body})
				if res.StatusCode == 200 && (res.Header.Get("X-Content-Type-Options") != "nosniff" ||
					!strings.Contains(res.Header.Get("Content-Security-Policy"), "sandbox")) {
					t.Errorf("%s (%s) served without nosniff and a sandbox CSP: %v", path, name, res.Header)
				}
				if ct := res.Header.Get("Content-Type"); res.StatusCode == 200 && (strings.HasPrefix(ct, "text/html") || strings.Contains(ct, "javascript")) {
					t.Errorf("%s (%s) served as %s", path, name, ct)
				}
			}
		}
	}
}

// passwordChange: a password change logs out the account's other
// sockets and keeps the one of the session that changed it.
func (w *world) passwordChange(t *testing.T) {
	email := fmt.Sprintf("pw.%d@ermine.test", time.Now().UnixNano())
	const pass, next = "correct horse battery staple", "a different long passphrase"
	if a := w.do(t, "POST", "/auth/account/create", []byte(`{"email":"`+email+`","password":"`+pass+`"}`)); a.status != 204 {
		t.Fatalf("create = %d %s", a.status, a.body)
	}
	login := func() string {
		a := w.do(t, "POST", "/auth/session/login", []byte(`{"email":"`+email+`","password":"`+pass+`"}`))
		var m map[string]any
		if a.status != 200 || json.Unmarshal(a.body, &m) != nil {
			t.Fatalf("login = %d %s", a.status, a.body)
		}
		return m["token"].(string)
	}
	keep, other := login(), login()
	save := w.token
	defer func() { w.token = save }()
	w.token = keep
	if a := w.do(t, "POST", "/onboard/complete", []byte(`{"username":"Changer"}`)); a.status != 200 {
		t.Fatalf("onboard = %d %s", a.status, a.body)
	}
	keepWS, otherWS := w.dial(t, "json", keep), w.dial(t, "msgpack", other)
	defer func() { _ = keepWS.CloseNow() }()
	defer func() { _ = otherWS.CloseNow() }()
	w.expect(t, keepWS, "json", "Ready")
	w.expect(t, otherWS, "msgpack", "Ready")
	if a := w.do(t, "PATCH", "/auth/account/change/password",
		[]byte(`{"current_password":"`+pass+`","password":"`+next+`"}`)); a.status != 204 {
		t.Fatalf("change password = %d %s", a.status, a.body)
	}
	w.expect(t, otherWS, "msgpack", "Logout")
	_ = keepWS.Write(t.Context(), websocket.MessageText, []byte(`{"type":"Ping","data":1}`))
	w.expect(t, keepWS, "json", "Pong")
}

// stillServing: after all of it the node answers requests and events.
func (w *world) stillServing(t *testing.T) {
	res, err := w.client.Get(w.h.URL + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("/healthz after the campaign: %v %v", res, err)
	}
	res.Body.Close()
	ws := w.dial(t, "json", w.token)
	defer func() { _ = ws.CloseNow() }()
	w.expect(t, ws, "json", "Ready")
	w.must(t, "POST", "/channels/"+w.ch+"/messages", `{"content":"still here"}`)
	w.expect(t, ws, "json", "Message")
}

// str digs a string out of decoded JSON by keys and array indexes.
func str(v any, path ...string) string {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			_, _ = fmt.Sscan(p, &i)
			if i >= len(x) {
				return ""
			}
			v = x[i]
		}
	}
	s, _ := v.(string)
	return s
}

// pngImage is a valid w×h greyscale PNG.
func pngImage(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 0, 0, 0, 0) // 8-bit greyscale
	raw := make([]byte, 0, (w+1)*h)
	for range h {
		raw = append(raw, 0)
		raw = append(raw, make([]byte, w)...)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", z.Bytes())...)
	return append(out, pngChunk("IEND", nil)...)
}

// pngBomb is a small PNG whose header declares w×h pixels.
func pngBomb(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 2, 0, 0, 0)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, pngChunk("IEND", nil)...)
}

func pngChunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}
