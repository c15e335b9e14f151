package api_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/auth"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
)

// noLimits turns request rate limits off (the auth bucket allows three
// calls per ten seconds, fewer than one test makes) and makes password
// hashes cheap (the race detector makes 19 MiB hashes take a second on a
// busy machine).
func noLimits(c *config.Config) {
	c.Limits.RateLimits = false
	c.Passwords = config.Passwords{MemoryKiB: 64, Passes: 1}
}

// startAuth starts a node for account tests.
func startAuth(t *testing.T, opts ...apitest.Option) *apitest.Harness {
	t.Helper()
	return apitest.Start(t, append([]apitest.Option{noLimits}, opts...)...)
}

var emailSeq atomic.Int64

// newEmail returns an address no other test uses.
func newEmail(name string) string {
	return fmt.Sprintf("%s.%d@ermine.test", name, emailSeq.Add(1))
}

const goodPassword = "correct horse battery staple"

// session is a logged-in session from the login route.
type session struct {
	ID, UserID, Token string
}

// create registers an account (mail off: verified at once).
func create(t *testing.T, h *apitest.Harness, email, password string) {
	t.Helper()
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/create",
		Body: map[string]any{"email": email, "password": password}})
	if res.Status != http.StatusNoContent {
		t.Fatalf("create %s = %d %s", email, res.Status, res.Body)
	}
}

// login logs in with a password and expects Success.
func login(t *testing.T, h *apitest.Harness, email, password string) session {
	t.Helper()
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"email": email, "password": password, "friendly_name": "test"}})
	if res.Status != http.StatusOK {
		t.Fatalf("login %s = %d %s", email, res.Status, res.Body)
	}
	apitest.CheckSchema(t, "ResponseLogin", res.Body)
	m := res.Map(t)
	if m["result"] != "Success" {
		t.Fatalf("login %s = %s, want Success", email, res.Body)
	}
	return session{ID: m["_id"].(string), UserID: m["user_id"].(string), Token: m["token"].(string)}
}

// onboard chooses a username for the session's account.
func onboard(t *testing.T, h *apitest.Harness, s session, username string) map[string]any {
	t.Helper()
	res := h.Do(apitest.Request{Method: "POST", Path: "/onboard/complete", Session: s.Token,
		Body: map[string]any{"username": username}})
	if res.Status != http.StatusOK {
		t.Fatalf("onboard %s = %d %s", username, res.Status, res.Body)
	}
	apitest.CheckSchema(t, "User", res.Body)
	return res.Map(t)
}

// newAccount creates, logs in and onboards an account.
func newAccount(t *testing.T, h *apitest.Harness, name string) (string, session) {
	t.Helper()
	email := newEmail(strings.ToLower(name))
	create(t, h, email, goodPassword)
	s := login(t, h, email, goodPassword)
	onboard(t, h, s, name)
	return email, s
}

func TestAccountLifecycle(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	if email := h.Get("/", "").Map(t)["features"].(map[string]any)["email"]; email != false {
		t.Errorf("features.email = %v without SMTP", email)
	}
	email := newEmail("Stoat")
	create(t, h, email, goodPassword)
	// The same address again: the same answer, so addresses cannot be probed.
	create(t, h, email, "another good passphrase")
	create(t, h, strings.ToUpper(email), goodPassword)

	s := login(t, h, email, goodPassword)
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{64}$`).MatchString(s.Token) {
		t.Errorf("token %q is not 64 URL-safe characters", s.Token)
	}
	// Normalised lookup: case, dots and +suffix do not matter.
	local, domain, _ := strings.Cut(email, "@")
	login(t, h, strings.ToUpper(local[:1])+"."+local[1:]+"+chat@"+domain, goodPassword)

	// Before onboarding: account routes work, user routes answer 401.
	res := h.Get("/onboard/hello", s.Token)
	if res.Status != 200 || res.Map(t)["onboarding"] != true {
		t.Fatalf("hello = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "DataHello", res.Body)
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/sync/settings/fetch", Session: s.Token,
		Body: map[string]any{"keys": []string{}}}), 401, "NotAuthenticated")
	info := h.Get("/auth/account/", s.Token)
	apitest.CheckSchema(t, "AccountInfo", info.Body)
	if m := info.Map(t); m["_id"] != s.UserID || m["email"] != email {
		t.Errorf("account = %s", info.Body)
	}

	u := onboard(t, h, s, "Ласка")
	if u["_id"] != s.UserID || u["username"] != "Ласка" || u["relationship"] != "User" ||
		!regexp.MustCompile(`^\d{4}$`).MatchString(u["discriminator"].(string)) {
		t.Errorf("user = %v", u)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/onboard/complete", Session: s.Token,
		Body: map[string]any{"username": "Other"}}), 403, "AlreadyOnboarded")
	if m := h.Get("/onboard/hello", s.Token).Map(t); m["onboarding"] != false {
		t.Errorf("hello after onboarding = %v", m)
	}

	// Password change needs the current password and a good new one.
	change := func(current, next string) *apitest.Response {
		return h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/password", Session: s.Token,
			Body: map[string]any{"current_password": current, "password": next}})
	}
	wantError(t, change("wrong password", "new passphrase here"), 401, "InvalidCredentials")
	wantError(t, change(goodPassword, "password123"), 400, "CompromisedPassword")
	wantError(t, change(goodPassword, "short"), 400, "ShortPassword")
	if res := change(goodPassword, "new passphrase here"); res.Status != 204 {
		t.Fatalf("change password = %d %s", res.Status, res.Body)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"email": email, "password": goodPassword}}), 401, "InvalidCredentials")
	login(t, h, email, "new passphrase here")
	// The session survives a password change.
	if res := h.Get("/auth/account/", s.Token); res.Status != 200 {
		t.Errorf("session after password change = %d", res.Status)
	}

	// Email change without mail happens at once.
	other := newEmail("ermine")
	wantError(t, h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/email", Session: s.Token,
		Body: map[string]any{"current_password": "nope nope nope", "email": other}}), 401, "InvalidCredentials")
	wantError(t, h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/email", Session: s.Token,
		Body: map[string]any{"current_password": "new passphrase here", "email": "not an address"}}), 400, "IncorrectData")
	res = h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/email", Session: s.Token,
		Body: map[string]any{"current_password": "new passphrase here", "email": other}})
	if res.Status != 204 {
		t.Fatalf("change email = %d %s", res.Status, res.Body)
	}
	login(t, h, other, "new passphrase here")
	if m := h.Get("/auth/account/", s.Token).Map(t); m["email"] != other {
		t.Errorf("account after email change = %v", m)
	}
	// An address another account holds cannot be taken.
	taken := newEmail("taken")
	create(t, h, taken, goodPassword)
	wantError(t, h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/email", Session: s.Token,
		Body: map[string]any{"current_password": "new passphrase here", "email": taken}}), 400, "IncorrectData")
}

func TestCreateAccountBadInput(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	for _, tc := range []struct {
		name   string
		body   any
		status int
		typ    string
		with   string
	}{
		{"malformed JSON", `{"email": "a@b.c", "password": `, 400, "FailedValidation", ""},
		{"missing email", map[string]any{"password": goodPassword}, 422, "FailedValidation", ""},
		{"missing password", map[string]any{"email": "missing@ermine.test"}, 422, "FailedValidation", ""},
		{"email not a string", map[string]any{"email": 5, "password": goodPassword}, 422, "FailedValidation", ""},
		{"password not a string", map[string]any{"email": "x@ermine.test", "password": []int{1}}, 422, "FailedValidation", ""},
		{"body an array", `[1, 2]`, 422, "FailedValidation", ""},
		{"overlong password", map[string]any{"email": "long@ermine.test", "password": strings.Repeat("p", 1025)}, 422, "FailedValidation", ""},
		{"overlong email", map[string]any{"email": strings.Repeat("e", 250) + "@ermine.test", "password": goodPassword}, 422, "FailedValidation", ""},
		{"bad email", map[string]any{"email": "not-an-email", "password": goodPassword}, 400, "IncorrectData", "email"},
		{"display name in email", map[string]any{"email": "Me <me@ermine.test>", "password": goodPassword}, 400, "IncorrectData", "email"},
		{"short password", map[string]any{"email": "short@ermine.test", "password": "1234567"}, 400, "ShortPassword", ""},
		{"compromised password", map[string]any{"email": "leak@ermine.test", "password": "iloveyou1"}, 400, "CompromisedPassword", ""},
		{"compromised in capitals", map[string]any{"email": "leak2@ermine.test", "password": "PASSWORD123"}, 400, "CompromisedPassword", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/create", Body: tc.body})
			m := wantError(t, res, tc.status, tc.typ)
			if tc.with != "" && m["with"] != tc.with {
				t.Errorf("with = %v, want %s", m["with"], tc.with)
			}
		})
	}
	// None of them left an account behind.
	for _, e := range []string{"missing@ermine.test", "long@ermine.test", "short@ermine.test", "leak@ermine.test", "leak2@ermine.test"} {
		if _, err := h.Server.Store.FetchAccountByEmail(context.Background(), e); err == nil {
			t.Errorf("account %s was created", e)
		}
	}
}

func TestLoginAndLockout(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	ctx := context.Background()
	email := newEmail("locked")
	create(t, h, email, goodPassword)
	try := func(password string) *apitest.Response {
		return h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
			Body: map[string]any{"email": email, "password": password}})
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"email": newEmail("nobody"), "password": goodPassword}}), 401, "InvalidCredentials")
	for _, tc := range []struct {
		name string
		body any
	}{
		{"neither form", map[string]any{"friendly_name": "x"}},
		{"email only", map[string]any{"email": email}},
		{"password not a string", map[string]any{"email": email, "password": 12345678}},
		{"ticket with two answers", map[string]any{"mfa_ticket": "t", "mfa_response": map[string]any{"password": "a", "totp_code": "123456"}}},
		{"overlong friendly name", map[string]any{"email": email, "password": goodPassword, "friendly_name": strings.Repeat("n", 129)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: tc.body}), 422, "FailedValidation")
		})
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"mfa_ticket": "no-such-ticket"}}), 401, "InvalidToken")

	s := login(t, h, email, goodPassword)
	if _, err := h.Server.Store.FetchSession(ctx, chat.ID(s.ID)); err != nil {
		t.Fatalf("session not stored: %v", err)
	}

	// Two failures do not lock; the third locks for a minute, even the
	// right password.
	wantError(t, try("wrong one"), 401, "InvalidCredentials")
	wantError(t, try("wrong two"), 401, "InvalidCredentials")
	wantError(t, try("wrong three"), 401, "InvalidCredentials")
	wantError(t, try(goodPassword), 403, "LockedOut")
	checkLock := func(attempts int, d time.Duration) {
		t.Helper()
		acc, err := h.Server.Store.FetchAccount(ctx, chat.ID(s.UserID))
		if err != nil {
			t.Fatal(err)
		}
		l := acc.Lockout
		if l == nil || l.Attempts != attempts || l.Expiry == nil {
			t.Fatalf("lockout = %+v, want %d attempts", l, attempts)
		}
		if left := time.Until(l.Expiry.Time); left < d-10*time.Second || left > d {
			t.Errorf("after %d failures locked for %v, want %v", attempts, left, d)
		}
	}
	checkLock(3, time.Minute)
	// Let the lock run out; further failures lock for longer.
	expire := func() {
		t.Helper()
		acc, _ := h.Server.Store.FetchAccount(ctx, chat.ID(s.UserID))
		past := chat.TimeOf(time.Now().Add(-time.Second))
		acc.Lockout.Expiry = &past
		if err := h.Server.Store.UpdateAccount(ctx, acc); err != nil {
			t.Fatal(err)
		}
	}
	expire()
	wantError(t, try("wrong four"), 401, "InvalidCredentials")
	checkLock(4, 5*time.Minute)
	expire()
	wantError(t, try("wrong five"), 401, "InvalidCredentials")
	checkLock(5, time.Hour)
	expire()
	// A success clears the count.
	login(t, h, email, goodPassword)
	if acc, _ := h.Server.Store.FetchAccount(ctx, chat.ID(s.UserID)); acc.Lockout != nil {
		t.Errorf("lockout after success = %+v", acc.Lockout)
	}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	email, s1 := newAccount(t, h, "Sable")
	s2 := login(t, h, email, goodPassword)
	s3 := login(t, h, email, goodPassword)
	_, stranger := newAccount(t, h, "Marten")

	res := h.Get("/auth/session/all", s1.Token)
	if res.Status != 200 {
		t.Fatalf("sessions = %d %s", res.Status, res.Body)
	}
	var all []map[string]any
	res.JSON(t, &all)
	if len(all) != 3 {
		t.Fatalf("sessions = %s", res.Body)
	}
	for _, se := range all {
		b := fmt.Appendf(nil, `{"_id":%q,"name":%q}`, se["_id"], se["name"])
		apitest.CheckSchema(t, "SessionInfo", b)
		if _, ok := se["token"]; ok {
			t.Errorf("session list shows a token: %v", se)
		}
	}

	// Rename.
	res = h.Do(apitest.Request{Method: "PATCH", Path: "/auth/session/" + s2.ID, Session: s1.Token,
		Body: map[string]any{"friendly_name": "Laptop"}})
	if res.Status != 200 || res.Map(t)["name"] != "Laptop" {
		t.Fatalf("rename = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "SessionInfo", res.Body)
	wantError(t, h.Do(apitest.Request{Method: "PATCH", Path: "/auth/session/" + s2.ID, Session: s1.Token,
		Body: map[string]any{}}), 422, "FailedValidation")
	wantError(t, h.Do(apitest.Request{Method: "PATCH", Path: "/auth/session/" + s2.ID, Session: stranger.Token,
		Body: map[string]any{"friendly_name": "Mine now"}}), 404, "NotFound")
	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/" + s2.ID, Session: stranger.Token}), 404, "NotFound")

	// Revoke one: DeleteSession on the user's private topic.
	ev := h.Listen(event.Private(chat.ID(s1.UserID)))
	if res := h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/" + s2.ID, Session: s1.Token}); res.Status != 204 {
		t.Fatalf("revoke = %d %s", res.Status, res.Body)
	}
	e := ev.Wait(chat.EvAuth, nil)
	if e.Body["event_type"] != "DeleteSession" || e.Body["user_id"] != s1.UserID || e.Body["session_id"] != s2.ID {
		t.Errorf("event = %s", e.Raw)
	}
	wantError(t, h.Get("/auth/account/", s2.Token), 401, "InvalidSession")
	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/" + s2.ID, Session: s1.Token}), 404, "NotFound")

	// Revoke all but the caller's.
	wantError(t, h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/all?revoke_self=maybe", Session: s1.Token}), 422, "FailedValidation")
	if res := h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/all", Session: s1.Token}); res.Status != 204 {
		t.Fatalf("revoke all = %d %s", res.Status, res.Body)
	}
	e = ev.Wait(chat.EvAuth, nil)
	if e.Body["event_type"] != "DeleteAllSessions" || e.Body["user_id"] != s1.UserID || e.Body["exclude_session_id"] != s1.ID {
		t.Errorf("event = %s", e.Raw)
	}
	wantError(t, h.Get("/auth/account/", s3.Token), 401, "InvalidSession")
	if res := h.Get("/auth/account/", s1.Token); res.Status != 200 {
		t.Errorf("caller's session after revoke all = %d", res.Status)
	}
	// Nothing left to revoke: no event.
	if res := h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/all?revoke_self=false", Session: s1.Token}); res.Status != 204 {
		t.Fatalf("revoke all again = %d", res.Status)
	}
	ev.None(200 * time.Millisecond)

	// Revoke all, the caller's too.
	s4 := login(t, h, email, goodPassword)
	if res := h.Do(apitest.Request{Method: "DELETE", Path: "/auth/session/all?revoke_self=true", Session: s4.Token}); res.Status != 204 {
		t.Fatalf("revoke all with self = %d %s", res.Status, res.Body)
	}
	e = ev.Wait(chat.EvAuth, nil)
	if e.Body["event_type"] != "DeleteAllSessions" || e.Body["exclude_session_id"] != nil {
		t.Errorf("event = %s", e.Raw)
	}
	for _, tok := range []string{s1.Token, s4.Token} {
		wantError(t, h.Get("/auth/account/", tok), 401, "InvalidSession")
	}

	// Logout ends the calling session only.
	s5 := login(t, h, email, goodPassword)
	s6 := login(t, h, email, goodPassword)
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/logout", Session: s5.Token}); res.Status != 204 {
		t.Fatalf("logout = %d %s", res.Status, res.Body)
	}
	e = ev.Wait(chat.EvAuth, nil)
	if e.Body["event_type"] != "DeleteSession" || e.Body["session_id"] != s5.ID {
		t.Errorf("event = %s", e.Raw)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/logout", Session: s5.Token}), 401, "InvalidSession")
	if res := h.Get("/auth/session/all", s6.Token); res.Status != 200 {
		t.Errorf("other session after logout = %d", res.Status)
	}
	// The stranger saw none of it.
	if res := h.Get("/auth/account/", stranger.Token); res.Status != 200 {
		t.Errorf("stranger = %d", res.Status)
	}
}

func TestAuthHeaders(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	for _, tc := range []struct {
		name   string
		method string
		path   string
		token  string
		typ    string
	}{
		{"no token on account", "GET", "/auth/account/", "", "NotAuthenticated"},
		{"no token on sessions", "GET", "/auth/session/all", "", "NotAuthenticated"},
		{"no token on onboarding", "GET", "/onboard/hello", "", "NotAuthenticated"},
		{"no token on settings", "POST", "/sync/settings/fetch", "", "NotAuthenticated"},
		{"unknown token", "GET", "/auth/account/", strings.Repeat("x", 64), "InvalidSession"},
		{"short token", "GET", "/auth/mfa/", "abc", "InvalidSession"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, h.Do(apitest.Request{Method: tc.method, Path: tc.path, Session: tc.token}), 401, tc.typ)
		})
	}
}

func TestOnboardingUsernames(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	// Sessions without a user, made in the store: hashing a password for
	// each case would only slow the test down.
	fresh := func() session {
		t.Helper()
		ctx := context.Background()
		id, sid, tok := chat.NewID(), chat.NewID(), chat.NewToken(64)
		email := newEmail("onboard")
		if err := h.Server.Store.InsertAccount(ctx, &chat.Account{ID: id, Email: email, EmailNormalised: email,
			PasswordHash: "!", Verified: true}); err != nil {
			t.Fatal(err)
		}
		if err := h.Server.Store.InsertSession(ctx, &chat.Session{ID: sid, UserID: id, Token: tok, Name: "t"}); err != nil {
			t.Fatal(err)
		}
		return session{ID: string(sid), UserID: string(id), Token: tok}
	}
	for _, tc := range []struct {
		name     string
		username any
		status   int
		typ      string
	}{
		{"latin", "ermine_fan.2-x", 200, ""},
		{"cyrillic", "Горностай", 200, ""},
		{"japanese mix", "山田たろう", 200, ""},
		{"greek", "Ερμής", 200, ""},
		{"accents", "Zoë", 200, ""},
		{"too short", "a", 422, "FailedValidation"},
		{"too long", strings.Repeat("a", 33), 422, "FailedValidation"},
		{"not a string", 42, 422, "FailedValidation"},
		{"space", "two words", 400, "InvalidUsername"},
		{"symbol", "hi!", 400, "InvalidUsername"},
		{"reserved", "Admin", 400, "InvalidUsername"},
		{"reserved in cyrillic letters", "аdmіn", 400, "InvalidUsername"},
		{"all cyrillic look-alike of reserved", "ѕуѕтем", 400, "InvalidUsername"},
		{"mixed scripts", "pаypal", 400, "InvalidUsername"},
		{"fullwidth", "ｅｒｍｉｎｅ", 400, "InvalidUsername"},
		{"mathematical letters", "𝐞𝐫𝐦𝐢𝐧𝐞", 400, "InvalidUsername"},
		{"hangul filler", "ㅤㅤ", 400, "InvalidUsername"},
		{"invite link", "discord.gg", 400, "InvalidUsername"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fresh()
			res := h.Do(apitest.Request{Method: "POST", Path: "/onboard/complete", Session: s.Token,
				Body: map[string]any{"username": tc.username}})
			if tc.status == 200 {
				if res.Status != 200 || res.Map(t)["username"] != tc.username {
					t.Fatalf("onboard %v = %d %s", tc.username, res.Status, res.Body)
				}
				return
			}
			wantError(t, res, tc.status, tc.typ)
			// Nothing was created: the session still has to onboard.
			if m := h.Get("/onboard/hello", s.Token).Map(t); m["onboarding"] != true {
				t.Errorf("hello after refusal = %v", m)
			}
		})
	}
	// One name, many users: each gets a different allowed discriminator,
	// compared case-insensitively.
	seen := map[string]bool{}
	for i := range 6 {
		name := "Weasel"
		if i%2 == 1 {
			name = "weasel"
		}
		d := onboard(t, h, fresh(), name)["discriminator"].(string)
		if seen[d] || d == "0000" || d == "0001" || d == "9999" || d == "1234" || d == "1111" {
			t.Errorf("discriminator %s repeated or reserved", d)
		}
		seen[d] = true
	}
}

func TestSettingsSync(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	_, s := newAccount(t, h, "Ferret")
	uid := chat.ID(s.UserID)
	ev := h.Listen(event.Private(uid))
	set := func(query string, body any) *apitest.Response {
		return h.Do(apitest.Request{Method: "POST", Path: "/sync/settings/set" + query, Session: s.Token, Body: body})
	}
	fetch := func(keys any) map[string][]any {
		t.Helper()
		res := h.Do(apitest.Request{Method: "POST", Path: "/sync/settings/fetch", Session: s.Token, Body: map[string]any{"keys": keys}})
		if res.Status != 200 {
			t.Fatalf("fetch = %d %s", res.Status, res.Body)
		}
		var m map[string][]any
		res.JSON(t, &m)
		return m
	}
	if m := fetch([]string{}); len(m) != 0 {
		t.Errorf("fresh settings = %v", m)
	}
	if res := set("?timestamp=1700000000000", map[string]string{"ordering": `{"servers":[]}`, "notifications": "{}"}); res.Status != 204 {
		t.Fatalf("set = %d %s", res.Status, res.Body)
	}
	e := ev.Wait(chat.EvUserSettingsUpdate, nil)
	upd := e.Body["update"].(map[string]any)
	if e.Body["id"] != s.UserID || len(upd) != 2 {
		t.Fatalf("event = %s", e.Raw)
	}
	if pair := upd["ordering"].([]any); pair[0] != float64(1700000000000) || pair[1] != `{"servers":[]}` {
		t.Errorf("event pair = %v", pair)
	}

	got := fetch([]string{"ordering", "missing"})
	if len(got) != 1 || got["ordering"][0] != float64(1700000000000) || got["ordering"][1] != `{"servers":[]}` {
		t.Errorf("fetch ordering = %v", got)
	}
	if all := fetch([]string{}); len(all) != 2 {
		t.Errorf("fetch all = %v", all)
	}

	// A timestamp in the future is clamped to now; none means now.
	before := time.Now().UnixMilli()
	set("?timestamp=99999999999999", map[string]string{"ordering": "later"})
	set("", map[string]string{"notifications": "now"})
	after := time.Now().UnixMilli()
	for k, pair := range fetch([]string{}) {
		ts := int64(pair[0].(float64))
		if ts < before || ts > after {
			t.Errorf("%s timestamp %d not within [%d, %d]", k, ts, before, after)
		}
	}

	for _, tc := range []struct {
		name   string
		query  string
		body   any
		status int
	}{
		{"value not a string", "", map[string]any{"ordering": 5}, 422},
		{"not an object", "", []string{"a"}, 422},
		{"malformed", "", `{"a":`, 400},
		{"bad timestamp", "?timestamp=yesterday", map[string]string{"a": "b"}, 422},
		{"empty key", "", map[string]string{"": "b"}, 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, set(tc.query, tc.body), tc.status, "FailedValidation")
		})
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/sync/settings/fetch", Session: s.Token,
		Body: map[string]any{}}), 422, "FailedValidation")
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/sync/settings/fetch", Session: s.Token,
		Body: map[string]any{"keys": "ordering"}}), 422, "FailedValidation")
}

func TestLoginRehashesOutdatedHash(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	ctx := context.Background()
	// A hash made with other parameters than the node's (as after the
	// operator changes [passwords]) still works and is redone.
	old, err := auth.NewHasher(auth.Params{Memory: 128, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}, 1).Hash(ctx, goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	id, email := chat.NewID(), newEmail("old")
	normalised, err := auth.NormaliseEmail(email)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Server.Store.InsertAccount(ctx, &chat.Account{ID: id, Email: email, EmailNormalised: normalised,
		PasswordHash: old, Verified: true}); err != nil {
		t.Fatal(err)
	}
	login(t, h, email, goodPassword)
	acc, err := h.Server.Store.FetchAccount(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(acc.PasswordHash, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Errorf("hash after login = %q, want the node's parameters", acc.PasswordHash)
	}
	login(t, h, email, goodPassword)
}
