package api

import (
	"net/http"
	"strconv"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// login handles POST /auth/session/login.
func (a *API) login(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	d, err := decode[chat.Login](w, r, a.limit)
	if err != nil {
		return err
	}
	res, err := a.app.Login(r.Context(), d)
	if err != nil {
		return err
	}
	return respond(w, res)
}

// logout handles POST /auth/session/logout.
func (a *API) logout(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.Logout(r.Context(), c); err != nil {
		return err
	}
	return noContent(w)
}

// fetchSessions handles GET /auth/session/all.
func (a *API) fetchSessions(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	all, err := a.app.FetchSessions(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, all)
}

// revokeAllSessions handles DELETE /auth/session/all.
func (a *API) revokeAllSessions(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	revokeSelf := false
	if s := r.URL.Query().Get("revoke_self"); s != "" {
		var err error
		if revokeSelf, err = strconv.ParseBool(s); err != nil {
			return chat.ErrInvalidBody("revoke_self: must be true or false")
		}
	}
	if err := a.app.RevokeAllSessions(r.Context(), c, revokeSelf, mfaTicket(r)); err != nil {
		return err
	}
	return noContent(w)
}

// revokeSession handles DELETE /auth/session/{id}.
func (a *API) revokeSession(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.RevokeSession(r.Context(), c, chat.ID(r.PathValue("id")), mfaTicket(r)); err != nil {
		return err
	}
	return noContent(w)
}

// editSession handles PATCH /auth/session/{id}.
func (a *API) editSession(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	d, err := decode[chat.SessionEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	info, err := a.app.EditSession(r.Context(), c, chat.ID(r.PathValue("id")), d)
	if err != nil {
		return err
	}
	return respond(w, info)
}
