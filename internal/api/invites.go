package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// createInvite handles POST /channels/{target}/invites.
func (a *API) createInvite(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	inv, err := a.app.CreateInvite(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, inv)
}

// fetchInvite handles GET /invites/{target}; no authentication is needed.
func (a *API) fetchInvite(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	inv, err := a.app.FetchInvite(r.Context(), r.PathValue("target"))
	if err != nil {
		return err
	}
	return respond(w, inv)
}

// joinInvite handles POST /invites/{target}.
func (a *API) joinInvite(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	res, err := a.app.JoinInvite(r.Context(), c, r.PathValue("target"))
	if err != nil {
		return err
	}
	return respond(w, res)
}

// deleteInvite handles DELETE /invites/{target}.
func (a *API) deleteInvite(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DeleteInvite(r.Context(), c, r.PathValue("target")); err != nil {
		return err
	}
	return noContent(w)
}

// fetchServerInvites handles GET /servers/{target}/invites.
func (a *API) fetchServerInvites(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	list, err := a.app.FetchServerInvites(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, list)
}
