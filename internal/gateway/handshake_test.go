package gateway_test

import (
	"net/url"
	"testing"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
)

var formats = []string{"json", "msgpack"}

// TestStateTable drives every row of the seed's state table for the
// events connection, in both formats.
func TestStateTable(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			alice, token := h.user("alice")
			// A session whose account never chose a username.
			pending := h.session(chat.NewID())
			_, botToken := h.bot("robot", alice.ID)

			t.Run("URL token", func(t *testing.T) {
				cl, ready := h.connect(t, token, format)
				if users := list(ready, "users"); len(users) != 1 || str(users[0].(map[string]any), "_id") != string(alice.ID) {
					t.Errorf("ready users = %v", users)
				}
				cl.c.Close(websocket.StatusNormalClosure, "")
			})
			t.Run("Authenticate packet after ignored packets", func(t *testing.T) {
				cl := h.dial(t, url.Values{"format": {format}})
				cl.send(map[string]any{"type": "Ping", "data": 1})
				cl.send(map[string]any{"type": "BeginTyping", "channel": "x"})
				cl.send(map[string]any{"type": "Nonsense"})
				cl.nothing()
				cl.send(map[string]any{"type": "Authenticate", "token": token, "extra": "ignored"})
				cl.expect("Authenticated")
				cl.expect("Ready")
			})
			t.Run("bot token", func(t *testing.T) {
				cl, ready := h.connect(t, botToken, format)
				users := list(ready, "users")
				self := users[len(users)-1].(map[string]any)
				if str(self, "username") != "robot" || str(self, "relationship") != "User" {
					t.Errorf("bot's own user = %v", self)
				}
				if _, ok := ready["policy_changes"]; !ok {
					t.Error("policy_changes missing for a bot")
				}
				cl.c.Close(websocket.StatusNormalClosure, "")
			})
			for _, tc := range []struct {
				name, token, want string
				packet            bool
			}{
				{"invalid URL token", "nope", "InvalidSession", false},
				{"invalid Authenticate", chat.NewToken(64), "InvalidSession", true},
				{"onboarding URL token", pending, "OnboardingNotFinished", false},
				{"onboarding Authenticate", pending, "OnboardingNotFinished", true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					q := url.Values{"format": {format}}
					if !tc.packet {
						q.Set("token", tc.token)
					}
					cl := h.dial(t, q)
					if tc.packet {
						cl.send(map[string]any{"type": "Authenticate", "token": tc.token})
					}
					p := cl.expect("Error")
					if got := str(p, "data", "type"); got != tc.want {
						t.Errorf("error = %v, want data.type %s", p, tc.want)
					}
					cl.mustCloseWith(websocket.StatusNormalClosure)
				})
			}
			t.Run("second Authenticate", func(t *testing.T) {
				cl, _ := h.connect(t, token, format)
				cl.send(map[string]any{"type": "Authenticate", "token": token})
				p := cl.expect("Error")
				if str(p, "data", "type") != "AlreadyAuthenticated" {
					t.Errorf("got %v", p)
				}
				// The connection stays authenticated.
				cl.send(map[string]any{"type": "Ping", "data": 7})
				cl.expect("Pong")
			})
			t.Run("session deleted", func(t *testing.T) {
				cl, _ := h.connect(t, token, format)
				se := h.sessionOf(token)
				h.publish(chat.AuthEvent{Type: chat.EvAuth, EventType: chat.AuthDeleteSession, UserID: alice.ID, SessionID: se.ID}, event.Private(alice.ID))
				cl.expect("Logout")
				cl.mustCloseWith(websocket.StatusNormalClosure)
			})
			t.Run("bot token reset", func(t *testing.T) {
				botUser, _ := h.store.FetchBotByToken(t.Context(), botToken)
				cl, _ := h.connect(t, botToken, format)
				h.publish(chat.TypeOnly{Type: chat.EvLogout}, event.Private(botUser.ID))
				cl.expect("Logout")
				cl.mustCloseWith(websocket.StatusNormalClosure)
			})
		})
	}
}
