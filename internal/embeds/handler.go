package embeds

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"ermine/internal/chat"
)

// Handler serves the january routes the web client uses, relative to
// where it is mounted (the root object advertises that address):
//
//	GET /            {"january": version}
//	GET /embed?url=  the preview of a link, as an Embed
//	GET /proxy?url=  a remote image, re-encoded
//
// Like the reference it needs no session. Requests wait for one of a
// bounded number of fetch slots, so a flood of them cannot open unbounded
// outbound connections.
func (s *Service) Handler(version string, slots int) http.Handler {
	if slots <= 0 {
		slots = 16
	}
	sem := make(chan struct{}, slots)
	// fetching answers a request for ?url= with serve, which runs while
	// the request holds a slot; serve's error becomes the error body. A
	// request without a url is refused; one whose client leaves while it
	// waits gets nothing.
	fetching := func(serve func(ctx context.Context, w http.ResponseWriter, raw string) error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			raw := r.URL.Query().Get("url")
			if raw == "" {
				s.writeError(w, r, chat.ErrProxyError)
				return
			}
			select {
			case sem <- struct{}{}:
			case <-r.Context().Done():
				return
			}
			defer func() { <-sem }()
			if err := serve(r.Context(), w, raw); err != nil {
				s.writeError(w, r, err)
			}
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"january": version})
	})
	mux.HandleFunc("GET /embed", fetching(func(ctx context.Context, w http.ResponseWriter, raw string) error {
		e, err := s.Embed(ctx, raw)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, e)
		return nil
	}))
	mux.HandleFunc("GET /proxy", fetching(func(ctx context.Context, w http.ResponseWriter, raw string) error {
		m, err := s.Proxy(ctx, raw)
		if err != nil {
			return err
		}
		h := w.Header()
		h.Set("Content-Type", m.ContentType)
		h.Set("Content-Length", strconv.Itoa(len(m.Body)))
		h.Set("Content-Disposition", "inline")
		h.Set("Cache-Control", "public, max-age=600, immutable")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(m.Body)
		return nil
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Nothing here depends on who asks, so any origin may read it.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
			w.Header().Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// writeError answers with the error body clients know; every january
// error is a 400, as in the reference.
func (s *Service) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ce *chat.Error
	if !errors.As(err, &ce) {
		ce = chat.ErrProxyError
	}
	s.o.Log.DebugContext(r.Context(), "january", "url", r.URL.Query().Get("url"), "type", ce.Type, "err", err)
	writeJSON(w, http.StatusBadRequest, ce)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
