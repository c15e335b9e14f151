package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// routesBots registers the /bots routes.
func (a *API) routesBots(mux router) {
	mux.Handle("POST /bots/create", a.user(a.createBot))
	mux.Handle("GET /bots/@me", a.user(a.fetchOwnedBots))
	mux.Handle("GET /bots/{target}", a.user(a.fetchBot))
	mux.Handle("PATCH /bots/{target}", a.user(a.editBot))
	mux.Handle("DELETE /bots/{target}", a.user(a.deleteBot))
	mux.Handle("GET /bots/{target}/invite", a.public(a.fetchPublicBot))
	mux.Handle("POST /bots/{target}/invite", a.user(a.inviteBot))
}

// botTarget is the {target} path value of a /bots route.
func botTarget(r *http.Request) chat.ID { return chat.ID(r.PathValue("target")) }

// createBot handles POST /bots/create.
func (a *API) createBot(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.BotCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	b, err := a.app.CreateBot(r.Context(), c, data)
	if err != nil {
		return err
	}
	return respond(w, b)
}

// fetchOwnedBots handles GET /bots/@me.
func (a *API) fetchOwnedBots(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	b, err := a.app.FetchOwnedBots(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, b)
}

// fetchBot handles GET /bots/{bot}.
func (a *API) fetchBot(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	b, err := a.app.FetchBot(r.Context(), c, botTarget(r))
	if err != nil {
		return err
	}
	return respond(w, b)
}

// editBot handles PATCH /bots/{target}.
func (a *API) editBot(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.BotEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	b, err := a.app.EditBot(r.Context(), c, botTarget(r), data)
	if err != nil {
		return err
	}
	return respond(w, b)
}

// deleteBot handles DELETE /bots/{target}.
func (a *API) deleteBot(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DeleteBot(r.Context(), c, botTarget(r)); err != nil {
		return err
	}
	return noContent(w)
}

// fetchPublicBot handles GET /bots/{target}/invite.
func (a *API) fetchPublicBot(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	b, err := a.app.FetchPublicBot(r.Context(), c, botTarget(r))
	if err != nil {
		return err
	}
	return respond(w, b)
}

// inviteBot handles POST /bots/{target}/invite.
func (a *API) inviteBot(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.BotInvite](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.InviteBot(r.Context(), c, botTarget(r), data); err != nil {
		return err
	}
	return noContent(w)
}
