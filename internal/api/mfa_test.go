package api_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/auth"
	"ermine/internal/chat"
	"ermine/internal/event"
)

// ticket asks for a validated MFA ticket with the given response.
func ticket(t *testing.T, h *apitest.Harness, s session, response map[string]any) string {
	t.Helper()
	res := h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token, Body: response})
	if res.Status != 200 {
		t.Fatalf("ticket = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "MFATicket", res.Body)
	m := res.Map(t)
	if m["validated"] != true || m["authorised"] != false || m["account_id"] != s.UserID {
		t.Fatalf("ticket = %s", res.Body)
	}
	return m["token"].(string)
}

// withTicket sends a request carrying X-MFA-Ticket.
func withTicket(h *apitest.Harness, method, path string, s session, tok string) *apitest.Response {
	return h.Do(apitest.Request{Method: method, Path: path, Session: s.Token, Header: map[string]string{"X-MFA-Ticket": tok}})
}

// code returns the TOTP code of secret for the step at.
func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := auth.TOTPCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMFARoundTrip(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	email, s := newAccount(t, h, "Mink")
	pw := map[string]any{"password": goodPassword}

	res := h.Get("/auth/mfa/", s.Token)
	apitest.CheckSchema(t, "MultiFactorStatus", res.Body)
	if m := res.Map(t); m["totp_mfa"] != false || m["recovery_active"] != false {
		t.Errorf("status = %s", res.Body)
	}
	var methods []string
	h.Get("/auth/mfa/methods", s.Token).JSON(t, &methods)
	if !slices.Equal(methods, []string{"Password"}) {
		t.Errorf("methods = %v", methods)
	}

	// Tickets: password while TOTP is off; wrong answers are refused.
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token,
		Body: map[string]any{"password": "not it at all"}}), 401, "InvalidCredentials")
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token,
		Body: map[string]any{"totp_code": "123456"}}), 400, "DisallowedMFAMethod")
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token,
		Body: map[string]any{}}), 422, "FailedValidation")
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token,
		Body: map[string]any{"password": 5}}), 422, "FailedValidation")

	// Generating a secret needs a validated ticket, used once.
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/mfa/totp", Session: s.Token}), 400, "MissingHeaders")
	wantError(t, withTicket(h, "POST", "/auth/mfa/totp", s, "made-up-ticket"), 401, "InvalidToken")
	tk := ticket(t, h, s, pw)
	res = withTicket(h, "POST", "/auth/mfa/totp", s, tk)
	if res.Status != 200 {
		t.Fatalf("generate secret = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "ResponseTotpSecret", res.Body)
	secret := res.Map(t)["secret"].(string)
	wantError(t, withTicket(h, "POST", "/auth/mfa/totp", s, tk), 401, "InvalidToken")

	// Three codes are used below, one step each (S-1, S, S+1): start
	// early enough in a step that all three stay within the window.
	if into := time.Now().Unix() % auth.TOTPPeriod; into > auth.TOTPPeriod-5 {
		time.Sleep(time.Duration(auth.TOTPPeriod-into+1) * time.Second)
	}
	now := time.Now()
	prev, cur, next := code(t, secret, now.Add(-30*time.Second)), code(t, secret, now), code(t, secret, now.Add(30*time.Second))

	enable := func(body any) *apitest.Response {
		return h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/totp", Session: s.Token, Body: body})
	}
	wantError(t, enable(map[string]any{"totp_code": "000000x"}), 401, "InvalidToken")
	wantError(t, enable(map[string]any{"password": goodPassword}), 400, "DisallowedMFAMethod")
	if res := enable(map[string]any{"totp_code": prev}); res.Status != 204 {
		t.Fatalf("enable totp = %d %s", res.Status, res.Body)
	}
	wantError(t, enable(map[string]any{"totp_code": cur}), 400, "TotpAlreadyEnabled")
	if m := h.Get("/auth/mfa/", s.Token).Map(t); m["totp_mfa"] != true || m["recovery_active"] != true {
		t.Errorf("status after enable = %v", m)
	}
	h.Get("/auth/mfa/methods", s.Token).JSON(t, &methods)
	if !slices.Equal(methods, []string{"Totp", "Recovery"}) {
		t.Errorf("methods = %v", methods)
	}

	// With TOTP on, the password no longer makes tickets; a code does,
	// once.
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token, Body: pw}), 400, "DisallowedMFAMethod")
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token,
		Body: map[string]any{"totp_code": prev}}), 401, "InvalidToken") // replayed
	tk = ticket(t, h, s, map[string]any{"totp_code": cur})
	res = withTicket(h, "POST", "/auth/mfa/recovery", s, tk)
	var codes []string
	res.JSON(t, &codes)
	if res.Status != 200 || len(codes) != 10 {
		t.Fatalf("recovery codes = %d %s", res.Status, res.Body)
	}

	// Login now asks for a second factor.
	mfaLogin := func() string {
		t.Helper()
		res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
			Body: map[string]any{"email": email, "password": goodPassword, "friendly_name": "phone"}})
		apitest.CheckSchema(t, "ResponseLogin", res.Body)
		m := res.Map(t)
		if res.Status != 200 || m["result"] != "MFA" {
			t.Fatalf("login = %d %s, want MFA", res.Status, res.Body)
		}
		if am := m["allowed_methods"].([]any); len(am) == 0 || am[0] != "Totp" {
			t.Errorf("allowed_methods = %v", am)
		}
		return m["ticket"].(string)
	}
	finish := func(tk string, response map[string]any) *apitest.Response {
		return h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
			Body: map[string]any{"mfa_ticket": tk, "mfa_response": response, "friendly_name": "phone"}})
	}
	lt := mfaLogin()
	wantError(t, finish(lt, map[string]any{"totp_code": cur}), 401, "InvalidToken") // used for the ticket
	wantError(t, finish(lt, map[string]any{"password": goodPassword}), 400, "DisallowedMFAMethod")
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"mfa_ticket": lt}}), 422, "FailedValidation")
	res = finish(lt, map[string]any{"totp_code": next})
	if res.Status != 200 || res.Map(t)["result"] != "Success" || res.Map(t)["name"] != "phone" {
		t.Fatalf("MFA login = %d %s", res.Status, res.Body)
	}
	wantError(t, finish(lt, map[string]any{"totp_code": next}), 401, "InvalidToken") // ticket used up

	// A recovery code logs in once.
	lt = mfaLogin()
	res = finish(lt, map[string]any{"recovery_code": codes[0]})
	if res.Status != 200 || res.Map(t)["result"] != "Success" {
		t.Fatalf("recovery login = %d %s", res.Status, res.Body)
	}
	lt = mfaLogin()
	wantError(t, finish(lt, map[string]any{"recovery_code": codes[0]}), 401, "InvalidToken")

	// Regenerating replaces the set.
	tk = ticket(t, h, s, map[string]any{"recovery_code": codes[1]})
	res = withTicket(h, "PATCH", "/auth/mfa/recovery", s, tk)
	var fresh []string
	res.JSON(t, &fresh)
	if res.Status != 200 || len(fresh) != 10 || slices.Contains(fresh, codes[2]) {
		t.Fatalf("regenerate = %d %s", res.Status, res.Body)
	}
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token,
		Body: map[string]any{"recovery_code": codes[2]}}), 401, "InvalidToken")

	// Disabling TOTP brings the password back.
	tk = ticket(t, h, s, map[string]any{"recovery_code": fresh[0]})
	if res := withTicket(h, "DELETE", "/auth/mfa/totp", s, tk); res.Status != 204 {
		t.Fatalf("disable totp = %d %s", res.Status, res.Body)
	}
	if m := h.Get("/auth/mfa/", s.Token).Map(t); m["totp_mfa"] != false || m["recovery_active"] != false {
		t.Errorf("status after disable = %v", m)
	}
	login(t, h, email, goodPassword)
}

func TestTicketRules(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	_, s := newAccount(t, h, "Otter")
	_, other := newAccount(t, h, "Badger")
	pw := map[string]any{"password": goodPassword}

	// Another account's ticket is no good.
	theirs := ticket(t, h, other, pw)
	wantError(t, withTicket(h, "POST", "/auth/mfa/recovery", s, theirs), 401, "InvalidToken")
	// An expired ticket is no good.
	tk := ticket(t, h, s, pw)
	st := h.Server.Store
	tt, err := st.FetchTicketByToken(t.Context(), tk)
	if err != nil {
		t.Fatal(err)
	}
	tt.Expiry = chat.TimeOf(time.Now().Add(-time.Second))
	if err := st.UpdateTicket(t.Context(), tt); err != nil {
		t.Fatal(err)
	}
	wantError(t, withTicket(h, "POST", "/auth/mfa/recovery", s, tk), 401, "InvalidToken")
	// An MFA login ticket (unvalidated) does not authorise actions, and a
	// validated one does not log in.
	valid := ticket(t, h, s, pw)
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"mfa_ticket": valid, "mfa_response": pw}}), 401, "InvalidToken")
	res := withTicket(h, "POST", "/auth/mfa/recovery", s, valid)
	if res.Status != 200 || string(res.Body) != "[]" {
		t.Errorf("recovery codes without TOTP = %d %s", res.Status, res.Body)
	}
}

func TestDisableAccount(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	email, s := newAccount(t, h, "Polecat")
	s2 := login(t, h, email, goodPassword)
	ev := h.Listen(event.Private(chat.ID(s.UserID)))

	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/account/disable", Session: s.Token}), 400, "MissingHeaders")
	tk := ticket(t, h, s, map[string]any{"password": goodPassword})
	if res := withTicket(h, "POST", "/auth/account/disable", s, tk); res.Status != http.StatusNoContent {
		t.Fatalf("disable = %d %s", res.Status, res.Body)
	}
	e := ev.Wait(chat.EvAuth, nil)
	if e.Body["event_type"] != "DeleteAllSessions" || e.Body["user_id"] != s.UserID {
		t.Errorf("event = %s", e.Raw)
	}
	for _, tok := range []string{s.Token, s2.Token} {
		wantError(t, h.Get("/auth/account/", tok), 401, "InvalidSession")
	}
	// The seed's rule: a disabled account's login is a 200 Disabled.
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"email": email, "password": goodPassword}})
	if res.Status != 200 {
		t.Fatalf("login disabled = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "ResponseLogin", res.Body)
	if m := res.Map(t); m["result"] != "Disabled" || m["user_id"] != s.UserID || len(m) != 2 {
		t.Errorf("login disabled = %s", res.Body)
	}
	// Credentials are still checked first.
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"email": email, "password": "wrong password"}}), 401, "InvalidCredentials")
	if ss, _ := h.Server.Store.FetchSessions(t.Context(), chat.ID(s.UserID)); len(ss) != 0 {
		t.Errorf("disabled account has %d sessions", len(ss))
	}
}

// TestMFAGuardsSessionsAndEmail: with MFA enabled, revoking sessions and
// changing the email take a validated ticket (as the reference's HEAD);
// without MFA they work as the published clients call them.
func TestMFAGuardsSessionsAndEmail(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	email, s := newAccount(t, h, "Marten")
	s2, s3 := login(t, h, email, goodPassword), login(t, h, email, goodPassword)
	// Without MFA: no ticket needed.
	if res := h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/" + s3.ID, Session: s.Token}); res.Status != 204 {
		t.Fatalf("revoke without MFA = %d %s", res.Status, res.Body)
	}

	ctx := context.Background()
	acc, err := h.Server.Store.FetchAccount(ctx, chat.ID(s.UserID))
	if err != nil {
		t.Fatal(err)
	}
	secret := "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	acc.MFA.TOTPSecret = secret
	if err := h.Server.Store.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	if into := time.Now().Unix() % auth.TOTPPeriod; into > auth.TOTPPeriod-5 {
		time.Sleep(time.Duration(auth.TOTPPeriod-into+1) * time.Second)
	}
	now := time.Now()
	codes := []string{code(t, secret, now.Add(-30*time.Second)), code(t, secret, now), code(t, secret, now.Add(30*time.Second))}

	revoke := "/auth/session/" + s2.ID
	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: revoke, Session: s.Token}), 400, "MissingHeaders")
	wantError(t, withTicket(h, "DELETE", revoke, s, "made-up-ticket"), 401, "InvalidToken")
	_, other := newAccount(t, h, "Stoat")
	wantError(t, withTicket(h, "DELETE", revoke, s, ticket(t, h, other, map[string]any{"password": goodPassword})), 401, "InvalidToken")
	if res := h.Get("/users/@me", s2.Token); res.Status != 200 {
		t.Fatalf("refused revokes ended the session: %d", res.Status)
	}
	tk := ticket(t, h, s, map[string]any{"totp_code": codes[0]})
	if res := withTicket(h, "DELETE", revoke, s, tk); res.Status != 204 {
		t.Fatalf("revoke with a ticket = %d %s", res.Status, res.Body)
	}
	if res := h.Get("/users/@me", s2.Token); res.Status != 401 {
		t.Errorf("revoked session still works: %d", res.Status)
	}
	wantError(t, withTicket(h, "DELETE", "/auth/session/"+s.ID, s, tk), 401, "InvalidToken") // used up

	change := map[string]any{"email": newEmail("marten2"), "current_password": goodPassword}
	wantError(t, h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/email", Session: s.Token, Body: change}),
		401, "InvalidCredentials")
	tk = ticket(t, h, s, map[string]any{"totp_code": codes[1]})
	if res := h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/email", Session: s.Token, Body: change,
		Header: map[string]string{"X-MFA-Ticket": tk}}); res.Status != 204 {
		t.Fatalf("change email with a ticket = %d %s", res.Status, res.Body)
	}

	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/all?revoke_self=true", Session: s.Token}), 400, "MissingHeaders")
	tk = ticket(t, h, s, map[string]any{"totp_code": codes[2]})
	if res := withTicket(h, "DELETE", "/auth/session/all?revoke_self=true", s, tk); res.Status != 204 {
		t.Fatalf("revoke all with a ticket = %d %s", res.Status, res.Body)
	}
	if res := h.Get("/users/@me", s.Token); res.Status != 401 {
		t.Errorf("revoke_self left the session: %d", res.Status)
	}
}
