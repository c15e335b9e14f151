package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// routesGroups registers the group routes of /channels: creating a group
// and managing its members. Fetching, editing and leaving any channel,
// groups included, are in the channel routes.
func (a *API) routesGroups(mux router) {
	mux.Handle("POST /channels/create", a.user(a.createGroup))
	mux.Handle("GET /channels/{target}/members", a.user(a.fetchGroupMembers))
	mux.Handle("PUT /channels/{target}/recipients/{member}", a.user(a.addMember))
	mux.Handle("DELETE /channels/{target}/recipients/{member}", a.user(a.removeMember))
}

// createGroup handles POST /channels/create.
func (a *API) createGroup(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.GroupCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	ch, err := a.app.CreateGroup(r.Context(), c, data)
	if err != nil {
		return err
	}
	return respond(w, ch)
}

// fetchGroupMembers handles GET /channels/{target}/members.
func (a *API) fetchGroupMembers(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	users, err := a.app.FetchGroupMembers(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, users)
}

// addMember handles PUT /channels/{group_id}/recipients/{member_id}.
func (a *API) addMember(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	err := a.app.AddGroupMember(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("member")))
	if err != nil {
		return err
	}
	return noContent(w)
}

// removeMember handles DELETE /channels/{target}/recipients/{member}.
func (a *API) removeMember(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	err := a.app.RemoveGroupMember(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("member")))
	if err != nil {
		return err
	}
	return noContent(w)
}
