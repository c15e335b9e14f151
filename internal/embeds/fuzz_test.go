package embeds

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParsePage feeds arbitrary documents to the metadata parser and the
// Website embed builder: neither may panic, and what comes out keeps the
// truncation limits and carries only absolute http(s) links.
func FuzzParsePage(f *testing.F) {
	for _, seed := range []string{
		`<html><head><meta property="og:title" content="T"><meta property="og:image" content="/i.png"></head></html>`,
		`<meta name="twitter:card" content="summary_large_image"><meta name="twitter:image" content="//x.example/a.jpg">`,
		`<title>plain</title><meta name="description" content="d">`,
		`<link rel="icon apple-touch-icon" href="javascript:alert(1)"><meta property="og:url" content="data:text/html,x">`,
		`<svg><title>inner</title></svg><title>second</title>`,
		`<meta property="og:video" content="https://artist.bandcamp.com/EmbeddedPlayer/album=1"><meta property="og:url" content="https://artist.bandcamp.com/album/x">`,
		"<title>\xff\xfe broken utf-8</title>",
		`<meta content="no key"><meta property="" content="x"><link rel="alternate" type="application/json+oembed" href="/oembed">`,
	} {
		f.Add(seed)
	}
	s := New(Options{Client: NewClient(ClientOptions{Resolver: fakeResolver{}})})
	base, _ := url.Parse("https://site.example/dir/page?q=1")
	f.Fuzz(func(t *testing.T, doc string) {
		p := ParsePage(strings.NewReader(doc))
		if p.Meta == nil || p.Links == nil {
			t.Fatal("nil maps")
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // no probe may reach out
		e := s.website(ctx, base.String(), base, p)
		if e.Type == "None" {
			return
		}
		if e.Type != "Website" {
			t.Fatalf("type %q", e.Type)
		}
		for name, c := range map[string]struct {
			v   *string
			max int
		}{"url": {e.URL, maxURL}, "original_url": {e.OriginalURL, maxURL}, "icon_url": {e.IconURL, maxURL},
			"title": {e.Title, maxTitle}, "description": {e.Description, maxDescription},
			"site_name": {e.SiteName, maxSiteName}, "colour": {e.Colour, maxColour}} {
			if c.v != nil && utf8.RuneCountInString(*c.v) > c.max {
				t.Errorf("%s has %d characters, over %d", name, utf8.RuneCountInString(*c.v), c.max)
			}
		}
		links := []*string{e.IconURL}
		if e.Image != nil {
			links = append(links, &e.Image.URL)
		}
		if e.Video != nil {
			links = append(links, &e.Video.URL)
		}
		for _, l := range links {
			if l == nil {
				continue
			}
			u, err := url.Parse(*l)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Errorf("link %q is not absolute http(s)", *l)
			}
		}
	})
}
