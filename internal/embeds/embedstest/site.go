// Package embedstest serves, on loopback, the pages, images, videos and
// oEmbed answers that link preview tests fetch.
package embedstest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Site is a loopback web server with the pages the preview tests need.
// Its pages name their own absolute URLs, so it is built in two steps.
type Site struct {
	*httptest.Server
	Mux *http.ServeMux
}

// NewSite serves the test pages on 127.0.0.1.
func NewSite(t testing.TB) *Site {
	t.Helper()
	s := &Site{Mux: http.NewServeMux()}
	s.Server = httptest.NewServer(s.Mux)
	t.Cleanup(s.Close)
	html := func(path, body string) {
		s.Mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, body, s.URL)
		})
	}
	html("/og", `<!doctype html><html><head>
<meta property="og:title" content="OpenGraph Title">
<meta property="og:description" content="An OpenGraph description.">
<meta property="og:image" content="/img/red.png">
<meta property="og:site_name" content="Test Site">
<meta property="og:url" content="%[1]s/og">
<meta name="theme-color" content="#123456">
<link rel="icon" href="/favicon.png">
<title>Ignored title</title></head><body>hello</body></html>`)
	html("/twitter", `<html><head>
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:title" content="Twitter Title">
<meta name="twitter:description" content="A Twitter description.">
<meta name="twitter:image" content="%[1]s/img/red.png">
</head><body></body></html>`)
	html("/plain", `<html><head><title>  Plain Title </title>
<meta name="description" content="Plain description."></head><body></body></html>`)
	html("/video-page", `<html><head><meta property="og:title" content="Has video">
<meta property="og:image" content="/img/red.png">
<meta property="og:video" content="/media/clip.mp4"></head></html>`)
	html("/empty", `<html><head></head><body>nothing</body></html>`)
	s.Mux.HandleFunc("GET /img/red.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(PNG(t, 40, 30, true))
	})
	big := sync.OnceValue(func() []byte { return PNG(t, 1600, 160, true) })
	s.Mux.HandleFunc("GET /img/big.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(big())
	})
	s.Mux.HandleFunc("GET /img/alpha.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(PNG(t, 20, 20, false))
	})
	s.Mux.HandleFunc("GET /img/anim.gif", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/gif")
		_, _ = w.Write(GIF(t))
	})
	s.Mux.HandleFunc("GET /img/fake.gif", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/gif")
		_, _ = w.Write([]byte("GIF89a not really"))
	})
	s.Mux.HandleFunc("GET /media/clip.mp4", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		_, _ = w.Write(MP4(640, 360))
	})
	s.Mux.HandleFunc("GET /file.zip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write([]byte("PK\x03\x04"))
	})
	s.Mux.HandleFunc("GET /missing", http.NotFound)
	s.Mux.HandleFunc("GET /oembed", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("format") != "json" || r.URL.Query().Get("url") == "" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"title": "Never Gonna Give You Up", "author_name": "Rick Astley",
			"author_url": "https://www.youtube.com/@RickAstleyYT", "provider_name": "YouTube",
			"thumbnail_url": "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg", "type": "video",
		})
	})
	return s
}

// PNG draws a w×h image, opaque or half transparent.
func PNG(t testing.TB, w, h int, opaque bool) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	a := uint8(255)
	if !opaque {
		a = 128
	}
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 200, uint8(i), uint8(i>>8), a
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// GIF is a two-frame animation.
func GIF(t testing.TB) []byte {
	pal := color.Palette{color.Black, color.White}
	var g gif.GIF
	for i := range 2 {
		f := image.NewPaletted(image.Rect(0, 0, 8, 8), pal)
		f.SetColorIndex(i, i, 1)
		g.Image = append(g.Image, f)
		g.Delay = append(g.Delay, 10)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// MP4 is the smallest MP4 header that says a video track is w×h:
// ftyp, then moov > trak > tkhd.
func MP4(w, h int) []byte {
	box := func(typ string, payload ...[]byte) []byte {
		body := bytes.Join(payload, nil)
		out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		return append(append(out, typ...), body...)
	}
	tkhd := make([]byte, 84)                 // version 0
	binary.BigEndian.PutUint32(tkhd[0:], 3)  // flags: enabled, in movie
	binary.BigEndian.PutUint32(tkhd[12:], 1) // track id
	// unity matrix
	binary.BigEndian.PutUint32(tkhd[40:], 0x00010000)
	binary.BigEndian.PutUint32(tkhd[56:], 0x00010000)
	binary.BigEndian.PutUint32(tkhd[72:], 0x40000000)
	binary.BigEndian.PutUint32(tkhd[76:], uint32(w)<<16)
	binary.BigEndian.PutUint32(tkhd[80:], uint32(h)<<16)
	ftyp := box("ftyp", []byte("isom"), []byte{0, 0, 2, 0}, []byte("isomiso2mp41"))
	return append(ftyp, box("moov", box("trak", box("tkhd", tkhd)))...)
}
