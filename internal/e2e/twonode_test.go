package e2e_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/testbed"
)

// TestTwoNodes runs two ermine processes sharing one PostgreSQL database
// and one NATS server, and checks that what a user does through one node
// reaches a WebSocket connected to the other, in both directions.
func TestTwoNodes(t *testing.T) {
	pgURL, natsURL := services(t)
	db := testbed.Database(t, pgURL)
	bin := testbed.BuildErmine(t)
	env := []string{
		"ERMINE_DATABASE_URL=" + db,
		"ERMINE_BUS_KIND=nats",
		"ERMINE_BUS_URL=" + natsURL,
		"ERMINE_LIMITS_RATE_LIMITS=false",
		// The cheapest password hashes configuration allows: the test
		// logs in twice and measures nothing about hashing.
		"ERMINE_PASSWORDS_MEMORY_KIB=64",
		"ERMINE_PASSWORDS_PASSES=1",
	}
	one := startNode(t, bin, t.TempDir(), env)
	two := startNode(t, bin, t.TempDir(), env)

	alice := one.newUser(t, "alice")
	bob := two.newUser(t, "bob")

	var created struct {
		Server struct {
			ID string `json:"_id"`
		} `json:"server"`
		Channels []struct {
			ID string `json:"_id"`
		} `json:"channels"`
	}
	one.call(t, "POST", "/servers/create", alice, map[string]any{"name": "Two nodes"}, &created)
	if len(created.Channels) == 0 {
		t.Fatal("created server has no channel")
	}
	serverID, general := created.Server.ID, created.Channels[0].ID
	var invite struct {
		Code string `json:"_id"`
	}
	one.call(t, "POST", "/channels/"+general+"/invites", alice, nil, &invite)
	two.call(t, "POST", "/invites/"+invite.Code, bob, nil, nil)

	bobWS := two.connect(t, bob)
	aliceWS := one.connect(t, alice)

	t.Run("channel created on one reaches two", func(t *testing.T) {
		var ch struct {
			ID string `json:"_id"`
		}
		one.call(t, "POST", "/servers/"+serverID+"/channels", alice,
			map[string]any{"type": "Text", "name": "across"}, &ch)
		p := bobWS.waitFor(t, "ChannelCreate", func(p packet) bool { return p.str("_id") == ch.ID })
		if p.str("server") != serverID || p.str("name") != "across" {
			t.Errorf("ChannelCreate on node two = %v", p)
		}
	})
	t.Run("server edited on one reaches two", func(t *testing.T) {
		one.call(t, "PATCH", "/servers/"+serverID, alice, map[string]any{"name": "Renamed"}, nil)
		bobWS.waitFor(t, "ServerUpdate", func(p packet) bool {
			data, _ := p["data"].(map[string]any)
			return p.str("id") == serverID && data["name"] == "Renamed"
		})
	})
	t.Run("typing on two reaches one", func(t *testing.T) {
		bobWS.send(t, map[string]any{"type": "BeginTyping", "channel": general})
		aliceWS.waitFor(t, "ChannelStartTyping", func(p packet) bool {
			return p.str("id") == general && p.str("user") == bob.id
		})
	})
}

// services returns the PostgreSQL and NATS URLs of the test environment,
// skipping the test when they are not set, or failing it under CI.
func services(t *testing.T) (pgURL, natsURL string) {
	t.Helper()
	urls := testbed.Env(t, "ERMINE_TEST_POSTGRES", "ERMINE_TEST_NATS")
	return urls[0], urls[1]
}

// node is one running ermine process.
type node struct {
	base string // http://host:port
	p    *testbed.Process
}

// kill ends the node with SIGKILL, as a crash would, and waits for it.
func (n *node) kill(t *testing.T) {
	t.Helper()
	if err := n.p.Kill(); err != nil {
		t.Fatalf("kill node: %v", err)
	}
}

// startNode runs bin on a free loopback port with its data in the
// directory data and env added to this process's environment (minus its
// own ERMINE_ settings), and waits until it answers. The process is
// stopped with SIGINT when the test ends.
func startNode(t *testing.T, bin, data string, env []string) *node {
	t.Helper()
	p := testbed.Ermine(t, bin, data, env...)
	return &node{base: p.URL, p: p}
}

// user is an account with a session, made through the public API. ip is
// the client address its requests claim in X-Forwarded-For, which nodes
// that trust loopback as a proxy count rate limits by (the address is
// only a header: nothing is sent to it).
type user struct {
	id, token, ip string
}

// newUser creates an account, logs in and completes onboarding with name.
func (n *node) newUser(t *testing.T, name string) user {
	t.Helper()
	email := name + "." + randomHex(t, 4) + "@ermine.test"
	password := "correct horse " + randomHex(t, 8)
	// An address of TEST-NET-3 (RFC 5737), a different one per user.
	b := make([]byte, 1)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	anon := user{ip: fmt.Sprintf("203.0.113.%d", b[0])}
	n.call(t, "POST", "/auth/account/create", anon, map[string]any{"email": email, "password": password}, nil)
	var login struct {
		Result string `json:"result"`
		UserID string `json:"user_id"`
		Token  string `json:"token"`
	}
	n.call(t, "POST", "/auth/session/login", anon, map[string]any{"email": email, "password": password}, &login)
	if login.Result != "Success" || login.Token == "" {
		t.Fatalf("login of %s: %+v", name, login)
	}
	u := user{id: login.UserID, token: login.Token, ip: anon.ip}
	n.call(t, "POST", "/onboard/complete", u, map[string]any{"username": name}, nil)
	return u
}

// call sends a JSON request as u (no session when u is zero), requires a
// 2xx answer and decodes it into out when out is not nil.
func (n *node) call(t *testing.T, method, path string, u user, body, out any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, n.base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if u.token != "" {
		req.Header.Set("X-Session-Token", u.token)
	}
	if u.ip != "" {
		req.Header.Set("X-Forwarded-For", u.ip)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s %s", method, path, res.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// socket is an events connection reading packets on a goroutine.
type socket struct {
	c       *websocket.Conn
	ready   packet // the Ready packet it opened with
	packets chan packet
	done    chan struct{}
	err     error
}

// packet is one decoded server packet.
type packet map[string]any

func (p packet) str(key string) string { s, _ := p[key].(string); return s }

// connect opens an events connection as u and reads Authenticated and
// Ready.
func (n *node) connect(t *testing.T, u user) *socket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	q := url.Values{"version": {"1"}, "format": {"json"}, "token": {u.token}}
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(n.base, "http")+"/events?"+q.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		t.Fatalf("dial events: %v", err)
	}
	c.SetReadLimit(8 << 20)
	s := &socket{c: c, packets: make(chan packet, 256), done: make(chan struct{})}
	go s.read()
	t.Cleanup(func() { c.Close(websocket.StatusNormalClosure, "") })
	for _, want := range []string{"Authenticated", "Ready"} {
		p := s.next(t)
		if p.str("type") != want {
			t.Fatalf("got %v, want %s", p, want)
		}
		s.ready = p
	}
	return s
}

func (s *socket) read() {
	defer close(s.done)
	for {
		_, b, err := s.c.Read(context.Background())
		if err != nil {
			s.err = err
			return
		}
		var p packet
		if err := json.Unmarshal(b, &p); err != nil {
			s.err = fmt.Errorf("decode %q: %w", b, err)
			return
		}
		s.packets <- p
	}
}

// next returns the next packet, failing after 20 seconds.
func (s *socket) next(t *testing.T) packet {
	t.Helper()
	select {
	case p := <-s.packets:
		return p
	case <-s.done:
		t.Fatalf("connection ended: %v", s.err)
	case <-time.After(20 * time.Second):
		t.Fatal("no packet within 20s")
	}
	return nil
}

// waitFor skips packets until one of type typ matching ok arrives.
func (s *socket) waitFor(t *testing.T, typ string, ok func(packet) bool) packet {
	t.Helper()
	var seen []string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		p := s.next(t)
		if p.str("type") == typ && ok(p) {
			return p
		}
		seen = append(seen, p.str("type"))
	}
	t.Fatalf("no matching %s; saw %v", typ, seen)
	return nil
}

// send writes a JSON packet.
func (s *socket) send(t *testing.T, p map[string]any) {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
