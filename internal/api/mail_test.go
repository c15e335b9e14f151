package api_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/app"
	"ermine/internal/auth"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
)

func TestEmailVerificationAndReset(t *testing.T) {
	t.Parallel()
	box := apitest.StartSMTP(t, "ermine", "smtp-secret")
	h := startAuth(t, box.Option(), func(c *config.Config) { c.Public.AppURL = "https://chat.ermine.test" })
	if email := h.Get("/", "").Map(t)["features"].(map[string]any)["email"]; email != true {
		t.Errorf("features.email = %v with SMTP", email)
	}
	email := newEmail("Vole")
	create(t, h, email, goodPassword)
	m := box.Wait()
	if len(m.To) != 1 || m.To[0] != email || !strings.Contains(m.Subject, "Verify") || m.From != "noreply@ermine.test" {
		t.Fatalf("mail = %+v", m)
	}
	if !strings.Contains(m.Body, "https://chat.ermine.test/login/verify/") {
		t.Errorf("mail body has no link to the app:\n%s", m.Body)
	}
	token := m.Token(t, "/login/verify/")

	// Not verified yet: no login.
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"email": email, "password": goodPassword}}), 403, "UnverifiedAccount")
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/not-the-token"}), 401, "InvalidToken")

	// The link verifies and gives an authorised ticket that logs in.
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + token})
	if res.Status != 200 {
		t.Fatalf("verify = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "ResponseVerify", res.Body)
	tk := res.Map(t)["ticket"].(map[string]any)
	if tk["authorised"] != true {
		t.Errorf("ticket = %v", tk)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + token}), 401, "InvalidToken")
	res = h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"mfa_ticket": tk["token"]}})
	if res.Status != 200 || res.Map(t)["result"] != "Success" {
		t.Fatalf("login with verify ticket = %d %s", res.Status, res.Body)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"mfa_ticket": tk["token"]}}), 401, "InvalidToken")
	s := login(t, h, email, goodPassword)

	// Registering the address again mails its holder, and answers the same.
	create(t, h, email, "some other passphrase")
	m = box.Wait()
	if m.To[0] != email || !strings.Contains(m.Subject, "already have") {
		t.Fatalf("mail = %+v", m)
	}
	// Verified: reverify sends nothing; unknown addresses neither.
	for _, e := range []string{email, newEmail("nobody")} {
		res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/reverify", Body: map[string]any{"email": e}})
		if res.Status != 204 {
			t.Fatalf("reverify %s = %d %s", e, res.Status, res.Body)
		}
	}
	res = h.Do(apitest.Request{Method: "POST", Path: "/auth/account/reset_password", Body: map[string]any{"email": newEmail("nobody")}})
	if res.Status != 204 {
		t.Fatalf("reset unknown = %d %s", res.Status, res.Body)
	}
	box.None(300 * time.Millisecond)

	// Password reset with session removal.
	ev := h.Listen(event.Private(chat.ID(s.UserID)))
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/reset_password", Body: map[string]any{"email": strings.ToUpper(email)}}); res.Status != 204 {
		t.Fatalf("reset = %d %s", res.Status, res.Body)
	}
	m = box.Wait()
	reset := m.Token(t, "/login/reset/")
	resetReq := func(token, password string) *apitest.Response {
		return h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/reset_password",
			Body: map[string]any{"token": token, "password": password, "remove_sessions": true}})
	}
	wantError(t, resetReq("wrong-token", "brand new passphrase"), 401, "InvalidToken")
	wantError(t, resetReq(reset, "password123"), 400, "CompromisedPassword")
	wantError(t, resetReq(token, "brand new passphrase"), 401, "InvalidToken") // a used verification token
	if res := resetReq(reset, "brand new passphrase"); res.Status != 204 {
		t.Fatalf("reset password = %d %s", res.Status, res.Body)
	}
	if e := ev.Wait(chat.EvAuth, nil); e.Body["event_type"] != "DeleteAllSessions" {
		t.Errorf("event = %s", e.Raw)
	}
	wantError(t, h.Get("/auth/account/", s.Token), 401, "InvalidSession")
	wantError(t, resetReq(reset, "yet another passphrase"), 401, "InvalidToken")
	s = login(t, h, email, "brand new passphrase")

	// Email change goes through a link to the new address.
	other := newEmail("Shrew")
	res = h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/change/email", Session: s.Token,
		Body: map[string]any{"current_password": "brand new passphrase", "email": other}})
	if res.Status != 204 {
		t.Fatalf("change email = %d %s", res.Status, res.Body)
	}
	m = box.Wait()
	if m.To[0] != other {
		t.Fatalf("change mail went to %v", m.To)
	}
	if got := h.Get("/auth/account/", s.Token).Map(t)["email"]; got != email {
		t.Errorf("email changed before confirmation: %v", got)
	}
	res = h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + m.Token(t, "/login/verify/")})
	if res.Status != 200 || strings.TrimSpace(string(res.Body)) != "null" {
		t.Fatalf("confirm email change = %d %s", res.Status, res.Body)
	}
	login(t, h, other, "brand new passphrase")
}

func TestEmailTokensExpire(t *testing.T) {
	t.Parallel()
	box := apitest.StartSMTP(t, "", "")
	h := startAuth(t, box.Option())
	email := newEmail("Sable")
	create(t, h, email, goodPassword)
	token := box.Wait().Token(t, "/login/verify/")
	ctx := context.Background()
	acc, err := h.Server.Store.FetchAccountByToken(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	acc.Verification.Expiry = chat.TimeOf(time.Now().Add(-time.Minute))
	if err := h.Server.Store.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + token}), 401, "InvalidToken")
	// Asking again sends a fresh link.
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/reverify", Body: map[string]any{"email": email}}); res.Status != 204 {
		t.Fatalf("reverify = %d %s", res.Status, res.Body)
	}
	fresh := box.Wait().Token(t, "/login/verify/")
	if fresh == token {
		t.Fatal("reverify sent the old token")
	}
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + fresh}); res.Status != 200 {
		t.Fatalf("verify fresh = %d %s", res.Status, res.Body)
	}
}

func TestMailFailureKeepsAccount(t *testing.T) {
	t.Parallel()
	// The mail server refuses the first two attempts: the account is
	// created all the same and the verification mail arrives on a retry.
	box := apitest.StartSMTP(t, "", "")
	box.FailNext(2)
	h := startAuth(t, box.Option(), func(c *config.Config) { c.Email.RetryDelay = 20 * time.Millisecond })
	email := newEmail("lost")
	create(t, h, email, goodPassword)
	if _, err := h.Server.Store.FetchAccountByEmail(context.Background(), normalised(t, email)); err != nil {
		t.Fatalf("the account is missing after its mail failed: %v", err)
	}
	token := box.Wait().Token(t, "/login/verify/")
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + token}); res.Status != 200 {
		t.Fatalf("verify with the retried mail = %d %s", res.Status, res.Body)
	}

	// With no mail server at all, creating still succeeds.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	down := startAuth(t, func(c *config.Config) {
		c.Email = config.Email{Host: "127.0.0.1", Port: port, TLS: config.TLSNone, From: "noreply@ermine.test", RetryDelay: time.Hour}
	})
	email = newEmail("later")
	create(t, down, email, goodPassword)
	if _, err := down.Server.Store.FetchAccountByEmail(context.Background(), normalised(t, email)); err != nil {
		t.Fatalf("the account is missing while mail is down: %v", err)
	}
}

// normalised is the stored form of an address.
func normalised(t *testing.T, email string) string {
	t.Helper()
	n, err := auth.NormaliseEmail(email)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMailFlowsEndToEnd follows one account through every mailed token
// and the recovery codes, with SMTP on: verification, password reset,
// MFA recovery codes made and used with real tickets, and deletion.
func TestMailFlowsEndToEnd(t *testing.T) {
	t.Parallel()
	box := apitest.StartSMTP(t, "", "")
	h := startAuth(t, box.Option())
	email := newEmail("Mink")
	create(t, h, email, goodPassword)
	verify := box.Wait().Token(t, "/login/verify/")
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + verify})
	if res.Status != 200 {
		t.Fatalf("verify = %d %s", res.Status, res.Body)
	}
	apitest.CheckSchema(t, "ResponseVerify", res.Body)

	// Password reset with the mailed token.
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/reset_password", Body: map[string]any{"email": email}}); res.Status != 204 {
		t.Fatalf("ask reset = %d %s", res.Status, res.Body)
	}
	reset := box.Wait().Token(t, "/login/reset/")
	const newPassword = "a different but good passphrase"
	if res := h.Do(apitest.Request{Method: "PATCH", Path: "/auth/account/reset_password",
		Body: map[string]any{"token": reset, "password": newPassword, "remove_sessions": true}}); res.Status != 204 {
		t.Fatalf("reset = %d %s", res.Status, res.Body)
	}
	s := login(t, h, email, newPassword)

	// Recovery codes: made and read with validated tickets.
	tk := ticket(t, h, s, map[string]any{"password": newPassword})
	res = withTicket(h, "PATCH", "/auth/mfa/recovery", s, tk)
	var codes []string
	res.JSON(t, &codes)
	if res.Status != 200 || len(codes) != 10 {
		t.Fatalf("generate recovery = %d %s", res.Status, res.Body)
	}
	wantError(t, withTicket(h, "POST", "/auth/mfa/recovery", s, tk), 401, "InvalidToken") // used up
	tk = ticket(t, h, s, map[string]any{"password": newPassword})
	res = withTicket(h, "POST", "/auth/mfa/recovery", s, tk)
	var again []string
	res.JSON(t, &again)
	if res.Status != 200 || strings.Join(again, ",") != strings.Join(codes, ",") {
		t.Fatalf("fetch recovery = %d %s", res.Status, res.Body)
	}

	// With TOTP on, a recovery code makes a ticket, once.
	tk = ticket(t, h, s, map[string]any{"password": newPassword})
	res = withTicket(h, "POST", "/auth/mfa/totp", s, tk)
	if res.Status != 200 {
		t.Fatalf("totp secret = %d %s", res.Status, res.Body)
	}
	secret := res.Map(t)["secret"].(string)
	if res := h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/totp", Session: s.Token,
		Body: map[string]any{"totp_code": code(t, secret, time.Now())}}); res.Status != 204 {
		t.Fatalf("enable totp = %d %s", res.Status, res.Body)
	}
	tk = ticket(t, h, s, map[string]any{"recovery_code": codes[0]})
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/mfa/ticket", Session: s.Token,
		Body: map[string]any{"recovery_code": codes[0]}}), 401, "InvalidToken")

	// Deletion with that ticket and the mailed confirmation.
	if res := withTicket(h, "POST", "/auth/account/delete", s, tk); res.Status != 204 {
		t.Fatalf("delete = %d %s", res.Status, res.Body)
	}
	del := box.Wait().Token(t, "/delete/")
	if res := h.Do(apitest.Request{Method: "PUT", Path: "/auth/account/delete", Body: map[string]any{"token": del}}); res.Status != 204 {
		t.Fatalf("confirm deletion = %d %s", res.Status, res.Body)
	}
	acc, err := h.Server.Store.FetchAccount(context.Background(), chat.ID(s.UserID))
	if err != nil || !acc.Disabled || acc.DeleteAfter == nil {
		t.Fatalf("account after confirmed deletion = %+v, %v", acc, err)
	}
	wantError(t, h.Get("/auth/account/", s.Token), 401, "InvalidSession")
}

func TestStartTLSRequired(t *testing.T) {
	t.Parallel()
	// The mailbox offers no STARTTLS: mail in starttls mode must not go
	// out in plain text.
	box := apitest.StartSMTP(t, "", "")
	opt := box.Option()
	h := startAuth(t, opt, func(c *config.Config) {
		c.Email.TLS = config.TLSStartTLS
		c.Email.RetryDelay = 10 * time.Millisecond
	})
	// The account is created; its mail is retried, and never sent.
	create(t, h, newEmail("plain"), goodPassword)
	box.None(500 * time.Millisecond)
	// A password reset, which answers at once, says the mail failed.
	s := h.NewUser("Forgetful")
	acc, err := h.Server.Store.FetchAccount(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	acc.EmailNormalised = normalised(t, s.Email)
	if err := h.Server.Store.UpdateAccount(context.Background(), acc); err != nil {
		t.Fatal(err)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/account/reset_password",
		Body: map[string]any{"email": s.Email}}), 500, "EmailFailed")
	box.None(100 * time.Millisecond)
}

func TestAccountDeletion(t *testing.T) {
	t.Parallel()
	box := apitest.StartSMTP(t, "", "")
	h := startAuth(t, box.Option())
	ctx := context.Background()
	email := newEmail("Stoat")
	create(t, h, email, goodPassword)
	verify := box.Wait().Token(t, "/login/verify/")
	if res := h.Do(apitest.Request{Method: "POST", Path: "/auth/account/verify/" + verify}); res.Status != 200 {
		t.Fatalf("verify = %d", res.Status)
	}
	s := login(t, h, email, goodPassword)
	u := onboard(t, h, s, "Stoat")
	uid := chat.ID(s.UserID)
	friend := h.NewUser("Friend")
	st := h.Server.Store
	for _, r := range [][2]chat.ID{{uid, friend.ID}, {friend.ID, uid}} {
		if err := st.SetRelationship(ctx, r[0], r[1], chat.RelationFriend); err != nil {
			t.Fatal(err)
		}
	}
	saved := &chat.Channel{ID: chat.NewID(), ChannelType: chat.ChannelSavedMessages, User: uid}
	if err := st.InsertChannel(ctx, saved); err != nil {
		t.Fatal(err)
	}
	msg := &chat.Message{ID: chat.NewID(), Channel: saved.ID, Author: uid, Content: ptr("kept")}
	if err := st.InsertMessage(ctx, msg); err != nil {
		t.Fatal(err)
	}

	// Asking needs a ticket and mails a link; nothing happens yet.
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/account/delete", Session: s.Token}), 400, "MissingHeaders")
	tk := ticket(t, h, s, map[string]any{"password": goodPassword})
	if res := withTicket(h, "POST", "/auth/account/delete", s, tk); res.Status != 204 {
		t.Fatalf("delete = %d %s", res.Status, res.Body)
	}
	del := box.Wait().Token(t, "/delete/")
	if res := h.Get("/auth/account/", s.Token); res.Status != 200 {
		t.Fatalf("account before confirmation = %d", res.Status)
	}
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/account/delete", Body: map[string]any{"token": "nope"}}), 401, "InvalidToken")
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/account/delete", Body: map[string]any{}}), 422, "FailedValidation")

	ev := h.Listen(event.Private(uid), event.Of(uid), event.Private(friend.ID))
	if res := h.Do(apitest.Request{Method: "PUT", Path: "/auth/account/delete", Body: map[string]any{"token": del}}); res.Status != 204 {
		t.Fatalf("confirm = %d %s", res.Status, res.Body)
	}
	if e := ev.Wait(chat.EvAuth, nil); e.Body["event_type"] != "DeleteAllSessions" {
		t.Errorf("event = %s", e.Raw)
	}
	wantError(t, h.Get("/auth/account/", s.Token), 401, "InvalidSession")
	wantError(t, h.Do(apitest.Request{Method: "PUT", Path: "/auth/account/delete", Body: map[string]any{"token": del}}), 401, "InvalidToken")
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"email": email, "password": goodPassword}})
	if res.Status != 200 || res.Map(t)["result"] != "Disabled" {
		t.Fatalf("login while deletion pending = %d %s", res.Status, res.Body)
	}
	acc, err := st.FetchAccount(ctx, uid)
	if err != nil || acc.DeleteAfter == nil || time.Until(acc.DeleteAfter.Time) < 6*24*time.Hour {
		t.Fatalf("deletion not scheduled a week out: %+v, %v", acc, err)
	}

	// Not yet due: the job leaves it.
	if n, err := h.Server.App.RunDueDeletions(ctx); err != nil || n != 0 {
		t.Fatalf("early run = %d, %v", n, err)
	}
	past := chat.TimeOf(time.Now().Add(-time.Minute))
	acc.DeleteAfter = &past
	if err := st.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	if n, err := h.Server.App.RunDueDeletions(ctx); err != nil || n != 1 {
		t.Fatalf("due run = %d, %v", n, err)
	}
	e := ev.Wait(chat.EvUserUpdate, nil)
	if data := e.Body["data"].(map[string]any); data["username"] != "Deleted User" || data["flags"] != float64(2) {
		t.Errorf("UserUpdate = %s", e.Raw)
	}
	if e := ev.Wait(chat.EvUserRelationship, nil); e.Topic != event.Private(friend.ID) || e.Body["status"] != "None" {
		t.Errorf("UserRelationship = %s on %s", e.Raw, e.Topic)
	}

	if _, err := st.FetchAccount(ctx, uid); err == nil {
		t.Error("account still stored")
	}
	gone, err := st.FetchUser(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	if gone.Username != "Deleted User" || gone.Flags&chat.UserFlagDeleted == 0 || gone.Avatar != nil || gone.Status != nil || gone.Profile != nil {
		t.Errorf("user after deletion = %+v (was %v)", gone, u)
	}
	if rel, _ := st.FetchRelationship(ctx, friend.ID, uid); rel != chat.RelationNone {
		t.Errorf("friend still sees %s", rel)
	}
	if kept, err := st.FetchMessage(ctx, msg.ID); err != nil || kept.Author != uid {
		t.Errorf("message after deletion = %+v, %v", kept, err)
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login",
		Body: map[string]any{"email": email, "password": goodPassword}}), 401, "InvalidCredentials")
	// The address is free again.
	create(t, h, email, goodPassword)
	if m := box.Wait(); !strings.Contains(m.Subject, "Verify") {
		t.Errorf("mail after re-registration = %q", m.Subject)
	}
}

func TestDeletionWithoutMail(t *testing.T) {
	t.Parallel()
	h := startAuth(t)
	email, s := newAccount(t, h, "Genet")
	tk := ticket(t, h, s, map[string]any{"password": goodPassword})
	if res := withTicket(h, "POST", "/auth/account/delete", s, tk); res.Status != 204 {
		t.Fatalf("delete = %d %s", res.Status, res.Body)
	}
	// Scheduled at once, as if confirmed.
	wantError(t, h.Get("/auth/account/", s.Token), 401, "InvalidSession")
	res := h.Do(apitest.Request{Method: "POST", Path: "/auth/session/login", Body: map[string]any{"email": email, "password": goodPassword}})
	if res.Status != 200 || res.Map(t)["result"] != "Disabled" {
		t.Fatalf("login = %d %s", res.Status, res.Body)
	}
}

func TestRegistrationGates(t *testing.T) {
	t.Parallel()
	t.Run("invite only", func(t *testing.T) {
		h := startAuth(t, func(c *config.Config) { c.Registration.InviteOnly = true })
		if v := h.Get("/", "").Map(t)["features"].(map[string]any)["invite_only"]; v != true {
			t.Errorf("features.invite_only = %v", v)
		}
		invs, err := h.Server.App.CreateRegistrationInvites(context.Background(), app.Operator(), 1)
		if err != nil {
			t.Fatal(err)
		}
		code := invs[0].Code
		reg := func(email string, invite any) *apitest.Response {
			body := map[string]any{"email": email, "password": goodPassword}
			if invite != nil {
				body["invite"] = invite
			}
			return h.Do(apitest.Request{Method: "POST", Path: "/auth/account/create", Body: body})
		}
		wantError(t, reg(newEmail("a"), nil), 400, "MissingInvite")
		wantError(t, reg(newEmail("a"), ""), 400, "MissingInvite")
		wantError(t, reg(newEmail("a"), "NOSUCHCODE"), 400, "InvalidInvite")
		wantError(t, reg(newEmail("a"), 5), 422, "FailedValidation")
		email := newEmail("invited")
		if res := reg(email, code); res.Status != 204 {
			t.Fatalf("create with invite = %d %s", res.Status, res.Body)
		}
		s := login(t, h, email, goodPassword)
		inv, err := h.Server.Store.FetchRegistrationInvite(context.Background(), code)
		if err != nil || !inv.Used || inv.UsedBy == nil || string(*inv.UsedBy) != s.UserID {
			t.Errorf("invite after use = %+v, %v", inv, err)
		}
		wantError(t, reg(newEmail("b"), code), 400, "InvalidInvite")
	})
	t.Run("captcha", func(t *testing.T) {
		var got []string
		verify := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil || r.Form.Get("secret") != "hc-secret" {
				http.Error(w, "bad secret", http.StatusBadRequest)
				return
			}
			got = append(got, r.Form.Get("response"))
			w.Header().Set("Content-Type", "application/json")
			if r.Form.Get("response") == "solved" && r.Form.Get("sitekey") == "hc-site" {
				_, _ = w.Write([]byte(`{"success":true}`))
				return
			}
			_, _ = w.Write([]byte(`{"success":false,"error-codes":["invalid-input-response"]}`))
		}))
		t.Cleanup(verify.Close)
		h := startAuth(t, func(c *config.Config) {
			c.Captcha = config.Captcha{HCaptchaKey: "hc-site", HCaptchaSecret: "hc-secret", VerifyURL: verify.URL}
		})
		captcha := h.Get("/", "").Map(t)["features"].(map[string]any)["captcha"].(map[string]any)
		if captcha["enabled"] != true || captcha["key"] != "hc-site" {
			t.Errorf("features.captcha = %v", captcha)
		}
		reg := func(answer any) *apitest.Response {
			body := map[string]any{"email": newEmail("human"), "password": goodPassword}
			if answer != nil {
				body["captcha"] = answer
			}
			return h.Do(apitest.Request{Method: "POST", Path: "/auth/account/create", Body: body})
		}
		wantError(t, reg(nil), 400, "CaptchaFailed")
		wantError(t, reg("robot"), 400, "CaptchaFailed")
		if res := reg("solved"); res.Status != 204 {
			t.Fatalf("create with captcha = %d %s", res.Status, res.Body)
		}
		for _, path := range []string{"/auth/account/reset_password", "/auth/account/reverify"} {
			wantError(t, h.Do(apitest.Request{Method: "POST", Path: path, Body: map[string]any{"email": newEmail("x")}}), 400, "CaptchaFailed")
			if res := h.Do(apitest.Request{Method: "POST", Path: path, Body: map[string]any{"email": newEmail("x"), "captcha": "solved"}}); res.Status != 204 {
				t.Errorf("%s with captcha = %d %s", path, res.Status, res.Body)
			}
		}
		if strings.Join(got, ",") != "robot,solved,solved,solved" {
			t.Errorf("answers checked = %v", got)
		}
	})
}

func ptr[T any](v T) *T { return &v }
