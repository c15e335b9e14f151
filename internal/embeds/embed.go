package embeds

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // image size probing by DecodeConfig
	_ "image/jpeg" // idem
	_ "image/png"  // idem
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/abema/go-mp4"
	"github.com/hashicorp/golang-lru/v2/expirable"
	_ "golang.org/x/image/bmp"  // idem
	_ "golang.org/x/image/webp" // idem
	"golang.org/x/net/html/charset"
	"golang.org/x/sync/singleflight"

	"ermine/internal/chat"
)

// Options configure the link preview service.
type Options struct {
	// Client makes every outbound request.
	Client *Client
	// HTMLBytes caps a page read for its metadata; MediaBytes an image or
	// video read for its size or proxied.
	HTMLBytes, MediaBytes int64
	// YouTubeOEmbed is the oEmbed endpoint asked about YouTube links.
	YouTubeOEmbed string
	// CacheTTL is how long results are kept (60 s in the reference).
	CacheTTL time.Duration
	// ProxyCacheEntries bounds the proxy's cache of results, each at most
	// proxyCacheItem bytes.
	ProxyCacheEntries int
	// MaxPixels caps the images the proxy decodes.
	MaxPixels int
	// FFprobe is the path of ffprobe, used for the size of videos that are
	// not MP4; empty when not installed.
	FFprobe string
	Log     *slog.Logger
}

// Defaults of the reference's january.
const (
	DefaultHTMLBytes     = 5 << 20
	DefaultMediaBytes    = 20 << 20
	DefaultYouTubeOEmbed = "https://www.youtube.com/oembed"
	DefaultUserAgent     = "Mozilla/5.0 (compatible; Ermine/1.0; link previews)"
	// discordUA is what a few sites insist on before they serve metadata
	// (twitter, x, reddit and their mirrors), as the reference sends.
	discordUA = "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)"
	// embedCacheSize is the number of embeds kept, as the reference.
	embedCacheSize = 10_000
)

// Truncation limits of Website embeds (behaviour.md §8), in characters.
const (
	maxURL         = 256
	maxTitle       = 100
	maxDescription = 1000
	maxSiteName    = 32
	maxColour      = 32
)

var (
	reDiscordUA = regexp.MustCompile(`^(?:(?:vx|fx)?twitter|(?:fixv|fixup)?x|(?:old\.|new\.|www\.)?reddit|(?:www\.)?klipy)\.com$`)
	reNewReddit = regexp.MustCompile(`^https?://(?:new\.|www\.)?reddit\.com`)
	reShorts    = regexp.MustCompile(`^(https?://(?:www\.|m\.)?youtube\.com/)shorts/([\w-]+)`)
)

// Service makes link previews and proxies remote media, with results
// cached for a minute. It holds no business rules: the app decides which
// links of which messages are looked at.
type Service struct {
	o      Options
	embeds *expirable.LRU[string, chat.Embed]
	proxy  *expirable.LRU[string, Media]
	group  singleflight.Group
}

// New returns the service.
func New(o Options) *Service {
	if o.HTMLBytes <= 0 {
		o.HTMLBytes = DefaultHTMLBytes
	}
	if o.MediaBytes <= 0 {
		o.MediaBytes = DefaultMediaBytes
	}
	if o.YouTubeOEmbed == "" {
		o.YouTubeOEmbed = DefaultYouTubeOEmbed
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = time.Minute
	}
	if o.ProxyCacheEntries <= 0 {
		o.ProxyCacheEntries = 256
	}
	if o.MaxPixels <= 0 {
		o.MaxPixels = 50_000_000
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Client == nil {
		o.Client = NewClient(ClientOptions{UserAgent: DefaultUserAgent})
	}
	return &Service{o: o,
		embeds: expirable.NewLRU[string, chat.Embed](embedCacheSize, nil, o.CacheTTL),
		proxy:  expirable.NewLRU[string, Media](o.ProxyCacheEntries, nil, o.CacheTTL),
	}
}

// errNoEmbed is the NoEmbedData error of a page with nothing to show.
var errNoEmbed = chat.ErrNoEmbedData

// Embed returns the preview of a link: a Website, Image or Video embed.
// It fails with InvalidOperation for an address Ermine may not fetch,
// NoEmbedData when the target has nothing to show and ProxyError when it
// cannot be fetched.
func (s *Service) Embed(ctx context.Context, raw string) (chat.Embed, error) {
	raw = reNewReddit.ReplaceAllString(raw, "https://old.reddit.com")
	if e, ok := s.embeds.Get(raw); ok {
		return embedResult(e)
	}
	v, err, _ := s.group.Do("embed\x00"+raw, func() (any, error) {
		e, err := s.generate(ctx, raw)
		if err != nil {
			return chat.Embed{}, err
		}
		s.embeds.Add(raw, e)
		return e, nil
	})
	if err != nil {
		return chat.Embed{}, classify(err)
	}
	return embedResult(v.(chat.Embed))
}

func embedResult(e chat.Embed) (chat.Embed, error) {
	if e.Type == "None" {
		return chat.Embed{}, errNoEmbed
	}
	return e, nil
}

// classify turns a fetch failure into the error clients are told.
func classify(err error) error {
	var ce *chat.Error
	switch {
	case errors.As(err, &ce):
		return err
	case errors.Is(err, ErrForbidden):
		return chat.ErrInvalidOperation.Wrap(err)
	}
	return chat.ErrProxyError.Wrap(err)
}

// userAgent picks the user agent for a URL.
func (s *Service) userAgent(u *url.URL) string {
	if reDiscordUA.MatchString(strings.ToLower(u.Hostname())) {
		return discordUA
	}
	return ""
}

// fetch GETs raw, checks the answer is a success with a content type, and
// returns it with its media type.
func (s *Service) fetch(ctx context.Context, raw string, limit int64) (*http.Response, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrForbidden, err)
	}
	resp, err := s.o.Client.Get(ctx, raw, s.userAgent(u), limit)
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body.Close()
		return nil, "", fmt.Errorf("%s: status %d", u.Redacted(), resp.StatusCode)
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		resp.Body.Close()
		return nil, "", fmt.Errorf("%s: content type %q", u.Redacted(), resp.Header.Get("Content-Type"))
	}
	return resp, mt, nil
}

// generate builds the embed of a link, or a None embed.
func (s *Service) generate(ctx context.Context, raw string) (chat.Embed, error) {
	if _, _, ok := youTubeID(raw); ok {
		if e, err := s.youTube(ctx, raw); err == nil {
			return e, nil
		} else if errors.Is(err, ErrForbidden) {
			return chat.Embed{}, err
		}
		// Without oEmbed, the page itself is read as the reference did.
	}
	resp, mt, err := s.fetch(ctx, raw, max(s.o.HTMLBytes, s.o.MediaBytes))
	if err != nil {
		return chat.Embed{}, err
	}
	defer resp.Body.Close()
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		// A page longer than the cap is read as far as the cap.
		body := io.LimitReader(resp.Body, s.o.HTMLBytes)
		if r, err := charset.NewReader(body, resp.Header.Get("Content-Type")); err == nil {
			body = r
		}
		page := ParsePage(body)
		return s.website(ctx, raw, resp.Request.URL, page), nil
	case strings.HasPrefix(mt, "image/"):
		img, ok := s.imageSize(io.LimitReader(resp.Body, s.o.MediaBytes))
		if !ok {
			return chat.Embed{Type: "None"}, nil
		}
		return chat.Embed{Type: "Image", URL: &raw, Width: &img.X, Height: &img.Y, Size: "Large"}, nil
	case strings.HasPrefix(mt, "video/"):
		w, h, ok := s.videoSize(ctx, resp.Body, mt)
		if !ok {
			return chat.Embed{Type: "None"}, nil
		}
		return chat.Embed{Type: "Video", URL: &raw, Width: &w, Height: &h}, nil
	}
	return chat.Embed{Type: "None"}, nil
}

// oEmbed is the part of an oEmbed answer a YouTube preview uses.
type oEmbed struct {
	Title        string `json:"title"`
	AuthorName   string `json:"author_name"`
	AuthorURL    string `json:"author_url"`
	ProviderName string `json:"provider_name"`
	ThumbnailURL string `json:"thumbnail_url"`
}

// youTube builds a YouTube preview from the oEmbed endpoint, as the
// reference does since YouTube stopped serving pages to data centres.
func (s *Service) youTube(ctx context.Context, raw string) (chat.Embed, error) {
	id, ts, _ := youTubeID(raw)
	// Shorts are asked about, and linked to, as ordinary videos.
	if m := reShorts.FindStringSubmatch(raw); m != nil {
		rest := strings.TrimPrefix(raw[len(m[0]):], "?")
		raw = m[1] + "watch?v=" + m[2]
		if rest != "" && rest[0] != '#' {
			raw += "&" + rest
		}
	}
	q := url.Values{"url": {"https://www.youtube.com/watch?v=" + id}, "format": {"json"}}
	resp, _, err := s.fetch(ctx, s.o.YouTubeOEmbed+"?"+q.Encode(), 1<<20)
	if err != nil {
		return chat.Embed{}, err
	}
	defer resp.Body.Close()
	var o oEmbed
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil {
		return chat.Embed{}, fmt.Errorf("youtube oembed: %w", err)
	}
	sp := &chat.Special{Type: "YouTube", ID: id, Timestamp: ts}
	if o.AuthorName != "" {
		sp.CreatorName = ptr(truncate(o.AuthorName, maxTitle))
	}
	if o.AuthorURL != "" {
		sp.CreatorURL = ptr(truncate(o.AuthorURL, maxURL))
	}
	e := chat.Embed{Type: "Website", URL: ptr(truncate(raw, maxURL)), Special: sp,
		Title: optional(o.Title, maxTitle), SiteName: optional(o.ProviderName, maxSiteName),
		IconURL: optional(o.ThumbnailURL, maxURL), Colour: ptr(colourYouTube)}
	return e, nil
}

// website builds a Website embed from a page's metadata. base is the
// address the page was finally served from, for its relative links.
func (s *Service) website(ctx context.Context, original string, base *url.URL, p Page) chat.Embed {
	abs := func(ref string) string {
		if ref == "" {
			return ""
		}
		r, err := base.Parse(ref)
		// "http:album=0" parses as an opaque URL with no host: a link
		// must name a host to be fetched or shown.
		if err != nil || (r.Scheme != "http" && r.Scheme != "https") || r.Host == "" {
			return ""
		}
		return r.String()
	}
	title := p.first("og:title", "twitter:title", "title")
	if title == "" {
		title = p.Title
	}
	var image *chat.EmbedImage
	if u := abs(p.first("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src")); u != "" {
		size := "Preview"
		if p.Meta["twitter:card"] == "summary_large_image" {
			size = "Large"
		}
		image = &chat.EmbedImage{URL: u, Size: size,
			Width: atoi(p.Meta["og:image:width"]), Height: atoi(p.Meta["og:image:height"])}
	}
	var video *chat.EmbedVideo
	if u := abs(p.first("og:video", "og:video:url", "og:video:secure_url")); u != "" {
		video = &chat.EmbedVideo{URL: u, Width: atoi(p.Meta["og:video:width"]), Height: atoi(p.Meta["og:video:height"])}
	}
	icon := abs(p.Links["apple-touch-icon"])
	if icon == "" {
		icon = abs(p.Links["icon"])
	}
	if icon == "" {
		icon = abs(p.Links["shortcut"])
	}
	pageURL := abs(p.Meta["og:url"])
	if pageURL == "" {
		pageURL = original
	}
	e := chat.Embed{Type: "Website", URL: &pageURL, OriginalURL: &original,
		Title: optional(title, 0), Description: optional(p.first("og:description", "twitter:description", "description"), 0),
		SiteName: optional(p.Meta["og:site_name"], 0), IconURL: optional(icon, 0),
		Colour: optional(p.Meta["theme-color"], 0), Image: image, Video: video}
	videoURL := ""
	if video != nil {
		videoURL = video.URL
	}
	e.Special = special(pageURL, original, videoURL)
	if e.Special != nil && e.Special.Type == "YouTube" && video == nil {
		// The page gave nothing (YouTube refuses data centres): keep only
		// what identifies the video, as the reference does.
		e.Title, e.Description, e.Colour, e.IconURL, e.SiteName = ptr("YouTube"), nil, nil, nil, nil
	}
	if e.Special != nil {
		if c := specialColour(e.Special); c != "" {
			e.Colour = &c
		}
	} else if video != nil && (video.Width == 0 || video.Height == 0) {
		e.Video = s.probeVideo(ctx, video.URL)
	}
	if e.Video != nil {
		e.Image = nil
	}
	if e.Special == nil && e.Image != nil && (e.Image.Width == 0 || e.Image.Height == 0) {
		e.Image = s.probeImage(ctx, e.Image)
	}
	truncateWebsite(&e)
	if e.Title == nil && e.Description == nil && e.Image == nil && e.Video == nil && e.Special == nil {
		return chat.Embed{Type: "None"}
	}
	return e
}

// probeImage fetches an image for its size; nil when it is not one.
func (s *Service) probeImage(ctx context.Context, img *chat.EmbedImage) *chat.EmbedImage {
	resp, mt, err := s.fetch(ctx, img.URL, s.o.MediaBytes)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(mt, "image/") {
		return nil
	}
	p, ok := s.imageSize(resp.Body)
	if !ok {
		return nil
	}
	return &chat.EmbedImage{URL: img.URL, Width: p.X, Height: p.Y, Size: img.Size}
}

// probeVideo fetches a video for its size; nil when it is not one.
func (s *Service) probeVideo(ctx context.Context, u string) *chat.EmbedVideo {
	resp, mt, err := s.fetch(ctx, u, s.o.MediaBytes)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(mt, "video/") {
		return nil
	}
	w, h, ok := s.videoSize(ctx, resp.Body, mt)
	if !ok {
		return nil
	}
	return &chat.EmbedVideo{URL: u, Width: w, Height: h}
}

// imageSize reads an image header for its dimensions.
func (s *Service) imageSize(r io.Reader) (image.Point, bool) {
	cfg, _, err := image.DecodeConfig(r)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return image.Point{}, false
	}
	return image.Pt(cfg.Width, cfg.Height), true
}

// videoSize reads a video's dimensions: MP4 and QuickTime headers in Go,
// anything else through ffprobe when it is installed.
func (s *Service) videoSize(ctx context.Context, r io.Reader, mt string) (int, int, bool) {
	data, err := io.ReadAll(r)
	if err != nil && !(errors.Is(err, ErrTooLarge) && len(data) > 0) {
		return 0, 0, false
	}
	if w, h, ok := mp4Size(data); ok {
		return w, h, true
	}
	if s.o.FFprobe == "" {
		return 0, 0, false
	}
	return ffprobeSize(ctx, s.o.FFprobe, data)
}

// mp4Size reads the size of the first track that has one.
func mp4Size(data []byte) (int, int, bool) {
	boxes, err := mp4.ExtractBoxWithPayload(bytes.NewReader(data), nil,
		mp4.BoxPath{mp4.BoxTypeMoov(), mp4.BoxTypeTrak(), mp4.BoxTypeTkhd()})
	if err != nil {
		return 0, 0, false
	}
	for _, b := range boxes {
		if t, ok := b.Payload.(*mp4.Tkhd); ok {
			if w, h := int(t.Width>>16), int(t.Height>>16); w > 0 && h > 0 {
				return w, h, true
			}
		}
	}
	return 0, 0, false
}

// ffprobeSize asks ffprobe for the size of the first video stream.
func ffprobeSize(ctx context.Context, ffprobe string, data []byte) (int, int, bool) {
	f, err := os.CreateTemp("", "ermine-embed-*")
	if err != nil {
		return 0, 0, false
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(data)
	if err := f.Close(); err != nil || werr != nil {
		return 0, 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, ffprobe, "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=width,height", "-of", "csv=p=0:s=x", f.Name()).Output()
	if err != nil {
		return 0, 0, false
	}
	ws, hs, ok := strings.Cut(strings.TrimSpace(string(out)), "x")
	w, h := atoi(ws), atoi(hs)
	return w, h, ok && w > 0 && h > 0
}

// truncateWebsite cuts a Website embed's strings to the reference's limits.
func truncateWebsite(e *chat.Embed) {
	for _, f := range []struct {
		p   **string
		max int
	}{
		{&e.URL, maxURL}, {&e.OriginalURL, maxURL}, {&e.IconURL, maxURL}, {&e.Title, maxTitle},
		{&e.Description, maxDescription}, {&e.SiteName, maxSiteName}, {&e.Colour, maxColour},
	} {
		if *f.p != nil {
			*f.p = ptr(truncate(**f.p, f.max))
		}
	}
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// optional is nil for an empty string, else s cut to n characters (no
// cut when n is 0).
func optional(s string, n int) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if n > 0 {
		s = truncate(s, n)
	}
	return &s
}

func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func ptr[T any](v T) *T { return &v }
