package gateway

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/gobwas/ws"
	"golang.org/x/net/http/httpguts"

	"ermine/internal/ratelimit"
)

// Upgrade is a WebSocket upgrade request read off a connection without
// net/http (ReadUpgrade), for Adopt.
type Upgrade struct {
	// Path and RawQuery are the request target's, split at its '?'.
	Path, RawQuery string
	// Forwarded are the values of its X-Forwarded-For headers.
	Forwarded []string
	// answer is the answer to the handshake, not yet sent.
	answer []byte
}

// headEnd ends a request's header block.
var headEnd = []byte("\r\n\r\n")

// ReadUpgrade reads a WebSocket upgrade request (RFC 6455 §4.2.1) from
// head, which must hold all of it and nothing after it. It reports
// false for anything else: a request that is not an upgrade, or is
// malformed, unfinished or followed by more bytes (frames may not be
// sent before the answer), or has a header net/http would refuse
// (plainHead), or a target with bytes other than printable ASCII. The
// caller then leaves the request to net/http, and ServeHTTP answers it
// the ordinary way (an error body for a bad request).
func ReadUpgrade(head []byte) (*Upgrade, bool) {
	if i := bytes.Index(head, headEnd); i < 0 || i+len(headEnd) != len(head) || !plainHead(head[:i]) {
		return nil, false
	}
	u := &Upgrade{}
	var answer bytes.Buffer
	target := ""
	up := ws.Upgrader{
		OnRequest: func(uri []byte) error {
			target = string(uri)
			return nil
		},
		OnHeader: func(key, value []byte) error {
			if string(key) == "X-Forwarded-For" {
				u.Forwarded = append(u.Forwarded, string(value))
			}
			return nil
		},
	}
	// The library answers the handshake to answer; no subprotocol or
	// extension is agreed, as with the poller's upgrade.
	if _, err := up.Upgrade(struct {
		io.Reader
		io.Writer
	}{bytes.NewReader(head), &answer}); err != nil {
		return nil, false
	}
	for i := range len(target) {
		if target[i] <= ' ' || target[i] >= 0x7f {
			return nil, false
		}
	}
	if len(target) == 0 || target[0] != '/' {
		return nil, false
	}
	u.Path, u.RawQuery, _ = strings.Cut(target, "?")
	u.answer = answer.Bytes()
	return u, true
}

// plainHead reports whether the request line and header lines in
// block (a header block without its blank line) are ones net/http
// takes as they are: lines ended by CRLF, valid header names and values
// (no control bytes), no folded lines, one Host, and no body
// announced, which would have to be read before any frame.
func plainHead(block []byte) bool {
	line, rest, _ := bytes.Cut(block, crlf)
	if bytes.ContainsAny(line, "\r\n\x00\t") {
		return false
	}
	hosts := 0
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, crlf)
		name, value, ok := bytes.Cut(line, []byte(":"))
		value = bytes.Trim(value, " \t")
		if !ok || !httpguts.ValidHeaderFieldName(string(name)) || !httpguts.ValidHeaderFieldValue(string(value)) {
			return false
		}
		switch {
		case bytes.EqualFold(name, []byte("Host")):
			if hosts++; hosts > 1 || !httpguts.ValidHostHeader(string(value)) {
				return false
			}
		case bytes.EqualFold(name, []byte("Content-Length")), bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return false
		}
	}
	return true
}

var crlf = []byte("\r\n")

// Adopt serves, as ServeHTTP does, an events connection whose upgrade
// request the server read off tcp itself (ReadUpgrade) rather than
// through net/http, from the client at remote (host:port, as a
// request's RemoteAddr gives it; behind trusted proxies, the client
// they name): net/http's parsing of the request and its buffers, and
// the upgrade's hijack, are about a tenth of a connect's CPU. It reports
// false, having read, written and kept nothing, when the gateway would
// refuse the connection (shutting down, or the client's address already
// holding the most unauthenticated connections allowed) or tcp is not a
// TCP connection: the caller then hands the request to net/http, and
// ServeHTTP answers the refusal as it always does. Otherwise tcp is the
// gateway's, and the caller calls run once to carry the handshake on
// (authentication, Ready). run first grows its goroutine's stack to
// what a handshake needs (growStack), which costs little on a goroutine
// with a frame or two on it; grown deep in net/http's read of a
// request, every frame under it was copied and adjusted, a fifteenth of
// a connect.
func (g *Gateway) Adopt(tcp net.Conn, u *Upgrade, remote string) (run func(), ok bool) {
	if _, ok := tcp.(*net.TCPConn); !ok {
		return nil, false
	}
	ip := ratelimit.Host(remote)
	if g.shuttingDown() || !g.admit(ip) {
		return nil, false
	}
	q, _ := url.ParseQuery(u.RawQuery) // what net/http's r.URL.Query() keeps
	c := g.newConn(ip, q)
	token := q.Get("token")
	head := u.answer
	nothing := func() {}
	if token == "" {
		// The client waits for the answer before it sends Authenticate;
		// a connection with a token gets it with Ready (poller.upgrade).
		if _, err := tcp.Write(head); err != nil {
			_ = tcp.Close()
			c.authDone()
			return nothing, true
		}
		head = nil
	}
	s, err := g.poller.adopt(tcp, head, c)
	if err != nil {
		c.authDone()
		g.log.Debug("events: adopt failed", "err", err)
		return nothing, true
	}
	return func() {
		_ = growStack(len(u.RawQuery))
		g.open(c, s, token)
	}, true
}
