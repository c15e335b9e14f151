package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// createRole handles POST /servers/{target}/roles.
func (a *API) createRole(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.RoleCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	res, err := a.app.CreateRole(r.Context(), c, chat.ID(r.PathValue("target")), data)
	if err != nil {
		return err
	}
	return respond(w, res)
}

// fetchRole handles GET /servers/{target}/roles/{role}.
func (a *API) fetchRole(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	role, err := a.app.FetchRole(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("role")))
	if err != nil {
		return err
	}
	return respond(w, role)
}

// editRole handles PATCH /servers/{target}/roles/{role}.
func (a *API) editRole(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.RoleEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	role, err := a.app.EditRole(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("role")), data)
	if err != nil {
		return err
	}
	return respond(w, role)
}

// deleteRole handles DELETE /servers/{target}/roles/{role}.
func (a *API) deleteRole(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DeleteRole(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("role"))); err != nil {
		return err
	}
	return noContent(w)
}

// editRoleRanks handles PATCH /servers/{target}/roles/ranks.
func (a *API) editRoleRanks(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.RoleRanksEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	s, err := a.app.EditRoleRanks(r.Context(), c, chat.ID(r.PathValue("target")), data.Ranks)
	if err != nil {
		return err
	}
	return respond(w, s)
}
