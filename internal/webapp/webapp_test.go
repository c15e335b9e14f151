package webapp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/webapp"
)

func TestWantsPage(t *testing.T) {
	for _, tc := range []struct {
		method, accept string
		want           bool
	}{
		{"GET", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true}, // Chromium, Firefox
		{"HEAD", "text/html", true},
		{"GET", "application/json, text/plain, */*", false}, // axios (revolt.js, stoat.js)
		{"GET", "", false},                                  // fetch in Node, curl without -H
		{"GET", "*/*", false},                               // curl
		{"GET", "application/json", false},
		{"GET", "text/html;q=0", false},
		{"GET", "TEXT/HTML; charset=utf-8", true},
		{"POST", "text/html", false},
	} {
		r, _ := http.NewRequest(tc.method, "http://x/", nil)
		if tc.accept != "" {
			r.Header.Set("Accept", tc.accept)
		}
		if got := webapp.WantsPage(r); got != tc.want {
			t.Errorf("%s Accept %q: WantsPage = %v, want %v", tc.method, tc.accept, got, tc.want)
		}
	}
}

func TestPolicyAllowsOnlyTheInstance(t *testing.T) {
	h, err := webapp.New(webapp.Options{APIURL: "https://chat.example/api", EventsURL: "wss://chat.example/events",
		FilesURL: "https://files.example/autumn", VoiceURLs: []string{"wss://voice.example", ""}})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.Page(rec, httptest.NewRequest("GET", "/app/", nil))
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{
		"default-src 'self'",
		"img-src 'self' https://chat.example https://files.example data: blob:",
		"connect-src 'self' https://chat.example https://files.example wss://chat.example wss://voice.example;",
		"object-src 'none'",
	} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP lacks %q:\n%s", want, csp)
		}
	}
	if !strings.Contains(rec.Body.String(), `<meta name="ermine-api" content="https://chat.example/api">`) {
		t.Errorf("page does not name the API:\n%s", rec.Body.String())
	}
	if strings.Contains(csp, "hcaptcha") {
		t.Errorf("captcha is off but the CSP allows hCaptcha: %s", csp)
	}

	// With captcha on, hCaptcha's widget may load (and nothing else new).
	h, err = webapp.New(webapp.Options{APIURL: "https://chat.example", Captcha: true})
	if err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	h.Page(rec, httptest.NewRequest("GET", "/", nil))
	csp = rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{
		"script-src 'self' 'unsafe-eval' https://hcaptcha.com https://*.hcaptcha.com;",
		"frame-src 'self' https://hcaptcha.com https://*.hcaptcha.com;",
		"img-src 'self' https://chat.example data: blob:;",
	} {
		if !strings.Contains(csp, want) {
			t.Errorf("captcha on: CSP lacks %q:\n%s", want, csp)
		}
	}
}

// reply is what the tests read of a response, whose body get has read
// and closed.
type reply struct {
	StatusCode int
	Header     http.Header
	Path       string // the path of the last request, after redirects
}

func get(t *testing.T, url, accept string) (reply, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{res.StatusCode, res.Header, res.Request.URL.Path}, string(b)
}

const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// TestServedByTheBinary starts a real Ermine and checks who gets what: the
// root object for client libraries, the app's page for browsers at /,
// /app/ and /invite/{code}, and the built assets.
func TestServedByTheBinary(t *testing.T) {
	h := apitest.Start(t)

	// Client libraries (axios' Accept, or none) get the root object.
	for _, accept := range []string{"application/json, text/plain, */*", ""} {
		res, body := get(t, h.URL+"/", accept)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("GET / Accept %q = %d %s", accept, res.StatusCode, res.Header.Get("Content-Type"))
		}
		var root struct{ App string }
		if err := json.Unmarshal([]byte(body), &root); err != nil {
			t.Fatal(err)
		}
		if root.App != h.URL+"/app" {
			t.Errorf("root app = %q, want %q", root.App, h.URL+"/app")
		}
		if !strings.Contains(res.Header.Get("Vary"), "Accept") {
			t.Errorf("GET / answers by Accept but Vary = %q", res.Header.Get("Vary"))
		}
	}

	// Browsers get the page, with the API address filled in and a policy
	// that keeps everything on the instance.
	var script string
	for _, path := range []string{"/", "/app/", "/app/server/x/channel/y", "/invite/abc123", "/app/login/verify/tok"} {
		res, body := get(t, h.URL+path, browser)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("GET %s = %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		if !strings.Contains(body, `<meta name="ermine-api" content="`+h.URL+`">`) {
			t.Errorf("GET %s: the page does not name the API:\n%s", path, body)
		}
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "connect-src 'self' "+h.URL+" ws://"+h.Server.Addr()) {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
		m := regexp.MustCompile(`src="(/app/assets/[^"]+\.js)"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("GET %s: no script in the page:\n%s", path, body)
		}
		script = m[1]
	}

	res, body := get(t, h.URL+script, "*/*")
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "javascript") || len(body) < 1000 {
		t.Fatalf("GET %s = %d %s (%d bytes)", script, res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}
	if !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("assets are named by content but Cache-Control = %q", res.Header.Get("Cache-Control"))
	}
	// The installable app and the emoji set are the binary's own files.
	for _, c := range []struct{ path, contentType, cache string }{
		{"/app/manifest.webmanifest", "application/manifest+json", "no-cache"},
		{"/app/sw.js", "javascript", "no-cache"},
		{"/app/icons/icon-192.png", "image/png", "no-cache"},
		{"/app/emoji/1f44d.svg", "image/svg+xml", "max-age=604800"},
		{"/app/emoji/LICENSE.txt", "text/plain", "max-age=604800"},
	} {
		res, body := get(t, h.URL+c.path, "*/*")
		if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), c.contentType) || body == "" {
			t.Errorf("GET %s = %d %q (%d bytes)", c.path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		if !strings.Contains(res.Header.Get("Cache-Control"), c.cache) {
			t.Errorf("GET %s: Cache-Control %q, want %q", c.path, res.Header.Get("Cache-Control"), c.cache)
		}
	}
	if res, _ := get(t, h.URL+"/app/assets/missing.js", "*/*"); res.StatusCode != http.StatusNotFound {
		t.Errorf("a missing asset = %d, want 404", res.StatusCode)
	}
	res, _ = get(t, h.URL+"/app", browser)
	if res.StatusCode != http.StatusOK || res.Path != "/app/" {
		t.Errorf("GET /app ends at %s with %d, want /app/", res.Path, res.StatusCode)
	}
	// The API's own routes are untouched.
	if res, _ := get(t, h.URL+"/invites/nope", "application/json"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /invites/nope = %d, want the API's 404", res.StatusCode)
	}
}
