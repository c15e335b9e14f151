package server

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"ermine/internal/gateway"
)

// Limits of what a client may send before any route sees it. Bodies
// have their own limits per route (JSON bodies [limits] body_bytes,
// uploads [files.limits]).
const (
	// maxHeaderBytes bounds the request line and headers together.
	maxHeaderBytes = 1 << 20
	// maxURLBytes bounds the request target (path and query).
	maxURLBytes = 16 << 10
)

// rawErrorHeaders is what net/http writes after the status line of the
// answers it sends on its own, before a handler runs (oversized or
// malformed header blocks): plain text, not an error body clients read.
const rawErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// jsonErrors wraps a listener so that net/http's own plain-text error
// answers (431 for a header block over maxHeaderBytes, 400 for a
// malformed request or header value) reach the client as the API's
// error body instead: {"type":"FailedValidation","error":...} with the
// same status. Those answers are written in one call straight to the
// connection, with headers no handler response has in that order. With
// a lane, the first request of each connection goes to it first.
type jsonErrors struct {
	net.Listener
	lane *eventsLane
}

func (l jsonErrors) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &errorConn{Conn: c, lane: l.lane}, nil
}

// errorConn rewrites net/http's raw error answers; every other write
// passes through unchanged. Its first read is offered to its lane.
type errorConn struct {
	net.Conn
	// lane is the events lane until the first read.
	lane *eventsLane
}

func (c *errorConn) Write(b []byte) (int, error) {
	if out, ok := rewriteRawError(b); ok {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// Read reads the connection. The first read (net/http's, for the
// request line) goes to the events lane first: when the lane takes the
// request, the connection is the gateway's, and net/http reads the end
// of it and forgets it (an end before a request is not answered).
func (c *errorConn) Read(p []byte) (int, error) {
	lane := c.lane
	if lane == nil {
		return c.Conn.Read(p)
	}
	c.lane = nil
	n, err := c.Conn.Read(p)
	if n > 0 && lane.offer(c.Conn, p[:n]) {
		return 0, io.EOF
	}
	return n, err
}

// eventsPaths are where the events socket is served. "/ws" is the path
// the reference's self-hosted proxy gives it.
var eventsPaths = []string{"/events", "/events/", "/ws"}

// eventsLane takes the WebSocket upgrades to the events socket off new
// connections before net/http parses them (gateway.Adopt), when the
// first read holds the whole request: net/http's parsing, its buffers
// and the hijack cost about a tenth of a connect's CPU. Whatever it
// does not take, net/http reads as it always did, so every answer but
// a successful upgrade's comes from the same handlers.
type eventsLane struct {
	gw      *gateway.Gateway
	trusted []netip.Prefix
}

// offer gives the lane head, the first bytes read off c, and reports
// whether it took c. A request for an events path is read, and its
// handshake run, on a goroutine of its own, while net/http's goroutine
// waits for the answer: a request is read deep in net/http's calls,
// where the reading alone outgrows the goroutine's first stack, and a
// stack grown there has every frame under it copied and adjusted (on
// a new goroutine it has one or two).
func (l *eventsLane) offer(c net.Conn, head []byte) bool {
	if !bytes.HasPrefix(head, []byte("GET /events")) && !bytes.HasPrefix(head, []byte("GET /ws")) {
		return false
	}
	took := make(chan bool, 1)
	go func() {
		run, ok := l.take(c, head)
		took <- ok // head is net/http's again from here
		if ok {
			run()
		}
	}()
	return <-took
}

// take serves head when it is the whole of an upgrade request to one of
// eventsPaths that the gateway takes; it reports whether it did (c is
// then the gateway's, and run carries its handshake on).
func (l *eventsLane) take(c net.Conn, head []byte) (run func(), ok bool) {
	u, ok := gateway.ReadUpgrade(head)
	if !ok || !slices.Contains(eventsPaths, u.Path) {
		return nil, false
	}
	// The client's address as behindProxies gives it to ServeHTTP.
	remote := c.RemoteAddr().String()
	if client, ok := forwardedClient(l.trusted, remote, u.Forwarded); ok {
		remote = net.JoinHostPort(client.String(), "0")
	}
	return l.gw.Adopt(c, u, remote)
}

// NetConn returns the network connection under the wrapper: the events
// gateway moves an upgraded connection's descriptor to its poller, which
// writes to it directly.
func (c *errorConn) NetConn() net.Conn { return c.Conn }

// ReadFrom keeps the connection's zero-copy path (sendfile) for bodies.
func (c *errorConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// rewriteRawError turns "HTTP/1.1 431 Request Header Fields Too
// Large<rawErrorHeaders>text" into the same status with a JSON body.
func rewriteRawError(b []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 4 || rest[3] != ' ' {
		return nil, false
	}
	status, err := strconv.Atoi(string(rest[:3]))
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	i := bytes.Index(rest, []byte(rawErrorHeaders))
	if i < 0 || bytes.IndexByte(rest[:i], '\n') >= 0 {
		return nil, false
	}
	text := string(rest[i+len(rawErrorHeaders):])
	msg := "request: " + strings.ToLower(http.StatusText(status))
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		msg = "headers: larger than " + strconv.Itoa(maxHeaderBytes) + " bytes"
	case http.StatusBadRequest:
		if _, detail, ok := strings.Cut(text, ": "); ok {
			msg = "request: " + detail
		} else {
			msg = "request: malformed"
		}
	}
	body, _ := json.Marshal(map[string]string{"type": "FailedValidation", "error": msg, "location": "router"})
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	out.WriteString("Content-Type: application/json\r\nConnection: close\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	out.Write(body)
	return out.Bytes(), true
}

// limitURL answers a request target longer than maxURLBytes with 414 and
// the API's error body.
func limitURL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.RequestURI) > maxURLBytes {
			writeError(w, http.StatusRequestURITooLong, "url: longer than "+strconv.Itoa(maxURLBytes)+" bytes")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer serves h only to requests carrying "Authorization: Bearer
// token"; others get 401 with an error body.
func bearer(token string, h http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			body, _ := json.Marshal(map[string]string{"type": "NotAuthenticated", "location": "GET /metrics"})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write(body)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// writeError writes the API's FailedValidation body with a status.
func writeError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]string{"type": "FailedValidation", "error": msg, "location": "router"})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
