package files

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"ermine/internal/chat"
)

// cacheControl is sent with every file and preview, as the original does:
// a file's bytes never change, but it can be deleted, so caches check
// back after a week.
const cacheControl = "public, max-age=604800, must-revalidate"

// box is a preview's bounding box.
type box struct{ w, h int }

// previewBoxes are the boxes previews fit in, per tag (behaviour.md §4.2).
var previewBoxes = map[string]box{
	chat.TagAttachments: {1280, 1280},
	chat.TagAvatars:     {128, 128},
	chat.TagBackgrounds: {1280, 720},
	chat.TagIcons:       {128, 128},
	chat.TagBanners:     {480, 480},
	chat.TagEmojis:      {128, 128},
}

// maxSideCap is the largest ?max_side= honoured, for icons and avatars
// only (the seed: "max_side is 256 for icons and avatars").
const maxSideCap = 256

// previewBox returns the box for a tag and the request's max_side, which
// icons and avatars honour up to maxSideCap and other tags ignore.
func previewBox(tag, maxSide string) box {
	b := previewBoxes[tag]
	if tag != chat.TagIcons && tag != chat.TagAvatars || maxSide == "" {
		return b
	}
	n, err := strconv.Atoi(maxSide)
	if err != nil || n < 1 {
		return b
	}
	n = min(n, maxSideCap)
	return box{n, n}
}

// lossless reports whether the previews of f are PNG whatever its
// pixels: small images looked at closely (icons, avatars, emoji) and
// sources that are lossless themselves (screenshots and drawings come as
// PNG, GIF or BMP). Other previews are PNG only when they have
// transparency, and JPEG otherwise (photos).
func lossless(f *chat.FileRecord) bool {
	switch {
	case f.Tag == chat.TagAvatars || f.Tag == chat.TagIcons || f.Tag == chat.TagEmojis:
		return true
	case f.ContentType == "image/png" || f.ContentType == "image/gif" || f.ContentType == "image/bmp":
		return true
	}
	return false
}

// previewable reports whether GET /{tag}/{id} renders a preview of f
// rather than redirecting to it: decodable images, except GIFs outside
// avatars and icons, which keep their animation by being served whole.
func previewable(f *chat.FileRecord) bool {
	if f.Metadata.Type != chat.MetadataImage || f.Metadata.Width == nil || f.Metadata.Height == nil || codecs[f.ContentType].decode == nil {
		return false
	}
	return f.ContentType != "image/gif" || f.Tag == chat.TagAvatars || f.Tag == chat.TagIcons
}

// setFileHeaders sets what every file response carries. The sandboxing
// Content-Security-Policy makes a browser that opens an uploaded HTML or
// SVG file treat it as a document of a unique origin with scripts, forms
// and plugins disabled, and nosniff stops it from guessing a more
// dangerous type than the one sent.
func setFileHeaders(h http.Header, etag string) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", etag)
}

// redirect answers 308 with a Location relative to the request, so it is
// right wherever the service is mounted (under /autumn on the API's host,
// or at the root of a host of its own behind a proxy).
func redirect(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.Header().Set("Cache-Control", cacheControl)
	w.WriteHeader(http.StatusPermanentRedirect)
}

// preview handles GET /{tag}/{id}: a preview of an image fitted to the
// tag's box, never enlarged; any other file is a 308 redirect to its
// original, {id}/{filename} relative to this URL.
func (s *Service) preview(w http.ResponseWriter, r *http.Request) error {
	tag := r.PathValue("tag")
	if _, err := s.app.FileLimit(tag); err != nil {
		return err
	}
	f, err := s.app.ServedFile(r.Context(), tag, r.PathValue("id"))
	if err != nil {
		return err
	}
	toOriginal := url.PathEscape(f.ID) + "/" + url.PathEscape(f.Filename)
	if !previewable(f) {
		redirect(w, toOriginal)
		return nil
	}
	b := previewBox(tag, r.URL.Query().Get("max_side"))
	tw, th := fit(*f.Metadata.Width, *f.Metadata.Height, b.w, b.h)
	mode := "auto"
	if lossless(f) {
		mode = "png"
	}
	variant := fmt.Sprintf("%dx%d-%s", tw, th, mode)
	o, err := s.app.FilePreview(r.Context(), f, variant, func(src io.ReadSeeker) ([]byte, error) {
		return s.render(src, f.ContentType, tw, th, lossless(f))
	})
	if err != nil {
		// The upload was decoded once already; if it cannot be now, the
		// original is still worth sending.
		s.log.WarnContext(r.Context(), "preview failed, redirecting to the original", "file", f.ID, "err", err)
		redirect(w, toOriginal)
		return nil
	}
	defer o.Close()
	var head [8]byte
	n, _ := io.ReadFull(o, head[:])
	if _, err := o.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewind preview: %w", err)
	}
	ctype := "image/jpeg"
	if bytes.HasPrefix(head[:n], pngSignature) {
		ctype = "image/png"
	}
	h := w.Header()
	setFileHeaders(h, `"`+f.Hash[:32]+"-"+variant+`"`)
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", "inline")
	http.ServeContent(w, r, "", time.Time{}, o)
	return nil
}

// render makes the preview of an original: decoded (after checking its
// declared size), scaled down to tw×th and encoded.
func (s *Service) render(src io.ReadSeeker, ctype string, tw, th int, lossless bool) ([]byte, error) {
	img, err := decodeChecked(codecs[ctype], src, s.maxPixels)
	if err != nil {
		return nil, err
	}
	b, _, err := encodePreview(resize(img, tw, th), lossless)
	return b, err
}

// original handles GET /{tag}/{id}/{filename} and the legacy
// GET /{tag}/download/{id}/{filename}: the stored bytes with their
// content type, as an attachment. The name must be the file's own;
// "original" redirects to it.
func (s *Service) original(w http.ResponseWriter, r *http.Request) error {
	tag := r.PathValue("tag")
	if _, err := s.app.FileLimit(tag); err != nil {
		return err
	}
	f, err := s.app.ServedFile(r.Context(), tag, r.PathValue("id"))
	if err != nil {
		return err
	}
	name := r.PathValue("filename")
	if name == "original" && f.Filename != "original" {
		// "./" keeps a name like "a:b" from reading as a URL scheme.
		redirect(w, "./"+url.PathEscape(f.Filename))
		return nil
	}
	if name != f.Filename {
		return chat.ErrNotFound
	}
	o, err := s.app.OpenFile(r.Context(), f)
	if err != nil {
		return err
	}
	defer o.Close()
	h := w.Header()
	setFileHeaders(h, `"`+f.Hash[:32]+`"`)
	ctype := f.ContentType
	if f.Metadata.Type == chat.MetadataText {
		ctype = "text/plain; charset=utf-8"
	}
	h.Set("Content-Type", ctype)
	cd := mime.FormatMediaType("attachment", map[string]string{"filename": f.Filename})
	if cd == "" {
		cd = "attachment"
	}
	h.Set("Content-Disposition", cd)
	http.ServeContent(w, r, "", time.Time{}, o)
	return nil
}
