package api_test

import (
	"net/http"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
)

// A password change ends every other session of the account, with an
// Auth DeleteAllSessions event that spares the calling session (the
// gateway turns it into Logout on the other sessions' sockets), and keeps
// the calling session.
func TestPasswordChangeRevokesOtherSessions(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	email := newEmail("change")
	create(t, h, email, goodPassword)
	a := login(t, h, email, goodPassword)
	b := login(t, h, email, goodPassword)
	onboard(t, h, a, "Changer")
	events := h.Listen(event.Private(chat.ID(a.UserID)))

	res := h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/password", Session: a.Token,
		Body: map[string]any{"current_password": goodPassword, "password": "a brand new passphrase"}})
	if res.Status != http.StatusNoContent {
		t.Fatalf("change password = %d %s", res.Status, res.Body)
	}
	ev := events.Wait(chat.EvAuth, nil)
	if ev.Body["event_type"] != chat.AuthDeleteAllSessions || ev.Body["exclude_session_id"] != a.ID {
		t.Errorf("auth event = %s, want DeleteAllSessions excluding %s", ev.Raw, a.ID)
	}
	if res := h.Get("/auth/account/", a.Token); res.Status != http.StatusOK {
		t.Errorf("calling session after password change = %d %s", res.Status, res.Body)
	}
	wantError(t, h.Get("/auth/account/", b.Token), http.StatusUnauthorized, "InvalidSession")
	// A failed change (wrong current password) revokes nothing.
	c := login(t, h, email, "a brand new passphrase")
	wantError(t, h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/password", Session: a.Token,
		Body: map[string]any{"current_password": "not the password", "password": "another new passphrase"}}),
		http.StatusUnauthorized, "InvalidCredentials")
	if res := h.Get("/auth/account/", c.Token); res.Status != http.StatusOK {
		t.Errorf("session after a refused change = %d", res.Status)
	}
}

// A password reset without remove_sessions keeps the account's sessions
// and publishes nothing about them; with it, TestMailFlows sees every
// session end with DeleteAllSessions.
func TestResetPasswordKeepsSessionsUnlessAsked(t *testing.T) {
	t.Parallel()
	box := apitest.StartSMTP(t, "", "")
	h := startAuth(t, box.Option())
	email := newEmail("Keeper")
	create(t, h, email, goodPassword)
	verify := box.Wait().Token(t, "/login/verify/")
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + verify}); res.Status != 200 {
		t.Fatalf("verify = %d %s", res.Status, res.Body)
	}
	s := login(t, h, email, goodPassword)
	ev := h.Listen(event.Private(chat.ID(s.UserID)))
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/reset_password", Body: map[string]any{"email": email}}); res.Status != 204 {
		t.Fatalf("reset = %d %s", res.Status, res.Body)
	}
	reset := box.Wait().Token(t, "/login/reset/")
	if res := h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/reset_password",
		Body: map[string]any{"token": reset, "password": "a brand new passphrase", "remove_sessions": false}}); res.Status != 204 {
		t.Fatalf("reset password = %d %s", res.Status, res.Body)
	}
	if res := h.Get("/auth/account/", s.Token); res.Status != http.StatusOK {
		t.Errorf("session after a reset that keeps sessions = %d %s", res.Status, res.Body)
	}
	ev.None(300 * time.Millisecond)
	login(t, h, email, "a brand new passphrase")
}
