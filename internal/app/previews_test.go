package app

import (
	"slices"
	"strings"
	"testing"
)

func TestLinks(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{"plain", "see https://example.com/page and http://a.example/x?y=1", []string{"https://example.com/page", "http://a.example/x?y=1"}},
		{"fragment dropped, repeats once", "https://example.com/a#one https://example.com/a#two", []string{"https://example.com/a"}},
		{"sentence punctuation", "look: https://example.com/a. Or https://example.com/b, fine!", []string{"https://example.com/a", "https://example.com/b"}},
		{"markdown link", "[text](https://example.com/a) and (https://example.com/wiki/Go_(language))", []string{"https://example.com/a", "https://example.com/wiki/Go_(language)"}},
		{"inline code", "`https://example.com/code` https://example.com/real", []string{"https://example.com/real"}},
		{"code block", "```\nhttps://example.com/block\n```\nhttps://example.com/after", []string{"https://example.com/after"}},
		{"angle brackets suppress", "<https://example.com/quiet> https://example.com/loud", []string{"https://example.com/loud"}},
		{"quoted line", "> https://example.com/quoted\nhttps://example.com/mine", []string{"https://example.com/mine"}},
		{"no scheme", "example.com www.example.com ftp://example.com", nil},
		{"at most five", "https://a.example/1 https://a.example/2 https://a.example/3 https://a.example/4 https://a.example/5 https://a.example/6",
			[]string{"https://a.example/1", "https://a.example/2", "https://a.example/3", "https://a.example/4", "https://a.example/5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Links(tt.content, 5); !slices.Equal(got, tt.want) {
				t.Errorf("Links(%q) = %q, want %q", tt.content, got, tt.want)
			}
		})
	}
}

// FuzzLinks: whatever the content, at most max distinct absolute http(s)
// links without fragments come out, and none from inside code.
func FuzzLinks(f *testing.F) {
	for _, s := range []string{"https://example.com", "`https://a.b` <https://c.d> > https://e.f", "((https://x.y/))..,", "```https://a.b```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		got := Links(content, 5)
		if len(got) > 5 {
			t.Fatalf("%d links", len(got))
		}
		seen := map[string]bool{}
		for _, l := range got {
			if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") || strings.Contains(l, "#") || seen[l] {
				t.Errorf("bad link %q in %q", l, got)
			}
			seen[l] = true
		}
	})
}
