package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws/wsutil"

	"ermine/internal/apitest"
	"ermine/internal/config"
)

// Metrics are never on the public port by default; [metrics] listen
// serves them on their own address and [metrics] token on the public
// port behind a bearer token.
func TestMetrics(t *testing.T) {
	t.Parallel()
	t.Run("default", func(t *testing.T) {
		h := apitest.Start(t)
		res := get(t, h.URL+"/metrics", nil)
		if res.status != http.StatusNotFound || bytes.Contains(res.body, []byte("go_goroutines")) {
			t.Errorf("/metrics = %d %s", res.status, res.body)
		}
		if h.Server.MetricsAddr() != "" {
			t.Errorf("metrics address = %q with no [metrics] listen", h.Server.MetricsAddr())
		}
	})
	t.Run("listen", func(t *testing.T) {
		h := apitest.Start(t, func(c *config.Config) { c.Metrics.Listen = "127.0.0.1:0" })
		h.Get("/", "")
		res := get(t, "http://"+h.Server.MetricsAddr()+"/metrics", nil)
		if res.status != http.StatusOK || !bytes.Contains(res.body, []byte(`ermine_http_requests_total{method="GET",route="GET /{$}",status="200"}`)) ||
			!bytes.Contains(res.body, []byte("go_goroutines")) {
			t.Errorf("metrics listener = %d\n%.300s", res.status, res.body)
		}
		if res := get(t, h.URL+"/metrics", nil); res.status != http.StatusNotFound {
			t.Errorf("/metrics on the public port = %d", res.status)
		}
		if res := get(t, "http://"+h.Server.MetricsAddr()+"/debug/pprof/", nil); res.status != http.StatusNotFound {
			t.Errorf("profiler served without [metrics] profiling: %d", res.status)
		}
	})
	t.Run("profiling", func(t *testing.T) {
		h := apitest.Start(t, func(c *config.Config) { c.Metrics.Listen, c.Metrics.Profiling = "127.0.0.1:0", true })
		res := get(t, "http://"+h.Server.MetricsAddr()+"/debug/pprof/goroutine?debug=1", nil)
		if res.status != http.StatusOK || !bytes.Contains(res.body, []byte("goroutine profile")) {
			t.Errorf("profiler on the metrics listener = %d %.200s", res.status, res.body)
		}
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/goroutine"} {
			if res := get(t, h.URL+path, nil); res.status == http.StatusOK && bytes.Contains(res.body, []byte("profile")) {
				t.Errorf("%s served on the public port", path)
			}
		}
	})
	t.Run("token", func(t *testing.T) {
		h := apitest.Start(t, func(c *config.Config) { c.Metrics.Token = "s3cret-metrics" })
		for _, auth := range []string{"", "Bearer wrong", "s3cret-metrics", "Bearer s3cret-metricsX"} {
			res := get(t, h.URL+"/metrics", map[string]string{"Authorization": auth})
			if res.status != http.StatusUnauthorized || res.json(t)["type"] != "NotAuthenticated" {
				t.Errorf("Authorization %q: %d %s", auth, res.status, res.body)
			}
		}
		res := get(t, h.URL+"/metrics", map[string]string{"Authorization": "Bearer s3cret-metrics"})
		if res.status != http.StatusOK || !bytes.Contains(res.body, []byte("go_goroutines")) {
			t.Errorf("with the token: %d %.200s", res.status, res.body)
		}
	})
}

// Oversized header blocks and URLs get the API's JSON error body with
// 431 and 414, malformed header values 400, oversized JSON bodies 413;
// the node keeps answering.
func TestOversizedRequests(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t)
	addr := strings.TrimPrefix(h.URL, "http://")
	for _, tc := range []struct {
		name   string
		req    string
		status int
	}{
		{"header block over 1 MB", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<20+8192) + "\r\n\r\n", 431},
		{"many headers over 1 MB", "GET / HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-H: "+strings.Repeat("b", 1000)+"\r\n", 1100) + "\r\n", 431},
		{"URL over 16 KiB", "GET /users/" + strings.Repeat("c", 20000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414},
		{"NUL in a header value", "GET /users/@me HTTP/1.1\r\nHost: x\r\nX-Session-Token: a\x00b\r\n\r\n", 400},
		{"malformed request line", "GET\r\n\r\n", 400},
		{"body over the JSON limit", "POST /auth/account/create HTTP/1.1\r\nHost: x\r\nContent-Length: 1100000\r\n\r\n" +
			strings.Repeat(" ", 1100000), 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := raw(t, addr, tc.req)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %.200s", res.status, tc.status, res.body)
			}
			if ct := res.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if m := res.json(t); m["type"] != "FailedValidation" || m["error"] == "" {
				t.Errorf("body %s", res.body)
			}
		})
	}
	if res := get(t, h.URL+"/healthz", nil); res.status != http.StatusOK {
		t.Errorf("node after oversized requests: %d", res.status)
	}
}

type result struct {
	status int
	header http.Header
	body   []byte
}

func (r result) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not JSON: %q", r.body)
	}
	return m
}

func get(t *testing.T, url string, header map[string]string) result {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return result{res.StatusCode, res.Header, b}
}

// raw writes a request as bytes (net/http's client refuses to send
// what these tests need) and reads the answer.
func raw(t *testing.T, addr, req string) result {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	go func() { _, _ = io.WriteString(c, req) }() // the server may answer before reading it all
	res, err := http.ReadResponse(bufioReader(c), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return result{res.StatusCode, res.Header, b}
}

func bufioReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }

// TestTrustedProxies checks that behind a trusted proxy each client has
// its own rate limit (the /auth routes allow 3 calls per 10 s), and that
// without one the header is ignored.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	login := func(h *apitest.Harness, client string) int {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, h.URL+"/auth/session/login",
			strings.NewReader(`{"email":"nobody@ermine.test","password":"wrong password"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", client)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	behind := apitest.Start(t, func(c *config.Config) { c.Public.TrustedProxies = []string{"127.0.0.1"} })
	for i := range 3 {
		if got := login(behind, "203.0.113.7"); got == http.StatusTooManyRequests {
			t.Fatalf("call %d of the first client was limited", i+1)
		}
	}
	if got := login(behind, "203.0.113.7"); got != http.StatusTooManyRequests {
		t.Errorf("the first client's 4th call = %d, want 429", got)
	}
	if got := login(behind, "203.0.113.8"); got == http.StatusTooManyRequests {
		t.Errorf("another client behind the same proxy was limited too")
	}

	direct := apitest.Start(t)
	for i := range 3 {
		login(direct, "203.0.113."+string(rune('1'+i)))
	}
	if got := login(direct, "203.0.113.9"); got != http.StatusTooManyRequests {
		t.Errorf("without trusted proxies, a forged X-Forwarded-For escaped the limit: %d", got)
	}
}

// TestEventsLane: an upgrade to the events socket whose first read
// holds the whole request is taken before net/http parses it; one sent
// in pieces goes through net/http. Both get the same answer, and the
// address behind a trusted proxy counts against the cap of
// unauthenticated connections either way; what the lane does not take
// (over the cap, a header net/http refuses) gets net/http's answer.
func TestEventsLane(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, func(c *config.Config) {
		c.Public.TrustedProxies = []string{"127.0.0.1"}
		c.Gateway.UnauthenticatedPerIP = 2
	})
	addr := strings.TrimPrefix(h.URL, "http://")
	user := h.NewUser("lane")
	request := func(path string, headers ...string) string {
		return "GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + strings.Join(headers, "") + "\r\n"
	}
	// open sends req in pieces and returns the answer's status and
	// content type, and the connection with its reader.
	open := func(req string, pieces int) (int, string, net.Conn, *bufio.Reader) {
		t.Helper()
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		step := (len(req) + pieces - 1) / pieces
		for i := 0; i < len(req); i += step {
			if _, err := io.WriteString(c, req[i:min(i+step, len(req))]); err != nil {
				t.Fatal(err)
			}
			if pieces > 1 {
				time.Sleep(30 * time.Millisecond) // the server reads each piece apart
			}
		}
		br := bufio.NewReader(c)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("read the answer: %v", err)
		}
		res.Body.Close() // a 101's is empty
		return res.StatusCode, res.Header.Get("Content-Type"), c, br
	}
	frame := func(c net.Conn, br *bufio.Reader) string {
		t.Helper()
		b, err := wsutil.ReadServerText(struct {
			io.Reader
			io.Writer
		}{br, c})
		if err != nil {
			t.Fatalf("read a frame: %v", err)
		}
		var p struct{ Type string }
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("frame %q: %v", b, err)
		}
		return p.Type
	}

	for _, tc := range []struct {
		path   string
		pieces int
	}{{"/events", 1}, {"/events", 3}, {"/ws", 1}, {"/events/", 1}} {
		status, _, c, br := open(request(tc.path+"?version=1&format=json&token="+user.Token), tc.pieces)
		if status != http.StatusSwitchingProtocols {
			t.Fatalf("%s in %d pieces: status %d", tc.path, tc.pieces, status)
		}
		if a, r := frame(c, br), frame(c, br); a != "Authenticated" || r != "Ready" {
			t.Errorf("%s in %d pieces: %s, %s", tc.path, tc.pieces, a, r)
		}
	}

	// Two unauthenticated connections from one client behind the proxy
	// fill its cap; the third is answered 429, another client's is not.
	for i := range 2 {
		if status, _, _, _ := open(request("/events", "X-Forwarded-For: 203.0.113.7\r\n"), 1); status != http.StatusSwitchingProtocols {
			t.Fatalf("unauthenticated connection %d: status %d", i+1, status)
		}
	}
	status, ct, _, _ := open(request("/events", "X-Forwarded-For: 203.0.113.7\r\n"), 1)
	if status != http.StatusTooManyRequests || ct != "application/json" {
		t.Errorf("the third from one client: status %d, %s", status, ct)
	}
	if status, _, _, _ := open(request("/events", "X-Forwarded-For: 203.0.113.8\r\n"), 1); status != http.StatusSwitchingProtocols {
		t.Errorf("another client behind the proxy: status %d", status)
	}

	// A header net/http refuses is refused on the events path too.
	status, ct, _, _ = open(request("/events", "X-Session-Token: a\x00b\r\n"), 1)
	if status != http.StatusBadRequest || ct != "application/json" {
		t.Errorf("a NUL in a header: status %d, %s", status, ct)
	}
}
