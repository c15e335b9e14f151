package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// fetchMembers handles GET /servers/{target}/members.
func (a *API) fetchMembers(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	offline, err := boolQuery(r, "exclude_offline")
	if err != nil {
		return err
	}
	body, err := a.app.FetchMembersJSON(r.Context(), c, chat.ID(r.PathValue("target")), offline)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// fetchMember handles GET /servers/{target}/members/{member}.
func (a *API) fetchMember(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	withRoles, err := boolQuery(r, "roles")
	if err != nil {
		return err
	}
	m, roles, err := a.app.FetchMember(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("member")), withRoles)
	if err != nil {
		return err
	}
	if withRoles {
		return respond(w, chat.MemberWithRoles{Member: m, Roles: roles})
	}
	return respond(w, m)
}

// queryMembers handles GET /servers/{target}/members_experimental_query.
func (a *API) queryMembers(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	experimental, err := boolQuery(r, "experimental_api")
	if err != nil {
		return err
	}
	list, err := a.app.QueryMembers(r.Context(), c, chat.ID(r.PathValue("target")), r.URL.Query().Get("query"), experimental)
	if err != nil {
		return err
	}
	return respond(w, list)
}

// editMember handles PATCH /servers/{target}/members/{member}.
func (a *API) editMember(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.MemberEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	m, err := a.app.EditMember(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("member")), data)
	if err != nil {
		return err
	}
	return respond(w, m)
}

// kickMember handles DELETE /servers/{target}/members/{member}.
func (a *API) kickMember(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.KickMember(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("member"))); err != nil {
		return err
	}
	return noContent(w)
}

// banUser handles PUT /servers/{target}/bans/{user}.
func (a *API) banUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.BanCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	ban, err := a.app.BanUser(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("user")), data.Reason)
	if err != nil {
		return err
	}
	return respond(w, ban)
}

// unbanUser handles DELETE /servers/{target}/bans/{user}.
func (a *API) unbanUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.UnbanUser(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("user"))); err != nil {
		return err
	}
	return noContent(w)
}

// fetchBans handles GET /servers/{target}/bans.
func (a *API) fetchBans(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	list, err := a.app.FetchBans(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, list)
}
