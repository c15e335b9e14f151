package gateway_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/gateway"
)

// TestSendBufferCap checks that a client that stops reading is cut by the
// send queue bound after the gateway has pushed a bounded amount into
// the kernel: with the send buffer capped (the default) well under a
// megabyte, without the cap several megabytes (Linux grows the buffer
// up to net.ipv4.tcp_wmem's maximum).
func TestSendBufferCap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		sendBuf int
		check   func(t *testing.T, sent int)
	}{
		{"capped", 0, func(t *testing.T, sent int) {
			if sent > 1200<<10 {
				t.Errorf("cut after %d KB with the send buffer capped at %d KB; want under 1,200 KB",
					sent>>10, gateway.DefaultSendBuffer>>10)
			}
		}},
		// The control: the same client without the cap, where the kernel
		// may grow the buffer to megabytes.
		{"kernel sized", -1, func(t *testing.T, sent int) {
			if wmemMax() >= 4<<20 && sent < 1500<<10 {
				t.Errorf("cut after %d KB with the kernel's sizing; want over 1,500 KB (the test no longer tells the cap apart)", sent>>10)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sent := sentBeforeCut(t, tc.sendBuf)
			t.Logf("a client that never reads was cut after %d KB of frames", sent>>10)
			tc.check(t, sent)
		})
	}
}

// sentBeforeCut connects a client with a small receive buffer that
// authenticates and never reads, publishes 16 KB messages to it slowly
// enough for the gateway to write each at once, and returns how many
// bytes of message content were published before the gateway cut it.
func sentBeforeCut(t *testing.T, sendBuf int) int {
	h := newHarness(t, gateway.Options{SendQueue: 8, SendBuffer: sendBuf})
	owner, _ := h.user("owner")
	slowUser, slowToken := h.user("slow")
	s, general := h.server(owner.ID)
	h.join(s.ID, slowUser.ID)

	dialer := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<10)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	slow, _, err := websocket.Dial(ctx, h.url+"?"+url.Values{"token": {slowToken}}.Encode(), //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
		&websocket.DialOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = slow.CloseNow() }()
	deadline := time.Now().Add(wait)
	for h.gw.Stats().Connections == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // Ready written, subscriptions in place

	const size, most = 16 << 10, 600 // at most 9.6 MB
	big := strings.Repeat("x", size)
	sent := 0
	for range most {
		if h.gw.Stats().SlowDisconnects > 0 {
			return sent
		}
		message(h, general.ID, owner.ID, big)
		sent += size
		time.Sleep(2 * time.Millisecond)
	}
	deadline = time.Now().Add(wait)
	for h.gw.Stats().SlowDisconnects == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if h.gw.Stats().SlowDisconnects == 0 {
		t.Fatalf("a client that never reads was not cut after %d KB", sent>>10)
	}
	return sent
}

// wmemMax is the most Linux grows a TCP send buffer to (the third field
// of net.ipv4.tcp_wmem), or 0 when unknown.
func wmemMax() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_wmem")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return 0
	}
	n, _ := strconv.Atoi(f[2])
	return n
}
