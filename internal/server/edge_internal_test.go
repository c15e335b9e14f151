package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// FuzzRewriteRawError: whatever is written to a connection, the rewrite
// either leaves it alone or produces one well-formed HTTP response with
// a JSON error body and an error status.
func FuzzRewriteRawError(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 431 Request Header Fields Too Large" + rawErrorHeaders + "431 Request Header Fields Too Large",
		"HTTP/1.1 400 Bad Request: invalid header value" + rawErrorHeaders + "400 Bad Request: invalid header value",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nok",
		"HTTP/1.1 501 Not Implemented" + rawErrorHeaders + "Unsupported transfer encoding",
		"HTTP/1.1 4x1 " + rawErrorHeaders,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, ok := rewriteRawError(in)
		if !ok {
			return
		}
		res, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), nil)
		if err != nil {
			t.Fatalf("rewrite of %q is not a response: %v", in, err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var m map[string]any
		if res.StatusCode < 400 || json.Unmarshal(body, &m) != nil || m["type"] != "FailedValidation" {
			t.Fatalf("rewrite of %q = %d %q", in, res.StatusCode, body)
		}
	})
}

func TestRewriteLeavesResponsesAlone(t *testing.T) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n",
		"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nx",
		"some body bytes " + rawErrorHeaders,
	} {
		if _, ok := rewriteRawError([]byte(s)); ok {
			t.Errorf("rewrote %q", s)
		}
	}
}

// TestErrorConnKeepsDescriptor checks that a connection accepted through
// jsonErrors still reaches the TCP connection under it: the events
// gateway moves an upgraded connection's descriptor to its poller.
func TestErrorConnKeepsDescriptor(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := net.Dial("tcp", l.Addr().String())
		if err == nil {
			defer c.Close()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	c, err := jsonErrors{Listener: l}.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	u, ok := c.(interface{ NetConn() net.Conn })
	if !ok {
		t.Fatal("the accepted connection has no NetConn")
	}
	if _, ok := u.NetConn().(*net.TCPConn); !ok {
		t.Fatalf("NetConn is a %T, want the *net.TCPConn", u.NetConn())
	}
}
