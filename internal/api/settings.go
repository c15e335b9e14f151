package api

import (
	"net/http"
	"strconv"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// getSettings handles POST /sync/settings/fetch.
func (a *API) getSettings(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	d, err := decode[chat.SettingsFetch](w, r, a.limit)
	if err != nil {
		return err
	}
	s, err := a.app.FetchSettings(r.Context(), c, d.Keys)
	if err != nil {
		return err
	}
	return respond(w, s)
}

// setSettings handles POST /sync/settings/set.
func (a *API) setSettings(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	var ts *int64
	if s := r.URL.Query().Get("timestamp"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return chat.ErrInvalidBody("timestamp: must be an integer (milliseconds)")
		}
		ts = &n
	}
	d, err := decode[chat.SettingsSet](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.SetSettings(r.Context(), c, ts, d); err != nil {
		return err
	}
	return noContent(w)
}
