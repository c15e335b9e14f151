// Package webapp serves Ermine's own web client: the build of web/
// (TypeScript, Solid, Vite), committed under dist/ and embedded in the
// binary, so serving it needs no Node. The client lives under /app/;
// the wiring also hands it browser requests for / and /invite/{code}.
package webapp

import (
	"bytes"
	"embed"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// dist is web/'s build output (npm run build in web/ writes it here).
//
//go:embed all:dist
var dist embed.FS

// Prefix is the path the client is served under; its build uses it as
// its base.
const Prefix = "/app/"

// Options are the instance's public addresses, given to the client in
// its page and allowed by its content security policy.
type Options struct {
	APIURL    string
	EventsURL string
	FilesURL  string
	// ProxyURL is the instance's image proxy (features.january), through
	// which the client shows the images of link previews; "" when off.
	ProxyURL string
	// VoiceURLs are the LiveKit servers' public addresses (wss://...),
	// which the client's voice calls connect to.
	VoiceURLs []string
	// Captcha says registration asks for an hCaptcha answer: the page may
	// then load hCaptcha's widget, the one thing it takes from outside
	// the instance, and only because its operator turned it on.
	Captcha bool
}

// Handler serves the client.
type Handler struct {
	files fs.FS
	index []byte
	csp   string
}

// apiMeta is the tag in index.html whose content the handler fills in
// with the API's address.
const apiMeta = `<meta name="ermine-api" content="">`

// New prepares the client's files.
func New(o Options) (*Handler, error) {
	files, err := fs.Sub(dist, "dist")
	if err != nil {
		return nil, err
	}
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		return nil, err
	}
	index = bytes.Replace(index, []byte(apiMeta),
		[]byte(`<meta name="ermine-api" content="`+html.EscapeString(o.APIURL)+`">`), 1)
	return &Handler{files: files, index: index, csp: policy(o)}, nil
}

// policy is the page's content security policy: everything comes from
// the instance itself (its API, events and file addresses), nothing from
// elsewhere. Plugins are JavaScript source evaluated by the client,
// hence 'unsafe-eval' (the plugin page says plainly they are not
// sandboxed).
func policy(o Options) string {
	sources := func(urls ...string) string {
		list := []string{"'self'"}
		for _, u := range urls {
			if origin := originOf(u); origin != "" && !slices.Contains(list, origin) {
				list = append(list, origin)
			}
		}
		return strings.Join(list, " ")
	}
	files := sources(o.APIURL, o.FilesURL, o.ProxyURL)
	captcha, frames := "", "'self'"
	if o.Captcha {
		captcha = " " + hcaptcha
		frames += captcha
	}
	return "default-src 'self'; script-src 'self' 'unsafe-eval'" + captcha + "; style-src 'self' 'unsafe-inline'" + captcha + "; " +
		"img-src " + files + " data: blob:; media-src " + files + " blob:; " +
		"connect-src " + sources(append([]string{o.APIURL, o.FilesURL, o.EventsURL}, o.VoiceURLs...)...) + captcha + "; " +
		"frame-src " + frames + "; font-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'; form-action 'self'"
}

// hcaptcha is where hCaptcha's widget comes from (its documented CSP sources).
const hcaptcha = "https://hcaptcha.com https://*.hcaptcha.com"

// originOf returns scheme://host of an absolute URL, or "".
func originOf(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || scheme == "" {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	if host == "" {
		return ""
	}
	return scheme + "://" + host
}

// WantsPage reports whether a request for / comes from a browser
// navigating to the instance (it accepts text/html) rather than from a
// client library asking for the root object (application/json, or no
// preference at all).
func WantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		media, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(media), "text/html") {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "q") {
				if q, err := strconv.ParseFloat(v, 64); err == nil && q == 0 {
					return false
				}
			}
		}
		return true
	}
	return false
}

// Page serves the client's page (index.html), whatever the path: the
// client routes by its URL.
func (h *Handler) Page(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("Vary", "Accept")
	h.secure(hdr)
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(h.index))
}

func (h *Handler) secure(hdr http.Header) {
	hdr.Set("Content-Security-Policy", h.csp)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "same-origin")
}

// ServeHTTP serves /app/...: a built file when the path names one, the
// page otherwise (the client's own routes, e.g. /app/login/verify/{code}).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		if r.URL.Path == strings.TrimSuffix(Prefix, "/") {
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		}
		http.NotFound(w, r)
		return
	}
	name = path.Clean("/" + name)[1:]
	if name == "" || name == "index.html" {
		h.Page(w, r)
		return
	}
	data, err := fs.ReadFile(h.files, name)
	if err != nil {
		if strings.HasPrefix(name, "assets/") || path.Ext(name) != "" {
			http.NotFound(w, r)
			return
		}
		h.Page(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	if path.Ext(name) == ".webmanifest" {
		hdr.Set("Content-Type", "application/manifest+json")
	} else if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		hdr.Set("Content-Type", ct)
	}
	switch {
	case strings.HasPrefix(name, "assets/"):
		// Vite names these after their content.
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	case strings.HasPrefix(name, "emoji/"):
		// Named after the emoji they draw; they change only when the
		// set is upgraded, so a week of caching is safe.
		hdr.Set("Cache-Control", "public, max-age=604800")
	default:
		hdr.Set("Cache-Control", "no-cache")
	}
	h.secure(hdr)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}
