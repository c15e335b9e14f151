package gateway_test

import (
	"fmt"
	"strings"
	"testing"

	"ermine/internal/gateway"
)

// TestBurstArrivesWholeAndInOrder publishes a burst faster than the
// connections drain it, so the writers batch frames (past the size at
// which a batch is flushed early): every frame arrives intact, once and
// in order, in both formats.
func TestBurstArrivesWholeAndInOrder(t *testing.T) {
	t.Parallel()
	const burst = 200
	h := newHarness(t, gateway.Options{SendQueue: 2 * burst})
	owner, token := h.user("owner")
	_, general := h.server(owner.ID)
	clients := map[string]*client{}
	for _, format := range []string{"json", "msgpack"} {
		cl, _ := h.connect(t, token, format)
		clients[format] = cl
	}
	padding := strings.Repeat("ermine ", 150) // ~1 KB a frame: batches pass 64 KB
	for i := range burst {
		message(h, general.ID, owner.ID, fmt.Sprintf("%d %s", i, padding))
	}
	for format, cl := range clients {
		t.Run(format, func(t *testing.T) {
			cl.t = t
			for i := range burst {
				p := cl.expect("Message")
				if want := fmt.Sprintf("%d %s", i, padding); str(p, "content") != want {
					t.Fatalf("message %d: got %.20q, want %.20q", i, str(p, "content"), want)
				}
			}
			cl.nothing()
		})
	}
}
