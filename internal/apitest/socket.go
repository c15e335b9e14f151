package apitest

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Socket is a JSON events connection of one session, read into a channel.
type Socket struct {
	t      testing.TB
	c      *websocket.Conn
	frames chan map[string]any
	closed chan struct{}
}

// socketWait bounds each wait for a packet.
const socketWait = 5 * time.Second

// Connect opens the events WebSocket with token and reads Authenticated
// and Ready; the connection closes when the test ends.
func (h *Harness) Connect(token string) *Socket {
	h.t.Helper()
	return h.ConnectAt("/events", token)
}

// ConnectAt is Connect through another path of the events socket (/ws).
func (h *Harness) ConnectAt(path, token string) *Socket {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), socketWait)
	defer cancel()
	u := "ws" + strings.TrimPrefix(h.URL, "http") + path + "?" + url.Values{"version": {"1"}, "format": {"json"}, "token": {token}}.Encode()
	c, _, err := websocket.Dial(ctx, u, nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		h.t.Fatalf("apitest: dial events: %v", err)
	}
	c.SetReadLimit(16 << 20)
	s := &Socket{t: h.t, c: c, frames: make(chan map[string]any, 1024), closed: make(chan struct{})}
	go s.read()
	h.t.Cleanup(func() { _ = c.CloseNow() })
	s.Expect("Authenticated")
	s.Expect("Ready")
	return s
}

func (s *Socket) read() {
	defer close(s.closed)
	for {
		_, b, err := s.c.Read(context.Background())
		if err != nil {
			return
		}
		var p map[string]any
		if json.Unmarshal(b, &p) == nil {
			s.frames <- p
		}
	}
}

// Expect skips packets until one of type typ arrives and returns it,
// failing the test after a few seconds or when the connection closes.
func (s *Socket) Expect(typ string) map[string]any {
	s.t.Helper()
	deadline := time.After(socketWait)
	for {
		select {
		case p := <-s.frames:
			if p["type"] == typ {
				return p
			}
		case <-s.closed:
			select {
			case p := <-s.frames:
				if p["type"] == typ {
					return p
				}
				continue
			default:
			}
			s.t.Fatalf("apitest: connection closed while waiting for %s", typ)
			return nil
		case <-deadline:
			s.t.Fatalf("apitest: no %s within %s", typ, socketWait)
			return nil
		}
	}
}

// None fails the test if a packet of type typ arrives within d.
func (s *Socket) None(typ string, d time.Duration) {
	s.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case p := <-s.frames:
			if p["type"] == typ {
				s.t.Fatalf("apitest: unexpected %s: %v", typ, p)
			}
		case <-deadline:
			return
		}
	}
}

// NoneOf fails the test if a packet of any of types arrives within d.
func (s *Socket) NoneOf(d time.Duration, types ...string) {
	s.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case p := <-s.frames:
			for _, typ := range types {
				if p["type"] == typ {
					s.t.Fatalf("apitest: unexpected %s: %v", typ, p)
				}
			}
		case <-deadline:
			return
		}
	}
}

// Closed reports whether the server closed the connection within d.
func (s *Socket) Closed(d time.Duration) bool {
	select {
	case <-s.closed:
		return true
	case <-time.After(d):
		return false
	}
}

// ExpectMatch skips packets until one of type typ for which match holds.
func (s *Socket) ExpectMatch(typ string, match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	deadline := time.After(socketWait)
	for {
		select {
		case p := <-s.frames:
			if p["type"] == typ && match(p) {
				return p
			}
		case <-deadline:
			s.t.Fatalf("apitest: no matching %s within %s", typ, socketWait)
			return nil
		}
	}
}

// Send writes one JSON packet.
func (s *Socket) Send(v any) {
	s.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), socketWait)
	defer cancel()
	if err := s.c.Write(ctx, websocket.MessageText, b); err != nil {
		s.t.Fatalf("apitest: send: %v", err)
	}
}
