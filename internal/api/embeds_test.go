package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/embeds/embedstest"
	"ermine/internal/perm"
)

// previewNode runs a node whose link previews may fetch from the loopback
// test site, and nothing else private.
func previewNode(t *testing.T) (*msgFixture, *embedstest.Site) {
	t.Helper()
	site := embedstest.NewSite(t)
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) {
		c.Embeds.AllowedPrivateHosts = []string{"127.0.0.1"}
		c.Embeds.YouTubeOEmbed = site.URL + "/oembed"
	})
	return &msgFixture{t: t, h: h}, site
}

// previewSocket is a client's events WebSocket.
type previewSocket struct {
	t       *testing.T
	c       *websocket.Conn
	packets chan map[string]any
}

func connectPreviewEvents(t *testing.T, h *apitest.Harness, u *apitest.User) *previewSocket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q := url.Values{"version": {"1"}, "format": {"json"}, "token": {u.Token}}
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.URL, "http")+"/events?"+q.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		t.Fatalf("dial events: %v", err)
	}
	c.SetReadLimit(8 << 20)
	s := &previewSocket{t: t, c: c, packets: make(chan map[string]any, 256)}
	go func() {
		defer close(s.packets)
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			var p map[string]any
			if json.Unmarshal(b, &p) == nil {
				s.packets <- p
			}
		}
	}()
	t.Cleanup(func() { c.Close(websocket.StatusNormalClosure, "") })
	s.wait("Ready", nil, 10*time.Second)
	return s
}

// wait returns the first packet of type typ matching ok, failing after d.
func (s *previewSocket) wait(typ string, ok func(map[string]any) bool, d time.Duration) map[string]any {
	s.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case p, open := <-s.packets:
			if !open {
				s.t.Fatalf("events connection closed waiting for %s", typ)
			}
			if p["type"] == typ && (ok == nil || ok(p)) {
				return p
			}
		case <-deadline:
			s.t.Fatalf("no %s within %s", typ, d)
		}
	}
}

// none fails when a packet of type typ matching ok arrives within d.
func (s *previewSocket) none(typ string, ok func(map[string]any) bool, d time.Duration) {
	s.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case p, open := <-s.packets:
			if !open {
				return
			}
			if p["type"] == typ && (ok == nil || ok(p)) {
				s.t.Fatalf("unexpected %s: %v", typ, p)
			}
		case <-deadline:
			return
		}
	}
}

func forMessage(id any) func(map[string]any) bool {
	return func(p map[string]any) bool { return p["id"] == id }
}

// appended decodes the embeds of a MessageAppend, checking them against
// the contract's Embed schema.
func appended(t *testing.T, p map[string]any) []chat.Embed {
	t.Helper()
	a, _ := p["append"].(map[string]any)
	raw, _ := json.Marshal(a["embeds"])
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatalf("append = %v", p)
	}
	for _, it := range items {
		apitest.CheckSchema(t, "Embed", it)
	}
	var out []chat.Embed
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLinkPreviews sends messages with a link of every kind and sees each
// preview arrive on the WebSocket as MessageAppend, then stored.
func TestLinkPreviews(t *testing.T) {
	f, site := previewNode(t)
	owner := f.h.NewUser("owner")
	_, ch := f.server(owner)
	ws := connectPreviewEvents(t, f.h, owner)
	u := site.URL

	m := f.sendOK(owner, ch.ID, "og "+u+"/og twitter "+u+"/twitter plain "+u+"/plain\nimage "+u+"/img/red.png and video "+u+"/media/clip.mp4.")
	if _, ok := m["embeds"]; ok {
		t.Errorf("the send response already has embeds: previews must not hold up the request")
	}
	got := appended(t, ws.wait("MessageAppend", forMessage(m["_id"]), 15*time.Second))
	if len(got) != 5 {
		t.Fatalf("%d embeds appended, want 5: %+v", len(got), got)
	}
	check := func(i int, typ string, ok bool, what string) {
		t.Helper()
		if got[i].Type != typ || !ok {
			b, _ := json.Marshal(got[i])
			t.Errorf("embed %d (%s) = %s", i, what, b)
		}
	}
	e := got[0]
	check(0, "Website", e.Title != nil && *e.Title == "OpenGraph Title" && e.Description != nil &&
		e.Image != nil && e.Image.URL == u+"/img/red.png" && e.Image.Width == 40 && e.Image.Size == "Preview" &&
		e.Colour != nil && *e.Colour == "#123456" && e.SiteName != nil && *e.SiteName == "Test Site", "OpenGraph")
	e = got[1]
	check(1, "Website", e.Title != nil && *e.Title == "Twitter Title" && e.Image != nil && e.Image.Size == "Large", "Twitter card")
	e = got[2]
	check(2, "Website", e.Title != nil && *e.Title == "Plain Title" && e.Description != nil && *e.Description == "Plain description.", "plain title")
	e = got[3]
	check(3, "Image", e.URL != nil && *e.URL == u+"/img/red.png" && *e.Width == 40 && *e.Height == 30 && e.Size == "Large", "image")
	e = got[4]
	check(4, "Video", e.URL != nil && *e.URL == u+"/media/clip.mp4" && *e.Width == 640 && *e.Height == 360, "video")

	res := f.h.Get(msgPath(ch.ID, m["_id"]), owner.Token)
	var stored chat.Message
	res.JSON(t, &stored)
	if len(stored.Embeds) != 5 || stored.Embeds[3].Type != "Image" {
		t.Errorf("stored embeds = %s", res.Body)
	}

	yt := f.sendOK(owner, ch.ID, "https://www.youtube.com/watch?v=dQw4w9WgXcQ")
	got = appended(t, ws.wait("MessageAppend", forMessage(yt["_id"]), 15*time.Second))
	if len(got) != 1 || got[0].Special == nil || got[0].Special.Type != "YouTube" || got[0].Special.ID != "dQw4w9WgXcQ" ||
		got[0].Special.CreatorName == nil || *got[0].Special.CreatorName != "Rick Astley" ||
		got[0].Colour == nil || *got[0].Colour != "#FF424F" || got[0].Title == nil || *got[0].Title != "Never Gonna Give You Up" {
		b, _ := json.Marshal(got)
		t.Errorf("YouTube embed = %s", b)
	}
}

// TestLinkPreviewsOnEdit: editing the content drops the old previews and
// appends the new link's.
func TestLinkPreviewsOnEdit(t *testing.T) {
	f, site := previewNode(t)
	owner := f.h.NewUser("owner")
	_, ch := f.server(owner)
	ws := connectPreviewEvents(t, f.h, owner)
	m := f.sendOK(owner, ch.ID, site.URL+"/plain")
	ws.wait("MessageAppend", forMessage(m["_id"]), 15*time.Second)
	res := f.do(owner, http.MethodPatch, msgPath(ch.ID, m["_id"]), map[string]any{"content": "now " + site.URL + "/og"})
	if res.Status != http.StatusOK {
		t.Fatalf("edit = %d %s", res.Status, res.Body)
	}
	upd := ws.wait("MessageUpdate", forMessage(m["_id"]), 5*time.Second)
	if data, _ := upd["data"].(map[string]any); data == nil || len(data["embeds"].([]any)) != 0 {
		t.Errorf("MessageUpdate = %v, want the link embeds dropped", upd)
	}
	got := appended(t, ws.wait("MessageAppend", forMessage(m["_id"]), 15*time.Second))
	if len(got) != 1 || got[0].Title == nil || *got[0].Title != "OpenGraph Title" {
		t.Errorf("after edit: %+v", got)
	}
	stored := f.history(ch.ID)[0]
	if len(stored.Embeds) != 1 || *stored.Embeds[0].Title != "OpenGraph Title" {
		t.Errorf("stored after edit: %+v", stored.Embeds)
	}
}

// TestLinkPreviewsWithheld: no previews without SendEmbeds, for links in
// code or angle brackets, or for addresses Ermine may not fetch.
func TestLinkPreviewsWithheld(t *testing.T) {
	f, site := previewNode(t)
	owner, member := f.h.NewUser("owner"), f.h.NewUser("member")
	s, ch := f.server(owner)
	f.join(s, member)
	ws := connectPreviewEvents(t, f.h, owner)

	quiet := f.channel(s)
	quiet.DefaultPermissions = &chat.Override{D: int64(perm.SendEmbeds)}
	f.must(f.h.Server.Store.UpdateChannel(context.Background(), quiet))

	var ids []any
	ids = append(ids, f.sendOK(member, quiet.ID, "no embeds here "+site.URL+"/og")["_id"])
	ids = append(ids, f.sendOK(owner, ch.ID, "`"+site.URL+"/og` and <"+site.URL+"/plain>")["_id"])
	ids = append(ids, f.sendOK(owner, ch.ID, "```\n"+site.URL+"/twitter\n```")["_id"])
	ids = append(ids, f.sendOK(owner, ch.ID, "http://169.254.169.254/latest/meta-data/ http://localhost/ http://10.0.0.1/")["_id"])
	// Forbidden addresses that do answer: a site on 127.0.0.2 (loopback,
	// not on the node's allowed list) and the allowed site itself through
	// its IPv4-mapped IPv6 form. Neither may be asked anything.
	var forbiddenHits atomic.Int32
	hit := func(w http.ResponseWriter, r *http.Request) {
		forbiddenHits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, `<html><head><title>Reached</title></head></html>`)
	}
	site.Mux.HandleFunc("GET /forbidden", hit)
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.2: %v", err)
	}
	private := httptest.NewUnstartedServer(http.HandlerFunc(hit))
	private.Listener.Close()
	private.Listener = l
	private.Start()
	t.Cleanup(private.Close)
	_, sitePort, _ := net.SplitHostPort(strings.TrimPrefix(site.URL, "http://"))
	ids = append(ids, f.sendOK(owner, ch.ID, private.URL+"/forbidden http://[::ffff:127.0.0.1]:"+sitePort+"/forbidden")["_id"])
	// A control message in the same channel, sent last, does get its
	// preview: once it arrives, the others had their chance.
	ctl := f.sendOK(owner, ch.ID, site.URL+"/plain")
	ws.wait("MessageAppend", forMessage(ctl["_id"]), 15*time.Second)
	ws.none("MessageAppend", func(p map[string]any) bool {
		for _, id := range ids {
			if p["id"] == id {
				return true
			}
		}
		return false
	}, 500*time.Millisecond)
	for _, m := range f.history(quiet.ID) {
		if len(m.Embeds) != 0 {
			t.Errorf("message without SendEmbeds got embeds: %+v", m.Embeds)
		}
	}
	if n := forbiddenHits.Load(); n != 0 {
		t.Errorf("the node fetched a forbidden address %d times", n)
	}
}

// TestJanuaryRoutes exercises the preview and proxy routes advertised in
// the root object. They are not in the contract, so are checked plainly.
func TestJanuaryRoutes(t *testing.T) {
	f, site := previewNode(t)
	root := f.h.Get("/", "").Map(t)
	jan, _ := root["features"].(map[string]any)["january"].(map[string]any)
	base, _ := jan["url"].(string)
	if jan["enabled"] != true || base != f.h.URL+"/january" {
		t.Fatalf("features.january = %v", jan)
	}
	type reply struct {
		StatusCode int
		Header     http.Header
	}
	get := func(path string) (reply, []byte) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return reply{resp.StatusCode, resp.Header}, b
	}
	resp, body := get("/embed?url=" + url.QueryEscape(site.URL+"/og"))
	var e chat.Embed
	if resp.StatusCode != 200 || json.Unmarshal(body, &e) != nil || e.Type != "Website" || *e.Title != "OpenGraph Title" {
		t.Errorf("embed = %d %s", resp.StatusCode, body)
	}
	apitest.CheckSchema(t, "Embed", body)
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("embed CORS headers %v", resp.Header)
	}

	resp, body = get("/proxy?url=" + url.QueryEscape(site.URL+"/img/red.png"))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" || len(body) == 0 ||
		resp.Header.Get("Cache-Control") != "public, max-age=600, immutable" || resp.Header.Get("Content-Disposition") != "inline" {
		t.Errorf("proxy = %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = get("/proxy?url=" + url.QueryEscape(site.URL+"/img/anim.gif"))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/gif" {
		t.Errorf("proxy gif = %d %v", resp.StatusCode, resp.Header)
	}

	for _, tt := range []struct{ path, typ string }{
		{"/embed?url=" + url.QueryEscape(site.URL+"/empty"), "NoEmbedData"},
		{"/embed?url=" + url.QueryEscape(site.URL+"/missing"), "ProxyError"},
		{"/embed?url=" + url.QueryEscape("http://127.0.0.2:1/"), "InvalidOperation"},
		{"/embed?url=" + url.QueryEscape("http://[::ffff:127.0.0.1]/"), "InvalidOperation"},
		{"/embed", "ProxyError"},
		{"/proxy?url=" + url.QueryEscape(site.URL+"/og"), "FileTypeNotAllowed"},
		{"/proxy?url=" + url.QueryEscape(site.URL+"/media/clip.mp4"), "FileTypeNotAllowed"},
		{"/proxy?url=" + url.QueryEscape("http://192.168.0.1/a.png"), "InvalidOperation"},
	} {
		resp, body := get(tt.path)
		var eb map[string]any
		if resp.StatusCode != 400 || json.Unmarshal(body, &eb) != nil || eb["type"] != tt.typ {
			t.Errorf("%s = %d %s, want 400 %s", tt.path, resp.StatusCode, body, tt.typ)
		}
	}
}

// TestPreviewsOff: with previews turned off, nothing is fetched, the
// routes are gone and the root object says so.
func TestPreviewsOff(t *testing.T) {
	site := embedstest.NewSite(t)
	h := apitest.Start(t, func(c *config.Config) {
		c.Embeds.Enabled = false
		c.Embeds.AllowedPrivateHosts = []string{"127.0.0.1"}
	})
	f := &msgFixture{t: t, h: h}
	jan := h.Get("/", "").Map(t)["features"].(map[string]any)["january"].(map[string]any)
	if jan["enabled"] != false || jan["url"] != "" {
		t.Errorf("features.january = %v", jan)
	}
	owner := h.NewUser("owner")
	_, ch := f.server(owner)
	ws := connectPreviewEvents(t, h, owner)
	m := f.sendOK(owner, ch.ID, site.URL+"/og")
	ws.none("MessageAppend", forMessage(m["_id"]), time.Second)
	resp, err := http.Get(h.URL + "/january/embed?url=" + url.QueryEscape(site.URL+"/og"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/january/embed with previews off = %d, want 404", resp.StatusCode)
	}
}

// TestWebhookLinkPreviews: a webhook's links are always previewed, even
// when its own permissions leave out SendEmbeds, as in the reference; an
// edit through its token previews the new link.
func TestWebhookLinkPreviews(t *testing.T) {
	f, site := previewNode(t)
	owner := f.h.NewUser("owner")
	_, ch := f.server(owner)
	ws := connectPreviewEvents(t, f.h, owner)
	res := f.do(owner, http.MethodPost, "/channels/"+string(ch.ID)+"/webhooks", map[string]any{"name": "CI"})
	if res.Status != http.StatusOK {
		t.Fatalf("create webhook = %d %s", res.Status, res.Body)
	}
	hook := res.Map(t)
	tokenPath := "/webhooks/" + hook["id"].(string) + "/" + hook["token"].(string)
	res = f.do(nil, http.MethodPatch, tokenPath, map[string]any{"permissions": int64(perm.SendMessage)})
	if res.Status != http.StatusOK {
		t.Fatalf("narrow webhook = %d %s", res.Status, res.Body)
	}
	res = f.do(nil, http.MethodPost, tokenPath, map[string]any{"content": "build: " + site.URL + "/plain"})
	if res.Status != http.StatusOK {
		t.Fatalf("execute = %d %s", res.Status, res.Body)
	}
	m := res.Map(t)
	got := appended(t, ws.wait("MessageAppend", forMessage(m["_id"]), 15*time.Second))
	if len(got) != 1 || got[0].Title == nil || *got[0].Title != "Plain Title" {
		t.Errorf("webhook message previews: %+v", got)
	}
	res = f.do(nil, http.MethodPatch, tokenPath+"/"+m["_id"].(string), map[string]any{"content": site.URL + "/twitter"})
	if res.Status != http.StatusOK {
		t.Fatalf("edit = %d %s", res.Status, res.Body)
	}
	got = appended(t, ws.wait("MessageAppend", forMessage(m["_id"]), 15*time.Second))
	if len(got) != 1 || got[0].Title == nil || *got[0].Title != "Twitter Title" {
		t.Errorf("after the webhook's edit: %+v", got)
	}
}

// TestJanuaryRateLimited: the preview and proxy routes fetch other sites
// for anyone, so each client address gets a bounded number of them;
// beyond it, 429 {"retry_after"} with the rate-limit headers, and the
// other route's count is its own.
func TestJanuaryRateLimited(t *testing.T) {
	site := embedstest.NewSite(t)
	h := apitest.Start(t, func(c *config.Config) { c.Embeds.AllowedPrivateHosts = []string{"127.0.0.1"} })
	get := func(path string) (int, http.Header, []byte) {
		t.Helper()
		resp, err := http.Get(h.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, b
	}
	for _, tc := range []struct {
		path  string
		limit int
	}{
		{"/january/embed?url=" + url.QueryEscape(site.URL+"/plain"), 30},
		{"/january/proxy?url=" + url.QueryEscape(site.URL+"/img/red.png"), 120},
	} {
		for i := range tc.limit {
			if status, _, body := get(tc.path); status != http.StatusOK {
				t.Fatalf("%s, request %d: %d %s", tc.path, i+1, status, body)
			}
		}
		status, hdr, body := get(tc.path)
		var m map[string]any
		if status != http.StatusTooManyRequests || json.Unmarshal(body, &m) != nil || m["retry_after"] == nil ||
			hdr.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("%s past the limit: %d %v %s", tc.path, status, hdr, body)
		}
	}
}
