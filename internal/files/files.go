// Package files is Ermine's file service ("autumn"), mounted under
// /autumn: uploads per tag, image previews and original downloads.
//
// The service owns what is about bytes: reading multipart bodies into
// temporary files without holding them in memory, sniffing what a file is
// from its content, reading image and video dimensions, stripping EXIF,
// GPS and other metadata, and rendering previews. What a file may be used
// for, size limits, deduplication and the life cycle of records are rules
// of the app (app/files.go).
//
// Routes, relative to /autumn:
//
//	GET  /                                   {"autumn":"Hello, I am a file server!","version":...}
//	POST /{tag}                              multipart field "file" → {"id":...}
//	GET  /{tag}/{id}                         preview of an image, else 308 to the original
//	GET  /{tag}/{id}/{filename}              the original ("original" → 308 to the real name)
//	GET  /{tag}/download/{id}/{filename}     the original, as revolt.js's downloadURL asks
//
// Files can be downloaded only once they are used (attached to a message,
// set as an avatar...): until then, and after they are released, every
// GET is 404, as in the original service.
//
// Errors, as {"type": ...} bodies:
//
//	POST  401 NotAuthenticated (no token, or a session not onboarded), InvalidSession
//	      404 NotFound: a tag other than attachments, avatars, backgrounds, icons, banners, emojis
//	      400 FailedValidation: not multipart/form-data, truncated, no field "file" or two of them
//	      422 FileTooSmall (no bytes), FileTooLarge {max} (over the tag's limit, in bytes)
//	      400 FileTypeNotAllowed: not an image Ermine can read, under a tag other than attachments
//	      429 {"retry_after": ms} after 10 uploads to one tag in 10 s
//	GET   404 NotFound: unknown tag or id, another tag's file, a file not used yet or
//	      released, a file name that is not the file's own
//
// A refused upload leaves nothing behind: temporary files are removed
// when the request ends, and bytes are stored only once they passed
// every check.
package files

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/ratelimit"
)

// Options configure the file service.
type Options struct {
	App *app.App
	// Limiter counts uploads per user and tag; nil disables the limit.
	Limiter ratelimit.Limiter
	Log     *slog.Logger
	// Version is reported by GET /.
	Version string
	// TempDir receives upload bodies while they are inspected; the
	// system's temporary directory when empty.
	TempDir string
	// FFprobe is the path of the ffprobe program used to read video
	// dimensions; when empty, videos are described as plain files.
	FFprobe string
	// MaxPixels caps the width × height of images Ermine decodes; larger
	// ones are kept as plain files and never decoded. 50 megapixels when 0.
	MaxPixels int
}

// defaultMaxPixels is the decoding cap: 50 MP covers every camera photo,
// and decoding it takes at most 200 MB as RGBA.
const defaultMaxPixels = 50_000_000

// Service is the file service as an http.Handler.
type Service struct {
	app       *app.App
	limiter   ratelimit.Limiter
	log       *slog.Logger
	version   string
	tempDir   string
	ffprobe   string
	maxPixels int
	mux       *http.ServeMux
}

// New returns the file service.
func New(o Options) *Service {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	if o.MaxPixels <= 0 {
		o.MaxPixels = defaultMaxPixels
	}
	s := &Service{app: o.App, limiter: o.Limiter, log: o.Log, version: o.Version, tempDir: o.TempDir,
		ffprobe: o.FFprobe, maxPixels: o.MaxPixels, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /{$}", s.root)
	s.mux.Handle("POST /{tag}", s.handle(s.upload))
	s.mux.Handle("GET /{tag}/{id}", s.handle(s.preview))
	s.mux.Handle("GET /{tag}/{id}/{filename}", s.handle(s.original))
	s.mux.Handle("GET /{tag}/download/{id}/{filename}", s.handle(s.original))
	return s
}

// ServeHTTP serves the file service with its path prefix already
// stripped; an empty path (the prefix alone) is the root.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "" {
		r.URL.Path = "/"
	}
	if cors(w, r) {
		return
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		s.writeError(w, r, chat.ErrNotFound)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// corsHeaders are the request headers browsers may send.
const corsHeaders = "Content-Type, X-Session-Token, X-Bot-Token"

// exposedHeaders are the response headers browsers may read.
const exposedHeaders = "X-RateLimit-Limit, X-RateLimit-Bucket, X-RateLimit-Remaining, X-RateLimit-Reset-After, Content-Disposition, ETag"

// cors sets the CORS headers and answers preflights, reporting true when
// it did. Tokens travel in headers, never cookies, so any origin may call.
func cors(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", exposedHeaders)
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", corsHeaders)
		h.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

// root handles GET /.
func (s *Service) root(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"autumn": "Hello, I am a file server!", "version": s.version})
}

// handle adapts a handler that returns an error.
func (s *Service) handle(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// statuses maps the error types this service answers with to HTTP
// statuses (behaviour.md §5).
var statuses = map[string]int{
	"FailedValidation": 400, "FileTypeNotAllowed": 400,
	"NotAuthenticated": 401, "InvalidSession": 401,
	"NotFound":     404,
	"FileTooSmall": 422, "FileTooLarge": 422,
	"StorageUnavailable": 503,
}

// writeError writes err as the client's error body and logs failures the
// client did not cause.
func (s *Service) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ce *chat.Error
	if errors.Is(err, app.ErrOnboardingNotFinished) {
		// A session without a user cannot upload.
		err = chat.ErrNotAuthenticated
	}
	if !errors.As(err, &ce) {
		ce = chat.ErrInternalError
	}
	status := ce.Status
	if status == 0 {
		status = statuses[ce.Type]
	}
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "file request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	h := w.Header()
	h.Del("Content-Disposition")
	h.Del("Cache-Control")
	h.Del("ETag")
	writeJSON(w, status, ce)
}

// writeJSON writes v as a JSON body with a status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"type":"InternalError"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
