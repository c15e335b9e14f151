package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// routesSafety registers Web Push subscriptions and safety reports.
func (a *API) routesSafety(mux router) {
	mux.Handle("POST /push/subscribe", a.user(a.pushSubscribe))
	mux.Handle("POST /push/unsubscribe", a.user(a.pushUnsubscribe))
	mux.Handle("POST /safety/report", a.user(a.reportContent))
}

// pushSubscribe handles POST /push/subscribe.
func (a *API) pushSubscribe(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.WebPushSubscription](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.SubscribePush(r.Context(), c, data); err != nil {
		return err
	}
	return noContent(w)
}

// pushUnsubscribe handles POST /push/unsubscribe.
func (a *API) pushUnsubscribe(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.UnsubscribePush(r.Context(), c); err != nil {
		return err
	}
	return noContent(w)
}

// reportContent handles POST /safety/report.
func (a *API) reportContent(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.ReportContent](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.ReportContent(r.Context(), c, data); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
