package api

import "net/http"

// router is where the route table is registered: the API's ServeMux,
// or a test listing the patterns.
type router interface {
	Handle(pattern string, handler http.Handler)
}

// routes is the route table, grouped like the contract's tags.
func (a *API) routes(mux router) {
	// Core
	mux.Handle("GET /{$}", a.public(a.rootRoot))
	mux.Handle("GET /.well-known/stoat", a.public(a.wellKnown))
	mux.Handle("GET /healthz", a.public(a.healthz))
	mux.Handle("GET /openapi.json", a.public(a.openAPI))
	mux.Handle("GET /swagger", a.public(a.swagger))
	mux.Handle("GET /swagger/{$}", a.public(a.swagger))

	a.routesServers(mux)
	a.routesUsers(mux)
	a.routesGroups(mux)
	a.routesBots(mux)
	a.routesAccounts(mux)
	a.routesMessages(mux)
	a.routesSafety(mux)
	a.routesAdmin(mux)
	a.routesVoice(mux)
	a.routesWebhooks(mux)
}
