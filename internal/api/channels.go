package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// fetchChannel handles GET /channels/{target}.
func (a *API) fetchChannel(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	ch, err := a.app.FetchChannel(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, ch)
}

// editChannel handles PATCH /channels/{target}.
func (a *API) editChannel(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.ChannelEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	ch, err := a.app.EditChannel(r.Context(), c, chat.ID(r.PathValue("target")), data)
	if err != nil {
		return err
	}
	return respond(w, ch)
}

// deleteChannel handles DELETE /channels/{target}.
func (a *API) deleteChannel(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	silent, err := boolQuery(r, "leave_silently")
	if err != nil {
		return err
	}
	if err := a.app.DeleteChannel(r.Context(), c, chat.ID(r.PathValue("target")), silent); err != nil {
		return err
	}
	return noContent(w)
}

// setChannelRolePermissions handles PUT /channels/{target}/permissions/{role}.
func (a *API) setChannelRolePermissions(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.OverrideSet](w, r, a.limit)
	if err != nil {
		return err
	}
	ch, err := a.app.SetChannelRolePermissions(r.Context(), c, chat.ID(r.PathValue("target")),
		chat.ID(r.PathValue("role")), *data.Permissions)
	if err != nil {
		return err
	}
	return respond(w, ch)
}

// setDefaultChannelPermissions handles PUT /channels/{target}/permissions/default.
func (a *API) setDefaultChannelPermissions(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.DefaultPermissionsSet](w, r, a.limit)
	if err != nil {
		return err
	}
	ch, err := a.app.SetChannelDefaultPermissions(r.Context(), c, chat.ID(r.PathValue("target")), data)
	if err != nil {
		return err
	}
	return respond(w, ch)
}
