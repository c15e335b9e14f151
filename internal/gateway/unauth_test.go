package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/gateway"
)

// One address may hold only UnauthenticatedPerIP connections that have
// not authenticated: the next is refused with 429 and a JSON body until
// one of them authenticates or closes. Authenticated connections do not
// count.
func TestUnauthenticatedPerIPCap(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{UnauthenticatedPerIP: 3, AuthTimeout: time.Minute})
	_, token := h.user("alice")
	var open []*client
	for range 3 {
		open = append(open, h.dial(t, url.Values{"format": {"json"}}))
	}
	refused := func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		c, res, err := websocket.Dial(ctx, h.url+"?format=json", nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
		if err == nil {
			_ = c.CloseNow()
			t.Fatal("a fourth unauthenticated connection was accepted")
		}
		if res == nil || res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("refusal = %v, %v; want 429", res, err)
		}
		body, _ := io.ReadAll(res.Body)
		var m map[string]any
		if json.Unmarshal(body, &m) != nil || m["type"] == nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Errorf("refusal body = %q (%s), want a JSON error", body, res.Header.Get("Content-Type"))
		}
		// The error catalogue's own type, as every other error body.
		if want, _ := json.Marshal(chat.ErrTooManyRequests(10000)); string(body) != string(want) {
			t.Errorf("refusal body = %s, want the catalogue's %s", body, want)
		}
	}
	refused()
	// Authenticating frees a place.
	open[0].send(map[string]any{"type": "Authenticate", "token": token})
	open[0].expect("Authenticated")
	open[0].expect("Ready")
	waitFor(t, func() bool { return dialOK(t, h) })
	refused()
	// So does closing.
	open[1].c.Close(websocket.StatusNormalClosure, "")
	waitFor(t, func() bool { return dialOK(t, h) })
	refused()
}

// dialOK reports whether one more unauthenticated connection is accepted
// (it stays open until the test ends).
func dialOK(t *testing.T, h *harness) bool {
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, h.url+"?format=json", nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		return false
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return true
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A connection that does not authenticate within AuthTimeout is closed
// with 1008, in both formats, even while it keeps sending packets; one
// that authenticated in time stays open.
func TestAuthDeadline(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{AuthTimeout: 300 * time.Millisecond})
	_, token := h.user("alice")
	for _, format := range formats {
		cl := h.dial(t, url.Values{"format": {format}})
		start := time.Now()
		for range 3 {
			cl.send(map[string]any{"type": "Ping", "data": 1})
			time.Sleep(50 * time.Millisecond)
		}
		cl.mustCloseWith(websocket.StatusPolicyViolation)
		if d := time.Since(start); d < 250*time.Millisecond {
			t.Errorf("%s: closed after %v, before the deadline", format, d)
		}
	}
	cl, _ := h.connect(t, token, "json")
	time.Sleep(500 * time.Millisecond)
	cl.send(map[string]any{"type": "Ping", "data": 7})
	if p := cl.expect("Pong"); p["data"] != float64(7) {
		t.Errorf("pong = %v", p)
	}
}
