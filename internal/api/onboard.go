package api

import (
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// hello handles GET /onboard/hello.
func (a *API) hello(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	return respond(w, a.app.OnboardingHello(r.Context(), c))
}

// completeOnboarding handles POST /onboard/complete.
func (a *API) completeOnboarding(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	d, err := decode[chat.Onboard](w, r, a.limit)
	if err != nil {
		return err
	}
	u, err := a.app.CompleteOnboarding(r.Context(), c, d)
	if err != nil {
		return err
	}
	return respond(w, u)
}
