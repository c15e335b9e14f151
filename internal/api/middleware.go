package api

import (
	"context"
	"errors"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/ratelimit"
)

type ctxKey int

const (
	keyRequestID ctxKey = iota
	keyCaller
)

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(keyRequestID).(string)
	return id
}

// callerInfo is what the middleware learned about the request's token.
type callerInfo struct {
	caller *app.Caller
	err    error
}

// middleware wraps the routes: request id and logging outermost, then
// panics, CORS, authentication and rate limits.
func (a *API) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := string(chat.NewID())
		ctx := context.WithValue(r.Context(), keyRequestID, id)
		r = r.WithContext(ctx)
		r.Pattern = "" // set again by the route table; empty means unmatched
		r.URL.Path = stripPrefix(r.URL.Path)
		if r.URL.RawPath != "" {
			r.URL.RawPath = stripPrefix(r.URL.RawPath)
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		rec.Header().Set("X-Request-Id", id)
		a.metrics.inFlight.Inc()
		defer func() {
			a.metrics.inFlight.Dec()
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				a.log.ErrorContext(ctx, "panic", "request_id", id, "panic", p, "stack", string(debug.Stack()))
				if !rec.wroteHeader {
					writeJSON(rec, http.StatusInternalServerError, located(r, chat.ErrInternalError))
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			elapsed := time.Since(start)
			status := strconv.Itoa(rec.status)
			a.metrics.requests.WithLabelValues(route, r.Method, status).Inc()
			a.metrics.latency.WithLabelValues(route, r.Method).Observe(elapsed.Seconds())
			attrs := []any{"request_id", id, "method", r.Method, "route", route, "status", rec.status,
				"duration_ms", float64(elapsed.Microseconds()) / 1000}
			if info, ok := r.Context().Value(keyCaller).(*callerInfo); ok && info.caller != nil && info.caller.User != nil {
				attrs = append(attrs, "user", info.caller.User.ID)
			}
			a.log.InfoContext(ctx, "request", attrs...)
		}()
		if cors(rec, r) {
			return
		}
		info := a.identify(r)
		r = r.WithContext(context.WithValue(r.Context(), keyCaller, info))
		if !a.rateLimit(rec, r, info) {
			return
		}
		next.ServeHTTP(rec, r)
	})
}

// identify authenticates the request's token once, for the rate limiter
// and the handlers.
func (a *API) identify(r *http.Request) *callerInfo {
	user, bot := r.Header.Get("X-Session-Token"), r.Header.Get("X-Bot-Token")
	if user == "" && bot == "" {
		return &callerInfo{err: chat.ErrNotAuthenticated}
	}
	// A message send reads its channel with the session: one round trip
	// to the store instead of two on the busiest route.
	if rule := ratelimit.Resolve(r.Method, r.URL.Path); rule.Bucket == ratelimit.BucketMessaging && rule.Resource != "" {
		c, err := a.app.AuthenticateForChannel(r.Context(), user, bot, chat.ID(rule.Resource))
		return &callerInfo{caller: c, err: err}
	}
	c, err := a.app.Authenticate(r.Context(), user, bot)
	return &callerInfo{caller: c, err: err}
}

// rateLimit applies the seed's buckets and writes the headers; it reports
// false when the request was refused with 429.
func (a *API) rateLimit(w http.ResponseWriter, r *http.Request, info *callerInfo) bool {
	if a.limiter == nil {
		return true
	}
	identity := ratelimit.Host(r.RemoteAddr)
	if c := info.caller; c != nil {
		switch {
		case c.Bot != nil:
			identity = "bot:" + string(c.Bot.ID)
		case c.Session != nil:
			identity = "session:" + string(c.Session.ID)
		}
	}
	rule := ratelimit.Resolve(r.Method, r.URL.Path)
	key := ratelimit.Key(identity, rule.Bucket, rule.Resource)
	res, err := a.limiter.Take(r.Context(), key, rule.Limit, ratelimit.Window)
	if err != nil {
		// A limiter that cannot be reached must not take the API down.
		a.log.ErrorContext(r.Context(), "rate limiter", "err", err)
		return true
	}
	return ratelimit.Answer(w, key, res)
}

// corsHeaders are the request headers browsers may send.
const corsHeaders = "Content-Type, X-Session-Token, X-Bot-Token, X-MFA-Ticket, Idempotency-Key, X-Audit-Log-Reason"

// exposedHeaders are the response headers browsers may read.
const exposedHeaders = "X-RateLimit-Limit, X-RateLimit-Bucket, X-RateLimit-Remaining, X-RateLimit-Reset-After, X-Request-Id"

// cors sets the CORS headers; it answers a preflight itself and reports
// true when it did. Tokens travel in headers, never cookies, so any origin
// may call the API.
func cors(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", exposedHeaders)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", corsHeaders)
		h.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

// recorder remembers the status for logs and metrics.
type recorder struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (r *recorder) WriteHeader(status int) {
	if r.wroteHeader {
		return
	}
	r.status, r.wroteHeader = status, true
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wroteHeader {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// metrics are the API's Prometheus collectors.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ermine_http_requests_total", Help: "API requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ermine_http_request_duration_seconds", Help: "API request latency by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route", "method"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ermine_http_requests_in_flight", Help: "API requests being served.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.inFlight)
	}
	return m
}

// caller returns the authenticated caller of the request or the error to
// answer with.
func caller(r *http.Request) (*app.Caller, error) {
	info, ok := r.Context().Value(keyCaller).(*callerInfo)
	if !ok {
		return nil, chat.ErrNotAuthenticated
	}
	if info.err != nil {
		return info.caller, info.err
	}
	return info.caller, nil
}

// user wraps a handler that needs an onboarded user or bot.
func (a *API) user(h func(http.ResponseWriter, *http.Request, *app.Caller) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := caller(r)
		if err == nil {
			err = checkRequest(r)
		}
		if err == nil {
			err = h(w, r, c)
		}
		if err != nil {
			a.writeError(w, r, err)
		}
	})
}

// moderation wraps a handler of a route whose changes the server's audit
// log records: as user, plus the optional X-Audit-Log-Reason header
// (at most chat.MaxAuditReason bytes, else HeaderTooLarge) handed to the
// app with the caller.
func (a *API) moderation(h func(http.ResponseWriter, *http.Request, *app.Caller) error) http.Handler {
	return a.user(func(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
		values := r.Header.Values("X-Audit-Log-Reason")
		if len(values) == 0 {
			return h(w, r, c)
		}
		reason := strings.Join(values, ", ")
		if len(reason) > chat.MaxAuditReason {
			return chat.ErrHeaderTooLarge
		}
		withReason := *c
		withReason.AuditReason = &reason
		return h(w, r, &withReason)
	})
}

// session wraps a handler that needs a user session, onboarded or not
// (account and onboarding routes). Bots are refused.
func (a *API) session(h func(http.ResponseWriter, *http.Request, *app.Caller) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := caller(r)
		if errors.Is(err, app.ErrOnboardingNotFinished) {
			err = nil
		}
		if err == nil && c.Session == nil {
			err = chat.ErrInvalidSession
		}
		if err == nil {
			err = checkRequest(r)
		}
		if err == nil {
			err = h(w, r, c)
		}
		if err != nil {
			a.writeError(w, r, err)
		}
	})
}

// public wraps a handler that needs no authentication; the caller is
// passed when a valid token came with the request, else nil.
func (a *API) public(h func(http.ResponseWriter, *http.Request, *app.Caller) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkRequest(r); err != nil {
			a.writeError(w, r, err)
			return
		}
		c, err := caller(r)
		if err != nil {
			c = nil
		}
		if err := h(w, r, c); err != nil {
			a.writeError(w, r, err)
		}
	})
}
