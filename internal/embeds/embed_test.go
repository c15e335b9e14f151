package embeds

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ermine/internal/chat"
	"ermine/internal/embeds/embedstest"
)

func newService(t *testing.T, site *embedstest.Site) *Service {
	t.Helper()
	return New(Options{
		Client:        NewClient(ClientOptions{UserAgent: "test", AllowedPrivateHosts: []string{"127.0.0.1"}}),
		YouTubeOEmbed: site.URL + "/oembed",
	})
}

func TestEmbedKinds(t *testing.T) {
	site := embedstest.NewSite(t)
	s := newService(t, site)
	u := site.URL
	img := func(size string, w, h int) *chat.EmbedImage {
		return &chat.EmbedImage{URL: u + "/img/red.png", Width: w, Height: h, Size: size}
	}
	tests := []struct {
		name, url string
		want      chat.Embed
	}{
		{"opengraph", u + "/og", chat.Embed{Type: "Website", URL: ptr(u + "/og"), OriginalURL: ptr(u + "/og"),
			Title: ptr("OpenGraph Title"), Description: ptr("An OpenGraph description."), SiteName: ptr("Test Site"),
			Colour: ptr("#123456"), IconURL: ptr(u + "/favicon.png"), Image: img("Preview", 40, 30)}},
		{"twitter card", u + "/twitter", chat.Embed{Type: "Website", URL: ptr(u + "/twitter"), OriginalURL: ptr(u + "/twitter"),
			Title: ptr("Twitter Title"), Description: ptr("A Twitter description."), Image: img("Large", 40, 30)}},
		{"plain title", u + "/plain", chat.Embed{Type: "Website", URL: ptr(u + "/plain"), OriginalURL: ptr(u + "/plain"),
			Title: ptr("Plain Title"), Description: ptr("Plain description.")}},
		{"video replaces image", u + "/video-page", chat.Embed{Type: "Website", URL: ptr(u + "/video-page"),
			OriginalURL: ptr(u + "/video-page"), Title: ptr("Has video"),
			Video: &chat.EmbedVideo{URL: u + "/media/clip.mp4", Width: 640, Height: 360}}},
		{"image", u + "/img/red.png", chat.Embed{Type: "Image", URL: ptr(u + "/img/red.png"), Width: ptr(40), Height: ptr(30), Size: "Large"}},
		{"video", u + "/media/clip.mp4", chat.Embed{Type: "Video", URL: ptr(u + "/media/clip.mp4"), Width: ptr(640), Height: ptr(360)}},
		{"youtube oembed", "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42", chat.Embed{Type: "Website",
			URL: ptr("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42"), Title: ptr("Never Gonna Give You Up"),
			SiteName: ptr("YouTube"), IconURL: ptr("https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg"), Colour: ptr("#FF424F"),
			Special: &chat.Special{Type: "YouTube", ID: "dQw4w9WgXcQ", Timestamp: ptr("42"),
				CreatorName: ptr("Rick Astley"), CreatorURL: ptr("https://www.youtube.com/@RickAstleyYT")}}},
	}
	shorts := tests[len(tests)-1]
	shorts.name, shorts.url = "youtube shorts", "https://www.youtube.com/shorts/dQw4w9WgXcQ"
	shorts.want.URL, shorts.want.Special = ptr("https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
		&chat.Special{Type: "YouTube", ID: "dQw4w9WgXcQ", CreatorName: ptr("Rick Astley"), CreatorURL: ptr("https://www.youtube.com/@RickAstleyYT")}
	tests = append(tests, shorts)
	shared := shorts
	shared.name, shared.url = "youtube shorts shared", "https://www.youtube.com/shorts/dQw4w9WgXcQ?feature=share"
	shared.want.URL = ptr("https://www.youtube.com/watch?v=dQw4w9WgXcQ&feature=share")
	tests = append(tests, shared)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Embed(context.Background(), tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("embed (-want +got):\n%s", d)
			}
		})
	}
}

func TestEmbedErrors(t *testing.T) {
	site := embedstest.NewSite(t)
	s := newService(t, site)
	for _, tt := range []struct {
		name, url string
		want      *chat.Error
	}{
		{"no metadata", site.URL + "/empty", chat.ErrNoEmbedData},
		{"not media", site.URL + "/file.zip", chat.ErrNoEmbedData},
		{"not found", site.URL + "/missing", chat.ErrProxyError},
		{"loopback", "http://127.0.0.2/", chat.ErrInvalidOperation},
		{"metadata service", "http://169.254.169.254/latest", chat.ErrInvalidOperation},
		{"dotless", "http://intranet/", chat.ErrInvalidOperation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Embed(context.Background(), tt.url)
			if !errors.Is(err, tt.want) {
				t.Errorf("Embed(%s) = %v, want %s", tt.url, err, tt.want.Type)
			}
		})
	}
}

// TestEmbedCache: a result is served from the cache for a minute, so a
// page that changed is not fetched again.
func TestEmbedCache(t *testing.T) {
	site := embedstest.NewSite(t)
	s := newService(t, site)
	hits := 0
	site.Mux.HandleFunc("GET /counted", func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>Counted</title>"))
	})
	for range 3 {
		if _, err := s.Embed(context.Background(), site.URL+"/counted"); err != nil {
			t.Fatal(err)
		}
	}
	if hits != 1 {
		t.Errorf("fetched %d times, want 1", hits)
	}
}

func TestTruncation(t *testing.T) {
	site := embedstest.NewSite(t)
	s := newService(t, site)
	long := strings.Repeat("é", 3000)
	site.Mux.HandleFunc("GET /long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<meta property="og:title" content="` + long + `"><meta name="description" content="` + long +
			`"><meta property="og:site_name" content="` + long + `"><meta name="theme-color" content="` + long + `">`))
	})
	e, err := s.Embed(context.Background(), site.URL+"/long?"+strings.Repeat("q", 300))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		got  *string
		want int
	}{"title": {e.Title, 100}, "description": {e.Description, 1000}, "site_name": {e.SiteName, 32},
		"colour": {e.Colour, 32}, "url": {e.URL, 256}, "original_url": {e.OriginalURL, 256}} {
		if c.got == nil || len([]rune(*c.got)) != c.want {
			t.Errorf("%s: %d characters, want %d", name, len([]rune(deref(c.got))), c.want)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestSpecials(t *testing.T) {
	tests := []struct {
		url, video string
		want       *chat.Special
		colour     string
	}{
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "", &chat.Special{Type: "YouTube", ID: "dQw4w9WgXcQ"}, "#FF424F"},
		{"https://youtu.be/dQw4w9WgXcQ?t=10", "", &chat.Special{Type: "YouTube", ID: "dQw4w9WgXcQ", Timestamp: ptr("10")}, "#FF424F"},
		{"https://www.youtube.com/shorts/abcdefghijk", "", &chat.Special{Type: "YouTube", ID: "abcdefghijk"}, "#FF424F"},
		{"https://www.twitch.tv/somechannel", "", &chat.Special{Type: "Twitch", ContentType: "Channel", ID: "somechannel"}, "#7B68EE"},
		{"https://www.twitch.tv/videos/123456", "", &chat.Special{Type: "Twitch", ContentType: "Video", ID: "123456"}, "#7B68EE"},
		{"https://www.twitch.tv/somechannel/clip/FunnyClip-abc", "", &chat.Special{Type: "Twitch", ContentType: "Clip", ID: "FunnyClip-abc"}, "#7B68EE"},
		{"https://lightspeed.tv/somebody", "", &chat.Special{Type: "Lightspeed", ContentType: "Channel", ID: "somebody"}, "#7445D9"},
		{"https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "", &chat.Special{Type: "Spotify", ContentType: "track", ID: "4uLU6hMCjMI75M1A2tKUQC"}, "#1ABC9C"},
		{"https://soundcloud.com/artist/song-name", "", &chat.Special{Type: "Soundcloud"}, "#FF7F50"},
		{"https://artist.bandcamp.com/album/the-album", "https://bandcamp.com/EmbeddedPlayer/v=2/album=12345/size=large", &chat.Special{Type: "Bandcamp", ContentType: "Album", ID: "12345"}, ""},
		{"https://artist.bandcamp.com/track/a-song", "https://bandcamp.com/EmbeddedPlayer/v=2/track=678/", &chat.Special{Type: "Bandcamp", ContentType: "Track", ID: "678"}, ""},
		{"https://music.apple.com/us/album/some-album/1440857781?i=1440857795", "", &chat.Special{Type: "AppleMusic", AlbumID: "1440857781", TrackID: ptr("1440857795")}, "#FA233B"},
		{"https://streamable.com/abc123", "", &chat.Special{Type: "Streamable", ID: "abc123"}, ""},
		{"https://tenor.com/view/cat-dance-gif-123", "", &chat.Special{Type: "GIF"}, ""},
		{"https://giphy.com/gifs/some-gif-id", "", &chat.Special{Type: "GIF"}, ""},
		{"https://klipy.com/gifs/some-gif", "", &chat.Special{Type: "GIF"}, ""},
		{"https://example.com/watch?v=1", "", nil, ""},
	}
	for _, tt := range tests {
		got := special(tt.url, tt.url, tt.video)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.url, d)
			continue
		}
		if got != nil && specialColour(got) != tt.colour {
			t.Errorf("%s: colour %q, want %q", tt.url, specialColour(got), tt.colour)
		}
	}
}

func TestProxy(t *testing.T) {
	site := embedstest.NewSite(t)
	s := newService(t, site)
	t.Run("thumbnail", func(t *testing.T) {
		m, err := s.Proxy(context.Background(), site.URL+"/img/big.png")
		if err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(bytes.NewReader(m.Body))
		if m.ContentType != "image/jpeg" || err != nil {
			t.Fatalf("%s, %v", m.ContentType, err)
		}
		if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 128 {
			t.Errorf("thumbnail %v, want 1280×128", b)
		}
	})
	t.Run("transparent stays png", func(t *testing.T) {
		m, err := s.Proxy(context.Background(), site.URL+"/img/alpha.png")
		if err != nil || m.ContentType != "image/png" {
			t.Fatalf("%s, %v", m.ContentType, err)
		}
		if _, _, err := image.DecodeConfig(bytes.NewReader(m.Body)); err != nil {
			t.Error(err)
		}
	})
	t.Run("gif passes", func(t *testing.T) {
		m, err := s.Proxy(context.Background(), site.URL+"/img/anim.gif")
		if err != nil || m.ContentType != "image/gif" || !bytes.Equal(m.Body, embedstest.GIF(t)) {
			t.Fatalf("%s, %v", m.ContentType, err)
		}
	})
	for _, tt := range []struct {
		name, url string
		want      *chat.Error
	}{
		{"broken gif", site.URL + "/img/fake.gif", chat.ErrFileTypeNotAllowed},
		{"html", site.URL + "/og", chat.ErrFileTypeNotAllowed},
		{"video", site.URL + "/media/clip.mp4", chat.ErrFileTypeNotAllowed},
		{"zip", site.URL + "/file.zip", chat.ErrFileTypeNotAllowed},
		{"missing", site.URL + "/missing", chat.ErrProxyError},
		{"private", "http://192.168.1.1/a.png", chat.ErrInvalidOperation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Proxy(context.Background(), tt.url); !errors.Is(err, tt.want) {
				t.Errorf("Proxy(%s) = %v, want %s", tt.url, err, tt.want.Type)
			}
		})
	}
}

// TestUserAgentBySite: sites that serve metadata only to known bots get
// the Discordbot user agent, as the reference sends; others the client's.
func TestUserAgentBySite(t *testing.T) {
	s := New(Options{})
	for host, want := range map[string]string{
		"twitter.com": discordUA, "x.com": discordUA, "fxtwitter.com": discordUA, "www.reddit.com": discordUA,
		"old.reddit.com": discordUA, "klipy.com": discordUA, "example.com": "", "notx.com": "", "x.com.evil.example": "",
	} {
		u, _ := url.Parse("https://" + host + "/a")
		if got := s.userAgent(u); got != want {
			t.Errorf("%s: user agent %q, want %q", host, got, want)
		}
	}
	if got := reNewReddit.ReplaceAllString("https://www.reddit.com/r/golang/", "https://old.reddit.com"); got != "https://old.reddit.com/r/golang/" {
		t.Errorf("reddit rewrite = %s", got)
	}
}
