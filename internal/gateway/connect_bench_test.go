package gateway_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/gateway"
)

// BenchmarkConnect measures one connection's set-up: the WebSocket
// upgrade, authentication by URL token, Ready for a member of one server
// of 1,000 members, and the close. The client runs in this process too;
// profile with -cpuprofile and look at the gateway's and app's share.
func BenchmarkConnect(b *testing.B) {
	h := newHarness(b, gateway.Options{UnauthenticatedPerIP: 1 << 20})
	owner, _ := h.user("owner")
	s, _ := h.server(owner.ID)
	invisible := chat.PresenceInvisible
	const users = 1000
	tokens := make([]string, users)
	for i := range tokens {
		u, tok := h.user(fmt.Sprint("member", i))
		u.Status = &chat.UserStatus{Presence: &invisible}
		if err := h.store.UpdateUser(b.Context(), u); err != nil {
			b.Fatal(err)
		}
		h.join(s.ID, u.ID)
		tokens[i] = tok
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		q := url.Values{"version": {"1"}, "format": {"json"}, "token": {tokens[i%users]}}
		c, _, err := websocket.Dial(ctx, h.url+"?"+q.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
		if err != nil {
			b.Fatal(err)
		}
		c.SetReadLimit(8 << 20)
		for range 2 { // Authenticated, Ready
			if _, _, err := c.Read(ctx); err != nil {
				b.Fatal(err)
			}
		}
		_ = c.Close(websocket.StatusNormalClosure, "")
	}
}
