package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/gateway"
)

// TestChurn opens connections as fast as several clients can while the
// ones before end in each way a connection ends: the server closing it
// after an Error, the client's close frame, the client dropping TCP.
// Every new connection must be answered. The poller's library looks
// sockets up by descriptor number, and a new connection is given the
// lowest free one, often one just closed: a socket closed off the
// poller's goroutine left the poller a stale hang-up under that number,
// which cut the next connection before its answer (poller.go, end). With
// the race detector and a loaded machine that failed about every other
// run.
func TestChurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	_, token := h.user("me")
	// A session whose account has no username yet: its Error is not a
	// failed attempt, which the guard would count against the address.
	pending := h.session(chat.NewID())
	const workers, rounds = 6, 150
	var unanswered, done atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				way := (w + i) % 3
				q := url.Values{"format": {"json"}, "token": {token}}
				if way == 0 {
					q.Set("token", pending)
				}
				ctx, cancel := context.WithTimeout(t.Context(), wait)
				c, _, err := websocket.Dial(ctx, h.url+"?"+q.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
				if err != nil {
					cancel()
					t.Errorf("dial: %v", err)
					return
				}
				c.SetReadLimit(8 << 20)
				_, b, err := c.Read(ctx)
				var p struct{ Type string }
				if err == nil {
					err = json.Unmarshal(b, &p)
				}
				switch {
				case err != nil:
					if unanswered.Add(1) <= 5 {
						t.Errorf("connection %d of worker %d closed before its first packet: %v", i, w, err)
					}
				case way == 0 && p.Type != "Error", way != 0 && p.Type != "Authenticated":
					t.Errorf("first packet %s", b)
				}
				switch way {
				case 0: // the server closes after its Error
					for err == nil {
						_, _, err = c.Read(ctx)
					}
				case 1:
					_ = c.Close(websocket.StatusNormalClosure, "")
				case 2:
					_ = c.CloseNow()
				}
				cancel()
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if n := unanswered.Load(); n > 0 {
		t.Errorf("%d of %d connections were closed unanswered", n, done.Load())
	}
}

// TestChildProcess starts a process while connections are open, as the
// files service does to describe a video (ffprobe), and checks that the
// child holds none of their sockets: one a client then closes must not
// live on in the child, where the poller would go on seeing its
// hang-up under its descriptor number and cut the next connection given
// that number.
func TestChildProcess(t *testing.T) {
	t.Parallel()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command to start")
	}
	h := newHarness(t, gateway.Options{})
	_, token := h.user("me")
	var open []*client
	for range 10 {
		cl, _ := h.connect(t, token, "json")
		open = append(open, cl)
	}
	child := exec.Command(sleep, "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	// On Linux, what the child holds is listed in /proc.
	if fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", child.Process.Pid)); err == nil {
		for _, fd := range fds {
			if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", child.Process.Pid, fd.Name())); strings.HasPrefix(target, "socket:") {
				t.Errorf("the child holds descriptor %s, a %s", fd.Name(), target)
			}
		}
	}
	for _, cl := range open {
		_ = cl.c.CloseNow()
	}
	time.Sleep(quiet) // the poller sees the hang-ups and closes the sockets
	for i := range 50 {
		cl, err := h.tryDial(t, url.Values{"format": {"json"}, "token": {token}})
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		select {
		case f := <-cl.frames:
			if p := cl.decode(f); p.Type() != "Authenticated" {
				t.Fatalf("connection %d: first packet %v", i, p)
			}
		case <-cl.closed:
			t.Fatalf("connection %d closed before its first packet: %v", i, cl.err)
		case <-time.After(wait):
			t.Fatalf("connection %d: no packet", i)
		}
	}
}
