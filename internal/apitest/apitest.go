// Package apitest runs a whole Ermine node in-process for tests: a fresh
// SQLite database in a temporary directory, the in-process bus, listening
// on 127.0.0.1:0, talked to over real HTTP like a client would.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"ermine/internal/config"
	"ermine/internal/server"
)

// Harness is a running node and a client for it.
type Harness struct {
	t      testing.TB
	Server *server.Server
	// URL is the API base, e.g. http://127.0.0.1:40123.
	URL    string
	Client *http.Client
}

// Option changes the configuration before the node starts.
type Option func(*config.Config)

// NoRateLimits turns the request rate limits off, for tests that call
// routes of one bucket more often than a client may.
func NoRateLimits(c *config.Config) { c.Limits.RateLimits = false }

// Start runs a node for the test and stops it when the test ends.
func Start(t testing.TB, opts ...Option) *Harness {
	t.Helper()
	h, err := TryStart(t, opts...)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	return h
}

// TryStart is Start for a node that may refuse to start: it returns the
// configuration's or the server's error instead of failing the test.
func TryStart(t testing.TB, opts ...Option) (*Harness, error) {
	t.Helper()
	return tryStart(t, nil, opts...)
}

// StartWithLog is Start with the node's log written to log.
func StartWithLog(t testing.TB, log *slog.Logger, opts ...Option) *Harness {
	t.Helper()
	h, err := tryStart(t, log, opts...)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	return h
}

func tryStart(t testing.TB, log *slog.Logger, opts ...Option) (*Harness, error) {
	t.Helper()
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	cfg.Data = t.TempDir()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
		if testing.Verbose() {
			log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
		}
	}
	srv, err := server.Start(context.Background(), cfg, log)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("apitest: shutdown: %v", err)
		}
	})
	return &Harness{t: t, Server: srv, URL: "http://" + srv.Addr(), Client: &http.Client{Timeout: 30 * time.Second}}, nil
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// Response is a finished request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it is not JSON.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("response %d is not JSON (%v): %s", r.Status, err, r.Body)
	}
}

// Map decodes the body as a JSON object.
func (r *Response) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Request describes a request; Body is sent as JSON unless it is a
// string or []byte, which are sent as they are.
type Request struct {
	Method  string
	Path    string
	Body    any
	Header  map[string]string
	Session string // X-Session-Token
	Bot     string // X-Bot-Token
}

// Do sends a request and reads the whole response. The response is
// checked against the contract (see CheckResponse): a mismatch fails the
// test.
func (h *Harness) Do(req Request) *Response {
	h.t.Helper()
	var body io.Reader
	switch b := req.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			h.t.Fatalf("apitest: encode body: %v", err)
		}
		body = bytes.NewReader(j)
	}
	r, err := http.NewRequest(req.Method, h.URL+req.Path, body)
	if err != nil {
		h.t.Fatalf("apitest: %v", err)
	}
	for k, v := range req.Header {
		r.Header.Set(k, v)
	}
	if req.Session != "" {
		r.Header.Set("X-Session-Token", req.Session)
	}
	if req.Bot != "" {
		r.Header.Set("X-Bot-Token", req.Bot)
	}
	res, err := h.Client.Do(r)
	if err != nil {
		h.t.Fatalf("apitest: %s %s: %v", req.Method, req.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatalf("apitest: read body: %v", err)
	}
	CheckResponse(h.t, r, res.StatusCode, res.Header, b)
	return &Response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// Get is Do for a GET without a body.
func (h *Harness) Get(path, session string) *Response {
	h.t.Helper()
	return h.Do(Request{Method: http.MethodGet, Path: path, Session: session})
}
