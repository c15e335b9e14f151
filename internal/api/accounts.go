package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// routesAccounts registers the account, session, MFA, onboarding and
// settings-sync routes.
func (a *API) routesAccounts(mux router) {
	// Account
	mux.Handle("POST /auth/account/create", a.public(a.createAccount))
	mux.Handle("POST /auth/account/reverify", a.public(a.resendVerification))
	mux.Handle("PUT /auth/account/delete", a.public(a.confirmDeletion))
	mux.Handle("POST /auth/account/delete", a.session(a.deleteAccount))
	mux.Handle("GET /auth/account/{$}", a.session(a.fetchAccount))
	mux.Handle("POST /auth/account/disable", a.session(a.disableAccount))
	mux.Handle("PATCH /auth/account/change/password", a.session(a.changePassword))
	mux.Handle("PATCH /auth/account/change/email", a.session(a.changeEmail))
	mux.Handle("POST /auth/account/verify/{code}", a.public(a.verifyEmail))
	mux.Handle("POST /auth/account/reset_password", a.public(a.sendPasswordReset))
	mux.Handle("PATCH /auth/account/reset_password", a.public(a.passwordReset))
	// Session
	mux.Handle("POST /auth/session/login", a.public(a.login))
	mux.Handle("POST /auth/session/logout", a.session(a.logout))
	mux.Handle("GET /auth/session/all", a.session(a.fetchSessions))
	mux.Handle("DELETE /auth/session/all", a.session(a.revokeAllSessions))
	mux.Handle("DELETE /auth/session/{id}", a.session(a.revokeSession))
	mux.Handle("PATCH /auth/session/{id}", a.session(a.editSession))
	// MFA
	mux.Handle("PUT /auth/mfa/ticket", a.session(a.createTicket))
	mux.Handle("GET /auth/mfa/{$}", a.session(a.fetchMFAStatus))
	mux.Handle("POST /auth/mfa/recovery", a.session(a.fetchRecovery))
	mux.Handle("PATCH /auth/mfa/recovery", a.session(a.generateRecovery))
	mux.Handle("GET /auth/mfa/methods", a.session(a.getMFAMethods))
	mux.Handle("PUT /auth/mfa/totp", a.session(a.totpEnable))
	mux.Handle("POST /auth/mfa/totp", a.session(a.totpGenerateSecret))
	mux.Handle("DELETE /auth/mfa/totp", a.session(a.totpDisable))
	// Onboarding
	mux.Handle("GET /onboard/hello", a.session(a.hello))
	mux.Handle("POST /onboard/complete", a.session(a.completeOnboarding))
	// Sync
	mux.Handle("POST /sync/settings/fetch", a.user(a.getSettings))
	mux.Handle("POST /sync/settings/set", a.user(a.setSettings))
}

// createAccount handles POST /auth/account/create.
func (a *API) createAccount(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	d, err := decode[chat.AccountCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.CreateAccount(r.Context(), d); err != nil {
		return err
	}
	return noContent(w)
}

// resendVerification handles POST /auth/account/reverify.
func (a *API) resendVerification(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	d, err := decode[chat.EmailRequest](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.ResendVerification(r.Context(), d); err != nil {
		return err
	}
	return noContent(w)
}

// confirmDeletion handles PUT /auth/account/delete.
func (a *API) confirmDeletion(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	d, err := decode[chat.AccountDeletion](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.ConfirmDeletion(r.Context(), d); err != nil {
		return err
	}
	return noContent(w)
}

// mfaTicket is the validated MFA ticket sent for a sensitive action.
func mfaTicket(r *http.Request) string { return r.Header.Get("X-MFA-Ticket") }

// deleteAccount handles POST /auth/account/delete.
func (a *API) deleteAccount(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DeleteAccount(r.Context(), c, mfaTicket(r)); err != nil {
		return err
	}
	return noContent(w)
}

// fetchAccount handles GET /auth/account/.
func (a *API) fetchAccount(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	info, err := a.app.FetchAccount(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, info)
}

// disableAccount handles POST /auth/account/disable.
func (a *API) disableAccount(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DisableAccount(r.Context(), c, mfaTicket(r)); err != nil {
		return err
	}
	return noContent(w)
}

// changePassword handles PATCH /auth/account/change/password.
func (a *API) changePassword(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	d, err := decode[chat.PasswordChange](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.ChangePassword(r.Context(), c, d); err != nil {
		return err
	}
	return noContent(w)
}

// changeEmail handles PATCH /auth/account/change/email.
func (a *API) changeEmail(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	d, err := decode[chat.EmailChange](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.ChangeEmail(r.Context(), c, d, mfaTicket(r)); err != nil {
		return err
	}
	return noContent(w)
}

// verifyEmail handles POST /auth/account/verify/{code}.
func (a *API) verifyEmail(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	res, err := a.app.VerifyEmail(r.Context(), r.PathValue("code"))
	if err != nil {
		return err
	}
	return respond(w, res) // null after an email change
}

// sendPasswordReset handles POST /auth/account/reset_password.
func (a *API) sendPasswordReset(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	d, err := decode[chat.EmailRequest](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.SendPasswordReset(r.Context(), d); err != nil {
		return err
	}
	return noContent(w)
}

// passwordReset handles PATCH /auth/account/reset_password.
func (a *API) passwordReset(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	d, err := decode[chat.PasswordReset](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.ResetPassword(r.Context(), d); err != nil {
		return err
	}
	return noContent(w)
}
