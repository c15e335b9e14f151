package gateway_test

import (
	"bufio"
	"bytes"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"ermine/internal/gateway"
)

// upgradeRequest is a well-formed upgrade request for target.
func upgradeRequest(target string, extra ...string) string {
	return "GET " + target + " HTTP/1.1\r\nHost: ermine.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + strings.Join(extra, "") + "\r\n"
}

func TestReadUpgrade(t *testing.T) {
	t.Parallel()
	u, ok := gateway.ReadUpgrade([]byte(upgradeRequest("/events?format=json&token=abc",
		"X-Forwarded-For: 198.51.100.1, 203.0.113.7\r\n", "Origin: https://app.ermine.test\r\n",
		"X-Forwarded-For: 192.0.2.1\r\n")))
	if !ok {
		t.Fatal("a well-formed upgrade was not read")
	}
	if u.Path != "/events" || u.RawQuery != "format=json&token=abc" {
		t.Errorf("path %q, query %q", u.Path, u.RawQuery)
	}
	if got := strings.Join(u.Forwarded, "|"); got != "198.51.100.1, 203.0.113.7|192.0.2.1" {
		t.Errorf("X-Forwarded-For values %q", got)
	}
	if u, ok := gateway.ReadUpgrade([]byte(upgradeRequest("/ws"))); !ok || u.Path != "/ws" || u.RawQuery != "" {
		t.Errorf("/ws without a query: %+v %v", u, ok)
	}

	for name, head := range map[string]string{
		"POST":                 strings.Replace(upgradeRequest("/events"), "GET", "POST", 1),
		"HTTP/1.0":             strings.Replace(upgradeRequest("/events"), "HTTP/1.1", "HTTP/1.0", 1),
		"no Upgrade":           strings.Replace(upgradeRequest("/events"), "Upgrade: websocket\r\n", "", 1),
		"another Upgrade":      strings.Replace(upgradeRequest("/events"), "Upgrade: websocket", "Upgrade: h2c", 1),
		"no Connection":        strings.Replace(upgradeRequest("/events"), "Connection: Upgrade\r\n", "", 1),
		"no key":               strings.Replace(upgradeRequest("/events"), "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", "", 1),
		"short key":            strings.Replace(upgradeRequest("/events"), "dGhlIHNhbXBsZSBub25jZQ==", "c2hvcnQ=", 1),
		"version 8":            strings.Replace(upgradeRequest("/events"), "Version: 13", "Version: 8", 1),
		"no Host":              strings.Replace(upgradeRequest("/events"), "Host: ermine.test\r\n", "", 1),
		"unfinished":           strings.TrimSuffix(upgradeRequest("/events"), "\r\n"),
		"a frame after it":     upgradeRequest("/events") + "\x81\x80abcd",
		"a second request":     upgradeRequest("/events") + upgradeRequest("/events"),
		"absolute target":      upgradeRequest("http://ermine.test/events"),
		"asterisk":             upgradeRequest("*"),
		"control in target":    upgradeRequest("/events?token=a\x01b"),
		"non-ASCII in target":  upgradeRequest("/events?token=\xc3\xa9"),
		"header without colon": upgradeRequest("/events", "Broken header\r\n"),
		"empty":                "",
		"NUL in a header":      upgradeRequest("/events", "X-Session-Token: a\x00b\r\n"),
		"space in a name":      upgradeRequest("/events", "Bad Name: x\r\n"),
		"space before a colon": upgradeRequest("/events", "Origin : x\r\n"),
		"folded line":          upgradeRequest("/events", "Origin: x\r\n  y\r\n"),
		"bare LF":              upgradeRequest("/events", "Origin: x\ny: z\r\n"),
		"two Hosts":            upgradeRequest("/events", "Host: other.test\r\n"),
		"bad Host":             strings.Replace(upgradeRequest("/events"), "ermine.test", "ermine test", 1),
		"a body":               upgradeRequest("/events", "Content-Length: 0\r\n"),
		"chunked":              upgradeRequest("/events", "Transfer-Encoding: chunked\r\n"),
	} {
		if u, ok := gateway.ReadUpgrade([]byte(head)); ok {
			t.Errorf("%s: read as an upgrade: %+v", name, u)
		}
	}
}

// FuzzReadUpgrade: any bytes are read as an upgrade or refused, never a
// panic, and what is read has a path and an answer to send.
func FuzzReadUpgrade(f *testing.F) {
	f.Add([]byte(upgradeRequest("/events?format=msgpack&token=abc", "X-Forwarded-For: 203.0.113.7\r\n")))
	f.Add([]byte(upgradeRequest("/ws")))
	f.Add([]byte("GET /events HTTP/1.1\r\n\r\n"))
	f.Add([]byte(upgradeRequest("/events") + "\x81\x80abcd"))
	f.Fuzz(func(t *testing.T, head []byte) {
		u, ok := gateway.ReadUpgrade(head)
		if !ok {
			return
		}
		if !strings.HasPrefix(u.Path, "/") || strings.ContainsAny(u.Path, "? \r\n") {
			t.Fatalf("path %q", u.Path)
		}
		if !bytes.HasSuffix(head, []byte("\r\n\r\n")) {
			t.Fatalf("read an unfinished request %q", head)
		}
	})
}

// laneServer serves h's gateway the way the server's events lane does:
// it reads each connection's first bytes and hands them to ReadUpgrade
// and Adopt, on a goroutine of the connection's that runs the rest. A request they do not take is answered 418, so a test sees
// which way it went. It returns the URL to dial.
func laneServer(t testing.TB, h *harness) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 4096)
				n, err := c.Read(buf)
				if err != nil {
					c.Close()
					return
				}
				if u, ok := gateway.ReadUpgrade(buf[:n]); ok {
					if run, ok := h.gw.Adopt(c, u, "192.0.2.1:4000"); ok {
						run()
						return
					}
				}
				_, _ = c.Write([]byte("HTTP/1.1 418 I'm a teapot\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
				c.Close()
			}()
		}
	}()
	return "ws://" + l.Addr().String() + "/events"
}

func TestAdopt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{UnauthenticatedPerIP: 2})
	owner, _ := h.user("owner")
	s, _ := h.server(owner.ID)
	u, tok := h.user("member")
	h.join(s.ID, u.ID)
	lane := *h
	lane.url = laneServer(t, h)

	// A token in the URL: Authenticated and Ready, in both formats, as
	// through ServeHTTP.
	for _, format := range []string{"json", "msgpack"} {
		_, viaHTTP := h.connect(t, tok, format)
		_, adopted := lane.connect(t, tok, format)
		if count(adopted, "servers") != 1 || count(adopted, "channels") != count(viaHTTP, "channels") ||
			count(adopted, "users") != count(viaHTTP, "users") {
			t.Errorf("%s: the adopted connection's Ready differs: %v, through ServeHTTP %v", format, adopted, viaHTTP)
		}
	}

	// Without one: the answer comes first, then Authenticate.
	cl := lane.dial(t, url.Values{"version": {"1"}, "format": {"json"}})
	cl.send(map[string]any{"type": "Authenticate", "token": tok})
	cl.expect("Authenticated")
	cl.expect("Ready")

	// Unauthenticated connections count against their address's cap:
	// the third is not adopted, and ServeHTTP would answer it 429.
	open := []*client{lane.dial(t, url.Values{"version": {"1"}})}
	open = append(open, lane.dial(t, url.Values{"version": {"1"}}))
	if _, err := lane.tryDial(t, url.Values{"version": {"1"}}); err == nil || !strings.Contains(err.Error(), "418") {
		t.Errorf("a third unauthenticated connection from one address: %v, want it left to net/http", err)
	}
	open[0].send(map[string]any{"type": "Authenticate", "token": tok})
	open[0].expect("Authenticated")
	// Its handshake left the count before Authenticated was written, so
	// the place is free now.
	third, err := lane.tryDial(t, url.Values{"version": {"1"}})
	if err != nil {
		t.Fatalf("an address under its cap again was not adopted: %v", err)
	}
	third.send(map[string]any{"type": "Authenticate", "token": "not a session"})
	third.expect("Error")
}

// TestAdoptWhenShutDown: a gateway shutting down adopts nothing.
func TestAdoptWhenShutDown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	if err := h.gw.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	server, client := tcpPair(t)
	u, ok := gateway.ReadUpgrade([]byte(upgradeRequest("/events")))
	if !ok {
		t.Fatal("not read")
	}
	if _, ok := h.gw.Adopt(server, u, "192.0.2.1:4000"); ok {
		t.Fatal("a gateway shut down adopted a connection")
	}
	// Nothing was written to the connection, which is still open.
	_ = client.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, err := bufio.NewReader(client).Peek(1); len(n) != 0 || !isTimeout(err) {
		t.Errorf("the client read %q, %v", n, err)
	}
}

// count is the length of a packet's array.
func count(p packet, key string) int {
	l, _ := p[key].([]any)
	return len(l)
}

// tcpPair is both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
