package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// createTicket handles PUT /auth/mfa/ticket.
func (a *API) createTicket(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	d, err := decode[chat.MFAResponse](w, r, a.limit)
	if err != nil {
		return err
	}
	t, err := a.app.CreateTicket(r.Context(), c, d)
	if err != nil {
		return err
	}
	return respond(w, t)
}

// fetchMFAStatus handles GET /auth/mfa/.
func (a *API) fetchMFAStatus(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	st, err := a.app.MFAStatus(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, st)
}

// fetchRecovery handles POST /auth/mfa/recovery.
func (a *API) fetchRecovery(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	codes, err := a.app.FetchRecoveryCodes(r.Context(), c, mfaTicket(r))
	if err != nil {
		return err
	}
	return respond(w, codes)
}

// generateRecovery handles PATCH /auth/mfa/recovery.
func (a *API) generateRecovery(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	codes, err := a.app.GenerateRecoveryCodes(r.Context(), c, mfaTicket(r))
	if err != nil {
		return err
	}
	return respond(w, codes)
}

// getMFAMethods handles GET /auth/mfa/methods.
func (a *API) getMFAMethods(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	methods, err := a.app.MFAMethods(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, methods)
}

// totpEnable handles PUT /auth/mfa/totp.
func (a *API) totpEnable(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	d, err := decode[chat.MFAResponse](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.EnableTOTP(r.Context(), c, d); err != nil {
		return err
	}
	return noContent(w)
}

// totpGenerateSecret handles POST /auth/mfa/totp.
func (a *API) totpGenerateSecret(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	s, err := a.app.GenerateTOTPSecret(r.Context(), c, mfaTicket(r))
	if err != nil {
		return err
	}
	return respond(w, s)
}

// totpDisable handles DELETE /auth/mfa/totp.
func (a *API) totpDisable(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DisableTOTP(r.Context(), c, mfaTicket(r)); err != nil {
		return err
	}
	return noContent(w)
}
