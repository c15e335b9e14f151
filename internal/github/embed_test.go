package github

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"ermine/internal/chat"
)

const testSender = `"sender":{"login":"octocat","avatar_url":"https://a.example/o.png","html_url":"https://github.com/octocat"},` +
	`"repository":{"full_name":"octocat/hello","html_url":"https://github.com/octocat/hello"}`

func TestEmbed(t *testing.T) {
	long := strings.Repeat("é", 600)
	cases := []struct {
		name, event, body string
		colour, want      string // "" colour: nothing posted
	}{
		{"ping without repository", "ping", `{"zen":"x","hook":{}}`, "", ""},
		{"star created", "star", `{"action":"created",` + testSender + `}`, grey, "#### [[octocat/hello] New star added](https://github.com/octocat/hello)"},
		{"short sha", "push", `{"ref":"refs/heads/x","after":"ab","forced":true,"compare":"c",` + testSender + `}`, red,
			"#### [octocat/hello] Branch x was force-pushed to ab\n[compare changes](c)"},
		{"commit comment", "commit_comment", `{"comment":{"body":"nice","html_url":"h","commit_id":"0123456789"},` + testSender + `}`, grey,
			"#### [[octocat/hello] New comment on commit `01234567`](h)\nnice"},
		{"delete", "delete", `{"ref":"old","ref_type":"branch",` + testSender + `}`, grey, "#### [octocat/hello] branch deleted: old"},
		{"fork", "fork", `{"forkee":{"full_name":"me/hello","html_url":"f"},` + testSender + `}`, grey, "#### [[octocat/hello] Fork created: me/hello](f)"},
		{"discussion", "discussion", `{"action":"created","discussion":{"number":3,"title":"Q","html_url":"d","body":"` + long + `"},` + testSender + `}`,
			lightOrange, "#### [[octocat/hello] New discussion #3: Q](d)\n" + strings.Repeat("é", 450) + "..."},
		{"discussion answered", "discussion", `{"action":"answered","discussion":{"number":3,"title":"Q","html_url":"d"},"answer":{"body":"A","user":{"login":"helper"}},` + testSender + `}`,
			lightOrange, "#### [[octocat/hello] Discussion #3 marked answered: Q](d)\nA"},
		{"discussion comment", "discussion_comment", `{"action":"created","discussion":{"number":3,"title":"Q","html_url":"d"},"comment":{"body":"c","user":{"login":"helper"}},` + testSender + `}`,
			lightOrange, "#### [[octocat/hello] New comment on discussion #3: Q](d)\nc"},
		{"discussion comment edited", "discussion_comment", `{"action":"edited",` + testSender + `}`, "", ""},
		{"issue reopened", "issues", `{"action":"reopened","issue":{"number":1,"title":"T","html_url":"i"},` + testSender + `}`, green,
			"#### [[octocat/hello] Issue Reopened #1: T](i)"},
		{"pull request closed", "pull_request", `{"action":"closed","number":2,"pull_request":{"number":2,"title":"P","html_url":"p"},` + testSender + `}`, grey,
			"#### [[octocat/hello] Pull Request Closed #2: P](p)"},
		{"pull request synchronize", "pull_request", `{"action":"synchronize",` + testSender + `}`, "", ""},
	}
	for _, c := range cases {
		e, err := Embed(c.event, []byte(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.colour == "" {
			if e != nil {
				t.Errorf("%s: posted %+v", c.name, e)
			}
			continue
		}
		if e == nil || *e.Colour != c.colour || *e.Description != c.want {
			t.Errorf("%s: got %+v, want %s %q", c.name, e, c.colour, c.want)
			continue
		}
		if c.name == "discussion answered" || c.name == "discussion comment" {
			if *e.Title != "helper" || e.URL != nil {
				t.Errorf("%s: headed by %s", c.name, *e.Title)
			}
		}
	}
}

// FuzzEmbed feeds arbitrary deliveries to the decoder: it never
// panics, fails only with InvalidOperation, and whatever it returns is a
// text embed a message can carry.
func FuzzEmbed(f *testing.F) {
	for _, ev := range []string{"ping", "star", "push", "commit_comment", "create", "delete", "discussion",
		"discussion_comment", "fork", "issues", "issue_comment", "pull_request", "watch"} {
		f.Add(ev, []byte(`{"action":"created","ref":"refs/heads/main","after":"abcdef0123","commits":[{"id":"1","message":"m\nx","author":{"name":"a"}}],`+
			`"comment":{"body":"b","user":{"login":"u"}},"issue":{"number":1,"title":"t"},"pull_request":{"title":"p"},"number":4,`+
			`"discussion":{"number":1},"answer":{"body":"a","user":{"login":"x"}},"forkee":{"full_name":"f/g"},"ref_type":"tag",`+testSender+`}`))
	}
	f.Add("issues", []byte(`{"action":"opened","issue":{"body":"\xff\xfe"},`+testSender+`}`))
	f.Add("push", []byte(`{"ref":"refs/heads/`+strings.Repeat("ü", 700)+`","commits":[],`+testSender+`}`))
	f.Add("push", []byte(`[]`))
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		e, err := Embed(event, body)
		if err != nil {
			if !errors.Is(err, chat.ErrInvalidOperation) || e != nil {
				t.Fatalf("error %v, embed %v", err, e)
			}
			return
		}
		if e == nil {
			return
		}
		if err := e.Validate("embed"); err != nil {
			t.Fatalf("embed %+v: %v", e, err)
		}
		if len(*e.Description) > 2000 || (utf8.Valid(body) && !utf8.ValidString(*e.Description)) {
			t.Fatalf("embed %+v: description of %d bytes, or a character cut in two", e, len(*e.Description))
		}
		if e.Media != nil {
			t.Fatalf("embed with media %v", *e.Media)
		}
	})
}
