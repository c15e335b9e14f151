package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// createEmoji handles PUT /custom/emoji/{id}.
func (a *API) createEmoji(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.EmojiCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	e, err := a.app.CreateEmoji(r.Context(), c, chat.ID(r.PathValue("id")), data)
	if err != nil {
		return err
	}
	return respond(w, e)
}

// fetchEmoji handles GET /custom/emoji/{id}; no authentication is needed.
func (a *API) fetchEmoji(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	e, err := a.app.FetchEmoji(r.Context(), chat.ID(r.PathValue("id")))
	if err != nil {
		return err
	}
	return respond(w, e)
}

// editEmoji handles PATCH /custom/emoji/{id}.
func (a *API) editEmoji(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.EmojiEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	e, err := a.app.EditEmoji(r.Context(), c, chat.ID(r.PathValue("id")), data)
	if err != nil {
		return err
	}
	return respond(w, e)
}

// deleteEmoji handles DELETE /custom/emoji/{id}.
func (a *API) deleteEmoji(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DeleteEmoji(r.Context(), c, chat.ID(r.PathValue("id"))); err != nil {
		return err
	}
	return noContent(w)
}

// fetchServerEmojis handles GET /servers/{target}/emojis and the seed's
// GET /server/{target}/emojis.
func (a *API) fetchServerEmojis(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	list, err := a.app.FetchServerEmojis(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, list)
}
