package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// routesUsers registers the /users routes: users, relationships and
// direct messages.
func (a *API) routesUsers(mux router) {
	mux.Handle("GET /users/@me", a.user(a.fetchSelf))
	mux.Handle("GET /users/@me/notifications", a.user(a.fetchNotifications))
	mux.Handle("GET /users/{target}", a.user(a.fetchUser))
	mux.Handle("PATCH /users/{target}", a.user(a.editUser))
	mux.Handle("PATCH /users/@me/username", a.user(a.changeUsername))
	mux.Handle("GET /users/{target}/flags", a.public(a.fetchUserFlags))
	mux.Handle("GET /users/{target}/default_avatar", a.public(a.getDefaultAvatar))
	mux.Handle("GET /users/{target}/profile", a.user(a.fetchProfile))
	mux.Handle("GET /users/{target}/mutual", a.user(a.findMutual))
	mux.Handle("GET /users/dms", a.user(a.fetchDMs))
	mux.Handle("GET /users/{target}/dm", a.user(a.openDM))
	mux.Handle("PUT /users/{target}/friend", a.user(a.addFriend))
	mux.Handle("DELETE /users/{target}/friend", a.user(a.removeFriend))
	mux.Handle("POST /users/friend", a.user(a.sendFriendRequest))
	mux.Handle("PUT /users/{target}/block", a.user(a.blockUser))
	mux.Handle("DELETE /users/{target}/block", a.user(a.unblockUser))
}

// userTarget is the {target} path value of a /users route.
func userTarget(r *http.Request) chat.ID { return chat.ID(r.PathValue("target")) }

// fetchNotifications handles GET /users/@me/notifications.
func (a *API) fetchNotifications(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	res, err := a.app.FetchNotifications(r.Context(), c)
	if err != nil {
		return err
	}
	return respondBulk(w, res)
}

// fetchSelf handles GET /users/@me.
func (a *API) fetchSelf(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	u, err := a.app.FetchSelf(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, u)
}

// fetchUser handles GET /users/{target}.
func (a *API) fetchUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	u, err := a.app.FetchUser(r.Context(), c, userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, u)
}

// editUser handles PATCH /users/{target}.
func (a *API) editUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.UserEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	u, err := a.app.EditUser(r.Context(), c, userTarget(r), data)
	if err != nil {
		return err
	}
	return respond(w, u)
}

// changeUsername handles PATCH /users/@me/username.
func (a *API) changeUsername(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.UsernameChange](w, r, a.limit)
	if err != nil {
		return err
	}
	u, err := a.app.ChangeUsername(r.Context(), c, data)
	if err != nil {
		return err
	}
	return respond(w, u)
}

// fetchUserFlags handles GET /users/{target}/flags.
func (a *API) fetchUserFlags(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	f, err := a.app.FetchUserFlags(r.Context(), userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, f)
}

// getDefaultAvatar handles GET /users/{target}/default_avatar.
func (a *API) getDefaultAvatar(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	b, err := a.app.DefaultAvatar(r.PathValue("target"))
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	_, err = w.Write(b)
	return err
}

// fetchProfile handles GET /users/{target}/profile.
func (a *API) fetchProfile(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	p, err := a.app.FetchProfile(r.Context(), c, userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, p)
}

// findMutual handles GET /users/{target}/mutual.
func (a *API) findMutual(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	m, err := a.app.FindMutual(r.Context(), c, userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, m)
}

// fetchDMs handles GET /users/dms.
func (a *API) fetchDMs(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	chans, err := a.app.FetchDMs(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, chans)
}

// openDM handles GET /users/{target}/dm.
func (a *API) openDM(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	ch, err := a.app.OpenDM(r.Context(), c, userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, ch)
}

// addFriend handles PUT /users/{target}/friend.
func (a *API) addFriend(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	u, err := a.app.AddFriend(r.Context(), c, userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, u)
}

// removeFriend handles DELETE /users/{target}/friend.
func (a *API) removeFriend(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	u, err := a.app.RemoveFriend(r.Context(), c, userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, u)
}

// sendFriendRequest handles POST /users/friend.
func (a *API) sendFriendRequest(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.FriendRequest](w, r, a.limit)
	if err != nil {
		return err
	}
	u, err := a.app.SendFriendRequest(r.Context(), c, data)
	if err != nil {
		return err
	}
	return respond(w, u)
}

// blockUser handles PUT /users/{target}/block.
func (a *API) blockUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	u, err := a.app.BlockUser(r.Context(), c, userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, u)
}

// unblockUser handles DELETE /users/{target}/block.
func (a *API) unblockUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	u, err := a.app.UnblockUser(r.Context(), c, userTarget(r))
	if err != nil {
		return err
	}
	return respond(w, u)
}
