package api_test

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/config"
)

func TestRootMatchesContract(t *testing.T) {
	h := apitest.Start(t)
	res := h.Get("/", "")
	if res.Status != http.StatusOK {
		t.Fatalf("GET / = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "RevoltConfig", res.Body)
	root := res.Map(t)
	if root["ws"] != "ws://"+h.Server.Addr()+"/events" {
		t.Errorf("ws = %v", root["ws"])
	}
	autumn := root["features"].(map[string]any)["autumn"].(map[string]any)
	if autumn["url"] != h.URL+"/autumn" || autumn["enabled"] != true {
		t.Errorf("autumn = %v", autumn)
	}
	for _, prefix := range []string{"/api/", "/0.8/", "/api", "/0.8"} {
		other := h.Get(prefix, "")
		if other.Status != http.StatusOK || !bytes.Equal(other.Body, res.Body) {
			t.Errorf("GET %s = %d %s, want the same as GET /", prefix, other.Status, other.Body)
		}
	}
}

func TestPublicURLsFromConfig(t *testing.T) {
	h := apitest.Start(t, func(c *config.Config) {
		c.Public.APIURL = "https://chat.example.com/api"
		c.Public.EventsURL = "wss://chat.example.com/events"
		c.Public.FilesURL = "https://chat.example.com/autumn"
		c.Public.AppURL = "https://chat.example.com"
	})
	root := h.Get("/", "").Map(t)
	if root["ws"] != "wss://chat.example.com/events" || root["app"] != "https://chat.example.com" {
		t.Errorf("root = %v", root)
	}
	if u := root["features"].(map[string]any)["autumn"].(map[string]any)["url"]; u != "https://chat.example.com/autumn" {
		t.Errorf("autumn url = %v", u)
	}
}

func TestUnknownRoutes(t *testing.T) {
	h := apitest.Start(t)
	for _, path := range []string{"/nope", "/api/nope", "/0.8/users/x/nothing", "/apix"} {
		res := h.Get(path, "")
		if res.Status != http.StatusNotFound || res.Map(t)["type"] != "NotFound" {
			t.Errorf("GET %s = %d %s", path, res.Status, res.Body)
		}
	}
	res := h.Do(apitest.Request{Method: http.MethodDelete, Path: "/"})
	if res.Status != http.StatusMethodNotAllowed || res.Map(t)["type"] != "MethodNotAllowed" {
		t.Errorf("DELETE / = %d %s", res.Status, res.Body)
	}
}

func TestRateLimits(t *testing.T) {
	h := apitest.Start(t)
	// The seed's /auth bucket allows 3 calls per 10 s window.
	for i := 1; i <= 4; i++ {
		res := h.Do(apitest.Request{Method: http.MethodGet, Path: "/auth/account/"})
		remaining := res.Header.Get("X-RateLimit-Remaining")
		if res.Header.Get("X-RateLimit-Limit") != "3" {
			t.Fatalf("call %d: limit = %q", i, res.Header.Get("X-RateLimit-Limit"))
		}
		if i < 4 {
			if res.Status == http.StatusTooManyRequests || remaining != strconv.Itoa(3-i) {
				t.Fatalf("call %d: %d remaining %q", i, res.Status, remaining)
			}
			continue
		}
		if res.Status != http.StatusTooManyRequests {
			t.Fatalf("fourth /auth call = %d, want 429", res.Status)
		}
		var body map[string]float64
		res.JSON(t, &body)
		if body["retry_after"] <= 0 || body["retry_after"] > 10000 {
			t.Errorf("retry_after = %v", body["retry_after"])
		}
		reset, err := strconv.Atoi(res.Header.Get("X-RateLimit-Reset-After"))
		if err != nil || reset <= 0 || reset > 10000 {
			t.Errorf("X-RateLimit-Reset-After = %q", res.Header.Get("X-RateLimit-Reset-After"))
		}
	}
	// DELETE /auth is its own bucket of 255; /users another of 20.
	res := h.Do(apitest.Request{Method: http.MethodDelete, Path: "/auth/session/all"})
	if res.Status == http.StatusTooManyRequests || res.Header.Get("X-RateLimit-Limit") != "255" {
		t.Errorf("DELETE /auth: %d limit %q", res.Status, res.Header.Get("X-RateLimit-Limit"))
	}
	res = h.Get("/users/@me", "")
	if res.Status == http.StatusTooManyRequests || res.Header.Get("X-RateLimit-Limit") != "20" {
		t.Errorf("/users: %d limit %q", res.Status, res.Header.Get("X-RateLimit-Limit"))
	}
	// Every response carries the four headers, errors and 404s included.
	res = h.Get("/does-not-exist", "")
	for _, k := range []string{"X-RateLimit-Limit", "X-RateLimit-Bucket", "X-RateLimit-Remaining", "X-RateLimit-Reset-After"} {
		if res.Header.Get(k) == "" {
			t.Errorf("404 response lacks %s", k)
		}
	}
}

func TestRateLimitBucketsPerResource(t *testing.T) {
	h := apitest.Start(t)
	// /servers allows 5 per server id: a sixth call on one server is
	// refused while another server id has its own window.
	for i := 0; i < 5; i++ {
		if res := h.Get("/servers/01ARZ3NDEKTSV4RRFFQ69G5FAV", ""); res.Status == http.StatusTooManyRequests {
			t.Fatalf("call %d refused", i+1)
		}
	}
	if res := h.Get("/servers/01ARZ3NDEKTSV4RRFFQ69G5FAV", ""); res.Status != http.StatusTooManyRequests {
		t.Fatalf("sixth call = %d, want 429", res.Status)
	}
	if res := h.Get("/servers/01BX5ZZKBKACTAV9WEVGEMMVRZ", ""); res.Status == http.StatusTooManyRequests {
		t.Fatalf("other server refused")
	}
}

func TestCORS(t *testing.T) {
	h := apitest.Start(t)
	req, _ := http.NewRequest(http.MethodOptions, h.URL+"/users/@me", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "PATCH")
	req.Header.Set("Access-Control-Request-Headers", "x-session-token, content-type")
	res, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight = %d", res.StatusCode)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
	} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	allow := res.Header.Get("Access-Control-Allow-Headers")
	for _, hdr := range []string{"X-Session-Token", "X-Bot-Token", "X-MFA-Ticket", "Idempotency-Key", "Content-Type"} {
		if !bytes.Contains([]byte(allow), []byte(hdr)) {
			t.Errorf("Allow-Headers %q lacks %s", allow, hdr)
		}
	}
	got := h.Get("/", "")
	if !bytes.Contains([]byte(got.Header.Get("Access-Control-Expose-Headers")), []byte("X-RateLimit-Remaining")) {
		t.Errorf("rate-limit headers not exposed: %q", got.Header.Get("Access-Control-Expose-Headers"))
	}
}

func TestOperationsEndpoints(t *testing.T) {
	h := apitest.Start(t)
	if res := h.Get("/healthz", ""); res.Status != http.StatusOK {
		t.Errorf("/healthz = %d %s", res.Status, res.Body)
	}
	if res := h.Get("/openapi.json", ""); res.Status != http.StatusOK || !bytes.Contains(res.Body, []byte(`"openapi"`)) {
		t.Errorf("/openapi.json = %d", res.Status)
	}
	res := h.Get("/swagger", "")
	if res.Status != http.StatusOK || !bytes.Contains(res.Body, []byte("/channels/{target}/messages")) {
		t.Errorf("/swagger = %d", res.Status)
	}
	if res.Header.Get("X-RateLimit-Limit") != "100" {
		t.Errorf("/swagger bucket limit = %q, want 100", res.Header.Get("X-RateLimit-Limit"))
	}
	// Metrics are not on the public port by default (internal/server's
	// TestMetrics covers where they are).
	if res := h.Get("/metrics", ""); res.Status != http.StatusNotFound || bytes.Contains(res.Body, []byte("go_goroutines")) {
		t.Errorf("/metrics on the public port = %d\n%s", res.Status, res.Body)
	}
	// /healthz says whether the node works and nothing else.
	if res := h.Get("/healthz", ""); string(bytes.TrimSpace(res.Body)) != `{"status":"ok"}` {
		t.Errorf("/healthz body = %s", res.Body)
	}
}

func TestAuthenticationErrors(t *testing.T) {
	h := apitest.Start(t)
	res := h.Get("/healthz", "not-a-real-token")
	if res.Status != http.StatusOK {
		t.Errorf("public route with a bad token = %d", res.Status)
	}
}

// TestDiscovery covers what the official apps and the reference's
// self-hosted set-up find an instance by: /.well-known/stoat, GET / with
// both version names, the /0.8 base and the events socket at /ws.
func TestDiscovery(t *testing.T) {
	h := apitest.Start(t, func(c *config.Config) { c.Public.APIURL = "https://chat.example.com/api" })
	res := h.Do(apitest.Request{Method: http.MethodGet, Path: "/.well-known/stoat",
		Header: map[string]string{"Origin": "https://app.example.net"}})
	if res.Status != http.StatusOK || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /.well-known/stoat = %d %v %s", res.Status, res.Header, res.Body)
	}
	apitest.CheckSchema(t, "WellKnownStoat", res.Body)
	if got := res.Map(t); len(got) != 1 || got["api"] != "https://chat.example.com/api" {
		t.Errorf("well-known = %s", res.Body)
	}
	// Without an Origin too (the apps' HTTP clients send none).
	if res := h.Get("/.well-known/stoat", ""); res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("no Access-Control-Allow-Origin without an Origin: %v", res.Header)
	}

	root := h.Get("/0.8/", "").Map(t)
	if root["revolt"] != "0.8.9" || root["stoat"] != root["revolt"] {
		t.Errorf("revolt = %v, stoat = %v", root["revolt"], root["stoat"])
	}
	if h.Get("/0.8/users/@me", "").Status != http.StatusUnauthorized {
		t.Error("the /0.8 base does not reach the API")
	}

	u := h.NewUser("wsuser")
	ws := h.ConnectAt("/ws", u.Token)
	ws.Send(map[string]any{"type": "Ping", "data": 7})
	if p := ws.Expect("Pong"); p["data"] != 7.0 {
		t.Errorf("Pong over /ws = %v", p)
	}
}
