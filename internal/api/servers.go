package api

import (
	"fmt"
	"net/http"
	"strconv"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// routesServers registers the routes of servers and everything in them:
// servers, their channels, roles, members, bans, invites and emoji, and
// the channel routes shared by every channel type.
func (a *API) routesServers(mux router) {
	// Servers
	mux.Handle("POST /servers/create", a.user(a.createServer))
	mux.Handle("GET /servers/{target}", a.user(a.fetchServer))
	mux.Handle("PATCH /servers/{target}", a.moderation(a.editServer))
	mux.Handle("DELETE /servers/{target}", a.user(a.deleteServer))
	mux.Handle("PUT /servers/{target}/ack", a.user(a.ackServer))
	mux.Handle("POST /servers/{target}/channels", a.moderation(a.createServerChannel))
	mux.Handle("PUT /servers/{target}/permissions/default", a.moderation(a.setDefaultServerPermissions))
	mux.Handle("PUT /servers/{target}/permissions/{role}", a.moderation(a.setServerRolePermissions))

	// Roles
	mux.Handle("POST /servers/{target}/roles", a.moderation(a.createRole))
	mux.Handle("PATCH /servers/{target}/roles/ranks", a.moderation(a.editRoleRanks))
	mux.Handle("GET /servers/{target}/roles/{role}", a.user(a.fetchRole))
	mux.Handle("PATCH /servers/{target}/roles/{role}", a.moderation(a.editRole))
	mux.Handle("DELETE /servers/{target}/roles/{role}", a.moderation(a.deleteRole))

	// Members and bans
	mux.Handle("GET /servers/{target}/members", a.user(a.fetchMembers))
	mux.Handle("GET /servers/{target}/members_experimental_query", a.user(a.queryMembers))
	mux.Handle("GET /servers/{target}/members/{member}", a.user(a.fetchMember))
	mux.Handle("PATCH /servers/{target}/members/{member}", a.moderation(a.editMember))
	mux.Handle("DELETE /servers/{target}/members/{member}", a.moderation(a.kickMember))
	mux.Handle("GET /servers/{target}/bans", a.user(a.fetchBans))
	mux.Handle("PUT /servers/{target}/bans/{user}", a.moderation(a.banUser))
	mux.Handle("DELETE /servers/{target}/bans/{user}", a.moderation(a.unbanUser))
	mux.Handle("GET /servers/{target}/audit_logs", a.user(a.queryAuditLogs))

	// Invites
	mux.Handle("GET /servers/{target}/invites", a.user(a.fetchServerInvites))
	mux.Handle("POST /channels/{target}/invites", a.moderation(a.createInvite))
	mux.Handle("GET /invites/{target}", a.public(a.fetchInvite))
	mux.Handle("POST /invites/{target}", a.user(a.joinInvite))
	mux.Handle("DELETE /invites/{target}", a.moderation(a.deleteInvite))

	// Emoji
	mux.Handle("GET /servers/{target}/emojis", a.user(a.fetchServerEmojis))
	mux.Handle("GET /server/{target}/emojis", a.user(a.fetchServerEmojis))
	mux.Handle("PUT /custom/emoji/{id}", a.moderation(a.createEmoji))
	mux.Handle("GET /custom/emoji/{id}", a.public(a.fetchEmoji))
	mux.Handle("PATCH /custom/emoji/{id}", a.moderation(a.editEmoji))
	mux.Handle("DELETE /custom/emoji/{id}", a.moderation(a.deleteEmoji))

	// Channels
	mux.Handle("GET /channels/{target}", a.user(a.fetchChannel))
	mux.Handle("PATCH /channels/{target}", a.moderation(a.editChannel))
	mux.Handle("DELETE /channels/{target}", a.moderation(a.deleteChannel))
	mux.Handle("PUT /channels/{target}/permissions/default", a.moderation(a.setDefaultChannelPermissions))
	mux.Handle("PUT /channels/{target}/permissions/{role}", a.moderation(a.setChannelRolePermissions))
}

// boolQuery reads an optional boolean query parameter (false when absent).
func boolQuery(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, chat.ErrInvalidBody(fmt.Sprintf("%s: expected true or false, got %q", name, v))
	}
	return b, nil
}

// createServer handles POST /servers/create.
func (a *API) createServer(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.ServerCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	res, err := a.app.CreateServer(r.Context(), c, data)
	if err != nil {
		return err
	}
	return respond(w, res)
}

// fetchServer handles GET /servers/{target}.
func (a *API) fetchServer(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	include, err := boolQuery(r, "include_channels")
	if err != nil {
		return err
	}
	s, channels, err := a.app.FetchServer(r.Context(), c, chat.ID(r.PathValue("target")), include)
	if err != nil {
		return err
	}
	if include {
		return respond(w, chat.ServerWithChannels{Server: s, Channels: channels})
	}
	return respond(w, s)
}

// editServer handles PATCH /servers/{target}.
func (a *API) editServer(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.ServerEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	s, err := a.app.EditServer(r.Context(), c, chat.ID(r.PathValue("target")), data, mfaTicket(r))
	if err != nil {
		return err
	}
	return respond(w, s)
}

// deleteServer handles DELETE /servers/{target}.
func (a *API) deleteServer(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	silent, err := boolQuery(r, "leave_silently")
	if err != nil {
		return err
	}
	if err := a.app.DeleteServer(r.Context(), c, chat.ID(r.PathValue("target")), silent); err != nil {
		return err
	}
	return noContent(w)
}

// ackServer handles PUT /servers/{target}/ack.
func (a *API) ackServer(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AckServer(r.Context(), c, chat.ID(r.PathValue("target"))); err != nil {
		return err
	}
	return noContent(w)
}

// createServerChannel handles POST /servers/{target}/channels.
func (a *API) createServerChannel(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.ServerChannelCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	ch, err := a.app.CreateServerChannel(r.Context(), c, chat.ID(r.PathValue("target")), data)
	if err != nil {
		return err
	}
	return respond(w, ch)
}

// setDefaultServerPermissions handles PUT /servers/{target}/permissions/default.
func (a *API) setDefaultServerPermissions(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.PermissionsValue](w, r, a.limit)
	if err != nil {
		return err
	}
	s, err := a.app.SetDefaultServerPermissions(r.Context(), c, chat.ID(r.PathValue("target")), *data.Permissions)
	if err != nil {
		return err
	}
	return respond(w, s)
}

// setServerRolePermissions handles PUT /servers/{target}/permissions/{role}.
func (a *API) setServerRolePermissions(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.OverrideSet](w, r, a.limit)
	if err != nil {
		return err
	}
	s, err := a.app.SetServerRolePermissions(r.Context(), c, chat.ID(r.PathValue("target")),
		chat.ID(r.PathValue("role")), *data.Permissions)
	if err != nil {
		return err
	}
	return respond(w, s)
}
