package api

import (
	"net/http"
	"net/url"
	"strconv"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// routesMessages registers messages and what hangs off them: reactions,
// pins, search, acks, unreads and the policy acknowledgement.
func (a *API) routesMessages(mux router) {
	mux.Handle("POST /channels/{target}/messages", a.user(a.sendMessage))
	mux.Handle("GET /channels/{target}/messages", a.user(a.queryMessages))
	mux.Handle("DELETE /channels/{target}/messages/bulk", a.moderation(a.bulkDeleteMessages))
	mux.Handle("GET /channels/{target}/messages/{msg}", a.user(a.fetchMessage))
	mux.Handle("PATCH /channels/{target}/messages/{msg}", a.user(a.editMessage))
	mux.Handle("DELETE /channels/{target}/messages/{msg}", a.moderation(a.deleteMessage))
	mux.Handle("POST /channels/{target}/messages/{msg}/pin", a.moderation(a.pinMessage))
	mux.Handle("DELETE /channels/{target}/messages/{msg}/pin", a.moderation(a.unpinMessage))
	mux.Handle("PUT /channels/{target}/messages/{msg}/reactions/{emoji}", a.user(a.reactMessage))
	mux.Handle("DELETE /channels/{target}/messages/{msg}/reactions/{emoji}", a.user(a.unreactMessage))
	mux.Handle("DELETE /channels/{target}/messages/{msg}/reactions", a.user(a.clearReactions))
	mux.Handle("POST /channels/{target}/search", a.user(a.searchMessages))
	mux.Handle("POST /search", a.user(a.search))
	mux.Handle("PUT /channels/{target}/ack/{message}", a.user(a.ackChannel))
	mux.Handle("GET /sync/unreads", a.user(a.getUnreads))
	mux.Handle("POST /policy/acknowledge", a.user(a.acknowledgePolicyChanges))
}

// sendMessage handles POST /channels/{target}/messages.
func (a *API) sendMessage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.MessageSend](w, r, a.limit)
	if err != nil {
		return err
	}
	m, err := a.app.SendMessage(r.Context(), c, chat.ID(r.PathValue("target")), data, r.Header.Get("Idempotency-Key"))
	if err != nil {
		return err
	}
	return respond(w, m)
}

// queryMessages handles GET /channels/{target}/messages.
func (a *API) queryMessages(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	q, err := messageQuery(r.URL.Query())
	if err != nil {
		return err
	}
	res, err := a.app.QueryMessages(r.Context(), c, chat.ID(r.PathValue("target")), q)
	if err != nil {
		return err
	}
	return respondBulk(w, res)
}

// messageQuery reads the history query parameters. Empty values count as
// absent (clients build URLs with every parameter).
func messageQuery(v url.Values) (chat.MessageQuery, error) {
	var q chat.MessageQuery
	optID := func(name string) *chat.ID {
		if s := v.Get(name); s != "" {
			id := chat.ID(s)
			return &id
		}
		return nil
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return q, chat.ErrInvalidBody("limit: not an integer")
		}
		q.Limit = &n
	}
	q.Before, q.After, q.Nearby = optID("before"), optID("after"), optID("nearby")
	if s := v.Get("sort"); s != "" {
		q.Sort = &s
	}
	if s := v.Get("include_users"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return q, chat.ErrInvalidBody("include_users: not a boolean")
		}
		q.IncludeUsers = b
	}
	return q, q.Validate()
}

// respondBulk writes a page of messages as the bare array, or as the
// object with users and members when they were asked for.
func respondBulk(w http.ResponseWriter, res *chat.BulkMessages) error {
	if res.WithUsers {
		return respond(w, res)
	}
	return respond(w, res.Messages)
}

// fetchMessage handles GET /channels/{target}/messages/{msg}.
func (a *API) fetchMessage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	m, err := a.app.FetchMessage(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("msg")))
	if err != nil {
		return err
	}
	return respond(w, m)
}

// editMessage handles PATCH /channels/{target}/messages/{msg}.
func (a *API) editMessage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.MessageEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	m, err := a.app.EditMessage(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("msg")), data)
	if err != nil {
		return err
	}
	return respond(w, m)
}

// deleteMessage handles DELETE /channels/{target}/messages/{msg}.
func (a *API) deleteMessage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DeleteMessage(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("msg"))); err != nil {
		return err
	}
	return noContent(w)
}

// bulkDeleteMessages handles DELETE /channels/{target}/messages/bulk.
func (a *API) bulkDeleteMessages(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.BulkDelete](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.BulkDeleteMessages(r.Context(), c, chat.ID(r.PathValue("target")), data.IDs); err != nil {
		return err
	}
	return noContent(w)
}

// pinMessage handles POST /channels/{target}/messages/{msg}/pin.
func (a *API) pinMessage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.PinMessage(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("msg"))); err != nil {
		return err
	}
	return noContent(w)
}

// unpinMessage handles DELETE /channels/{target}/messages/{msg}/pin.
func (a *API) unpinMessage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.UnpinMessage(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("msg"))); err != nil {
		return err
	}
	return noContent(w)
}

// reactMessage handles PUT /channels/{target}/messages/{msg}/reactions/{emoji}.
func (a *API) reactMessage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	err := a.app.ReactMessage(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("msg")), r.PathValue("emoji"))
	if err != nil {
		return err
	}
	return noContent(w)
}

// unreactMessage handles DELETE /channels/{target}/messages/{msg}/reactions/{emoji}.
func (a *API) unreactMessage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	q := r.URL.Query()
	removeAll := false
	if s := q.Get("remove_all"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return chat.ErrInvalidBody("remove_all: not a boolean")
		}
		removeAll = b
	}
	err := a.app.UnreactMessage(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("msg")), r.PathValue("emoji"),
		chat.ID(q.Get("user_id")), removeAll)
	if err != nil {
		return err
	}
	return noContent(w)
}

// clearReactions handles DELETE /channels/{target}/messages/{msg}/reactions.
func (a *API) clearReactions(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.ClearReactions(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("msg"))); err != nil {
		return err
	}
	return noContent(w)
}

// searchMessages handles POST /channels/{target}/search.
func (a *API) searchMessages(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.MessageSearch](w, r, a.limit)
	if err != nil {
		return err
	}
	res, err := a.app.SearchMessages(r.Context(), c, chat.ID(r.PathValue("target")), data)
	if err != nil {
		return err
	}
	return respondBulk(w, res)
}

// search handles POST /search.
func (a *API) search(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.Search](w, r, a.limit)
	if err != nil {
		return err
	}
	res, err := a.app.Search(r.Context(), c, data)
	if err != nil {
		return err
	}
	return respondBulk(w, res)
}

// ackChannel handles PUT /channels/{target}/ack/{message}.
func (a *API) ackChannel(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AckChannel(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("message"))); err != nil {
		return err
	}
	return noContent(w)
}

// getUnreads handles GET /sync/unreads.
func (a *API) getUnreads(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	list, err := a.app.FetchUnreads(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, list)
}

// acknowledgePolicyChanges handles POST /policy/acknowledge; success is
// 200 with an empty body.
func (a *API) acknowledgePolicyChanges(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AcknowledgePolicyChanges(r.Context(), c); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
