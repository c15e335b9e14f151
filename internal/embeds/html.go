package embeds

import (
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page is the metadata found in an HTML document: its <title>, its <meta>
// tags by property or name, and its <link> tags by rel. The first value
// of each key wins, as a page's own order of preference.
type Page struct {
	Title string
	Meta  map[string]string // og:title, twitter:card, description, theme-color ...
	Links map[string]string // apple-touch-icon, icon, alternate oEmbed ...
}

// maxTokens bounds the work done on one document, whatever its size.
const maxTokens = 200_000

// ParsePage reads the metadata of an HTML document. It never fails: a
// broken document yields whatever was read before the breakage.
func ParsePage(r io.Reader) Page {
	p := Page{Meta: map[string]string{}, Links: map[string]string{}}
	z := html.NewTokenizer(r)
	z.SetMaxBuf(1 << 20)
	inTitle, sawTitle := false, false
	var title strings.Builder
	for range maxTokens {
		switch z.Next() {
		case html.ErrorToken:
			p.Title = strings.TrimSpace(title.String())
			return p
		case html.TextToken:
			if inTitle && title.Len() < 4096 {
				title.Write(z.Text())
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if atom.Lookup(name) == atom.Title {
				inTitle = false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch atom.Lookup(name) {
			case atom.Title:
				// Only the first <title>; an <svg> may carry its own later.
				inTitle = !sawTitle
				sawTitle = true
			case atom.Meta:
				if hasAttr {
					a := attrs(z)
					key := a["property"]
					if key == "" {
						key = a["name"]
					}
					key = strings.ToLower(strings.TrimSpace(key))
					if content, ok := a["content"]; ok && key != "" {
						if _, seen := p.Meta[key]; !seen {
							p.Meta[key] = strings.TrimSpace(content)
						}
					}
				}
			case atom.Link:
				if hasAttr {
					a := attrs(z)
					href := strings.TrimSpace(a["href"])
					if href == "" {
						continue
					}
					for _, rel := range strings.Fields(strings.ToLower(a["rel"])) {
						key := rel
						if rel == "alternate" && strings.Contains(strings.ToLower(a["type"]), "json+oembed") {
							key = "oembed"
						}
						if _, seen := p.Links[key]; !seen {
							p.Links[key] = href
						}
					}
				}
			}
		}
	}
	p.Title = strings.TrimSpace(title.String())
	return p
}

// attrs collects a tag's attributes, lower-cased keys, first value wins.
func attrs(z *html.Tokenizer) map[string]string {
	a := map[string]string{}
	for {
		k, v, more := z.TagAttr()
		key := strings.ToLower(string(k))
		if _, seen := a[key]; !seen {
			a[key] = string(v)
		}
		if !more {
			return a
		}
	}
}

// first returns the first non-empty value among keys.
func (p Page) first(keys ...string) string {
	for _, k := range keys {
		if v := p.Meta[k]; v != "" {
			return v
		}
	}
	return ""
}
