package files_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ermine/internal/chat"
)

var (
	tokenID = regexp.MustCompile(`^[A-Za-z0-9_-]{42}$`)
	ulidID  = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)
)

func TestRoot(t *testing.T) {
	n := start(t, backends[0])
	for _, path := range []string{"/autumn", "/autumn/"} {
		t.Run(path, func(t *testing.T) {
			res := n.get(path)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			if got := string(res.body); !strings.Contains(got, `"autumn":"Hello, I am a file server!"`) || !strings.Contains(got, `"version":"`) {
				t.Fatalf("body %s", got)
			}
		})
	}
	// GET / of the API advertises the service.
	res := n.Get("/", "")
	if !strings.Contains(string(res.Body), n.URL+"/autumn") {
		t.Fatalf("GET / does not advertise the file service: %s", res.Body)
	}
}

// upload describes a file the tests upload and what must come of it.
type uploadCase struct {
	name     string
	tag      string
	filename string
	data     []byte
	ctype    string // stored content type
	meta     string // metadata type
	w, h     int    // Image or Video size
	// preview is the preview's size, or 0×0 when the preview route
	// redirects to the original.
	pw, ph int
	// corners of the original as displayed, for images.
	corners *[4]color.Color
}

func uploadCases(t testing.TB) []uploadCase {
	rgbw := [4]color.Color{red, green, blue, white}
	// Orientation 6: the camera was turned, so the stored pixels must be
	// turned 90° clockwise; the bottom-left quarter (blue) ends top left.
	rotated := [4]color.Color{blue, red, white, green}
	return []uploadCase{
		{name: "jpeg with exif rotation", tag: "attachments", filename: "photo.jpg", data: jpegWithExif(t, quadrants(1300, 500), 6),
			ctype: "image/jpeg", meta: "Image", w: 500, h: 1300, pw: 492, ph: 1280, corners: &rotated},
		{name: "png with text chunks", tag: "avatars", filename: "me.png", data: pngWithText(t, quadrants(300, 200), 0),
			ctype: "image/png", meta: "Image", w: 300, h: 200, pw: 128, ph: 85, corners: &rgbw},
		{name: "small png is not enlarged", tag: "icons", filename: "i.png", data: pngWithText(t, quadrants(40, 30), 0),
			ctype: "image/png", meta: "Image", w: 40, h: 30, pw: 40, ph: 30, corners: &rgbw},
		{name: "gif attachment keeps its animation", tag: "attachments", filename: "a.gif", data: gifOf(t, quadrants(64, 64)),
			ctype: "image/gif", meta: "Image", w: 64, h: 64},
		{name: "gif avatar is previewed", tag: "avatars", filename: "a.gif", data: gifOf(t, quadrants(300, 300)),
			ctype: "image/gif", meta: "Image", w: 300, h: 300, pw: 128, ph: 128},
		{name: "webp emoji", tag: "emojis", filename: "party.webp", data: webpWithExif(200, 100, color.NRGBA{10, 200, 30, 255}),
			ctype: "image/webp", meta: "Image", w: 200, h: 100, pw: 128, ph: 64},
		{name: "banner", tag: "banners", filename: "b.jpg", data: jpegWithExif(t, quadrants(1000, 500), 1),
			ctype: "image/jpeg", meta: "Image", w: 1000, h: 500, pw: 480, ph: 240, corners: &rgbw},
		{name: "background", tag: "backgrounds", filename: "bg.jpg", data: jpegWithExif(t, quadrants(1300, 740), 0),
			ctype: "image/jpeg", meta: "Image", w: 1300, h: 740, pw: 1265, ph: 720, corners: &rgbw},
		{name: "webp attachment", tag: "attachments", filename: "w.webp", data: webpSimple(300, 200, color.NRGBA{1, 2, 3, 255}),
			ctype: "image/webp", meta: "Image", w: 300, h: 200, pw: 300, ph: 200},
		{name: "text", tag: "attachments", filename: "notes.txt", data: []byte("Ermine notes: héllo\nline two\n"),
			ctype: "text/plain", meta: "Text"},
		{name: "binary", tag: "attachments", filename: "blob.bin", data: append([]byte{0, 1, 2, 0xff, 0xfe}, bytes.Repeat([]byte{7, 0}, 500)...),
			ctype: "application/octet-stream", meta: "File"},
		{name: "html", tag: "attachments", filename: "page.html", data: []byte("<!DOCTYPE html><html><script>alert(1)</script></html>"),
			ctype: "text/html", meta: "File"},
		{name: "svg is not an image", tag: "attachments", filename: "x.svg", data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
			ctype: "image/svg+xml", meta: "File"},
		{name: "huge dimensions are never decoded", tag: "attachments", filename: "bomb.png", data: pngBomb(100_000, 100_000),
			ctype: "image/png", meta: "File"},
		{name: "corrupt image", tag: "attachments", filename: "broken.png", data: pngCorrupt(50, 50),
			ctype: "image/png", meta: "File"},
	}
}

func TestUploadAndServe(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			n := start(t, backend)
			u := n.NewUser("alice")
			for _, tc := range uploadCases(t) {
				t.Run(tc.name, func(t *testing.T) { checkUpload(t, n, u.Token, tc) })
			}
			n.spoolEmpty()
		})
	}
}

func checkUpload(t *testing.T, n *node, token string, tc uploadCase) {
	id := n.uploadID(tc.tag, token, tc.filename, tc.data)
	if tc.tag == chat.TagEmojis {
		if !ulidID.MatchString(id) {
			t.Fatalf("emoji file id %q is not a ULID", id)
		}
	} else if !tokenID.MatchString(id) {
		t.Fatalf("file id %q is not 42 URL-safe characters", id)
	}
	f := n.record(id)
	if f.Tag != tc.tag || f.Filename != tc.filename || f.ContentType != tc.ctype || f.Metadata.Type != tc.meta {
		t.Fatalf("record %+v, want tag %s, name %s, type %s, metadata %s", f.File, tc.tag, tc.filename, tc.ctype, tc.meta)
	}
	if tc.w != 0 && (f.Metadata.Width == nil || *f.Metadata.Width != tc.w || *f.Metadata.Height != tc.h) {
		t.Fatalf("metadata %+v, want %dx%d", f.Metadata, tc.w, tc.h)
	}
	if tc.w == 0 && (f.Metadata.Width != nil || f.Metadata.Height != nil) {
		t.Fatalf("metadata %+v has a size", f.Metadata)
	}

	// Nothing is served before the file is used.
	base := "/autumn/" + tc.tag + "/" + id
	for _, p := range []string{base, base + "/" + tc.filename, base + "/original"} {
		if res := n.get(p); res.status != http.StatusNotFound || errType(t, res.body) != "NotFound" {
			t.Fatalf("GET %s of an unused file: %d %s", p, res.status, res.body)
		}
	}
	n.use(id)

	orig := n.get(base + "/" + tc.filename)
	if orig.status != http.StatusOK {
		t.Fatalf("original: %d %s", orig.status, orig.body)
	}
	if int64(len(orig.body)) != f.Size {
		t.Fatalf("size %d, served %d bytes", f.Size, len(orig.body))
	}
	checkFileHeaders(t, orig)
	wantCT := tc.ctype
	if tc.meta == "Text" {
		wantCT = "text/plain; charset=utf-8"
	}
	if got := orig.header.Get("Content-Type"); got != wantCT {
		t.Fatalf("Content-Type %q, want %q", got, wantCT)
	}
	if got := orig.header.Get("Content-Disposition"); got != `attachment; filename=`+quoteIfNeeded(tc.filename) {
		t.Fatalf("Content-Disposition %q", got)
	}
	if tc.meta == "Image" {
		for _, bad := range []string{secret, "Exif", "tEXt", "EXIF", "XMP "} {
			if bytes.Contains(orig.body, []byte(bad)) {
				t.Fatalf("stored image still holds %q", bad)
			}
		}
	} else if !bytes.Equal(orig.body, tc.data) {
		t.Fatal("a file that is not an image was changed")
	}
	if tc.corners != nil {
		img, _, err := image.Decode(bytes.NewReader(orig.body))
		must(t, err)
		checkCorners(t, img, *tc.corners, 40)
	}

	// The legacy download URL serves the same bytes; "original" redirects.
	if res := n.get("/autumn/" + tc.tag + "/download/" + id + "/" + tc.filename); res.status != http.StatusOK || !bytes.Equal(res.body, orig.body) {
		t.Fatalf("legacy download: %d", res.status)
	}
	res := n.get(base + "/original")
	if res.status != http.StatusPermanentRedirect || res.location(t) != base+"/"+tc.filename {
		t.Fatalf("original: %d to %q", res.status, res.header.Get("Location"))
	}
	if res := n.get(base + "/other-name.txt"); res.status != http.StatusNotFound {
		t.Fatalf("wrong file name: %d", res.status)
	}

	prev := n.get(base)
	if tc.pw == 0 {
		if prev.status != http.StatusPermanentRedirect || prev.location(t) != base+"/"+tc.filename {
			t.Fatalf("preview of a file that is not previewed: %d to %q", prev.status, prev.header.Get("Location"))
		}
		return
	}
	checkPreview(t, prev, tc.pw, tc.ph)
	if tc.corners != nil {
		img, _, err := image.Decode(bytes.NewReader(prev.body))
		must(t, err)
		checkCorners(t, img, *tc.corners, 40)
	}
	// A second request is served from the cache, the same bytes.
	again := n.get(base)
	if again.status != http.StatusOK || !bytes.Equal(again.body, prev.body) || again.header.Get("ETag") != prev.header.Get("ETag") {
		t.Fatalf("second preview differs: %d", again.status)
	}
	if res := n.get(base, "If-None-Match", prev.header.Get("ETag")); res.status != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", res.status)
	}
}

// quoteIfNeeded quotes a file name as mime.FormatMediaType does.
func quoteIfNeeded(name string) string {
	if strings.ContainsAny(name, "()<>@,;:\\\"/[]?= ") {
		return strconv.Quote(name)
	}
	return name
}

// checkFileHeaders checks what every file response carries.
func checkFileHeaders(t *testing.T, res *response) {
	t.Helper()
	want := map[string]string{
		"X-Content-Type-Options":      "nosniff",
		"Content-Security-Policy":     "sandbox; default-src 'none'",
		"Cache-Control":               "public, max-age=604800, must-revalidate",
		"Access-Control-Allow-Origin": "*",
	}
	for k, v := range want {
		if got := res.header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if res.header.Get("ETag") == "" {
		t.Error("no ETag")
	}
}

// checkPreview checks a preview answer is an image of w×h.
func checkPreview(t *testing.T, res *response, w, h int) {
	t.Helper()
	if res.status != http.StatusOK {
		t.Fatalf("preview: %d %s", res.status, res.body)
	}
	checkFileHeaders(t, res)
	if got := res.header.Get("Content-Disposition"); got != "inline" {
		t.Fatalf("preview Content-Disposition %q", got)
	}
	ct := res.header.Get("Content-Type")
	var cfg image.Config
	var err error
	switch ct {
	case "image/png":
		cfg, err = png.DecodeConfig(bytes.NewReader(res.body))
	case "image/jpeg":
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(res.body))
	default:
		t.Fatalf("preview Content-Type %q", ct)
	}
	must(t, err)
	if cfg.Width != w || cfg.Height != h {
		t.Fatalf("preview is %dx%d, want %dx%d", cfg.Width, cfg.Height, w, h)
	}
}
