// Package api serves Ermine's HTTP JSON API: the route table, one file per
// resource, the middleware every request passes (request ids, logging,
// metrics, panics, CORS, rate limits, authentication) and the mapping of
// errors to statuses. Handlers parse, make one app call and write the
// response; they never touch storage or decide permissions.
package api

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"ermine/internal/app"
	"ermine/internal/ratelimit"
)

// Options configure the API.
type Options struct {
	App     *app.App
	Limiter ratelimit.Limiter
	Log     *slog.Logger
	// Registry receives the API's metrics; nil registers nothing.
	Registry prometheus.Registerer
	// Root is what GET / tells clients about this instance.
	Root Root
	// APIURL is the public base of this API, which GET /.well-known/stoat
	// names.
	APIURL string
	// BodyLimit caps JSON request bodies in bytes.
	BodyLimit int64
}

// API is the HTTP JSON API.
type API struct {
	app     *app.App
	limiter ratelimit.Limiter
	log     *slog.Logger
	root    Root
	apiURL  string
	limit   int64
	metrics *metrics
	mux     *http.ServeMux
	handler http.Handler

	swaggerOnce sync.Once // the browsable page is rendered on first use
	swaggerPage []byte
	swaggerErr  error
}

// New returns the API with its routes.
func New(o Options) *API {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.BodyLimit <= 0 {
		o.BodyLimit = 1 << 20
	}
	a := &API{app: o.App, limiter: o.Limiter, log: o.Log, root: o.Root, apiURL: o.APIURL, limit: o.BodyLimit,
		metrics: newMetrics(o.Registry), mux: http.NewServeMux()}
	a.routes(a.mux)
	a.handler = a.middleware(http.HandlerFunc(a.dispatch))
	return a
}

// ServeHTTP serves the API at /, and the same API under the /api and /0.8
// prefixes of the old-client and staging addresses.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.handler.ServeHTTP(w, r)
}

// apiPrefixes are the alternative base paths of the API.
var apiPrefixes = []string{"/api", "/0.8"}

// stripPrefix removes an alternative base path.
func stripPrefix(path string) string {
	for _, p := range apiPrefixes {
		if path == p {
			return "/"
		}
		if rest, ok := strings.CutPrefix(path, p+"/"); ok {
			return "/" + rest
		}
	}
	return path
}

// dispatch finds the route. Unknown routes and wrong methods get the
// normal error body instead of the mux's plain text.
func (a *API) dispatch(w http.ResponseWriter, r *http.Request) {
	h, pattern := a.mux.Handler(r)
	if pattern == "" {
		h.ServeHTTP(&errorBody{ResponseWriter: w}, r)
		return
	}
	a.mux.ServeHTTP(w, r)
}

// errorBody replaces the body of the mux's own 404 and 405 answers.
type errorBody struct {
	http.ResponseWriter
	wrote bool
}

func (e *errorBody) WriteHeader(status int) {
	if e.wrote {
		return
	}
	e.wrote = true
	e.Header().Del("X-Content-Type-Options")
	body := `{"type":"NotFound","location":"router"}`
	if status == http.StatusMethodNotAllowed {
		body = `{"type":"MethodNotAllowed","location":"router"}`
	}
	e.Header().Set("Content-Type", "application/json")
	e.ResponseWriter.WriteHeader(status)
	_, _ = e.ResponseWriter.Write([]byte(body))
}

func (e *errorBody) Write(b []byte) (int, error) {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	return len(b), nil
}
