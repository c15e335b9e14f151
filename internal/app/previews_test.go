package app

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/pubsub/inproc"
	"ermine/internal/store/sqlite"
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

// gatedPreviewer answers each link with a Website embed titled by the
// link, once the test lets it.
type gatedPreviewer struct {
	started chan string
	release chan struct{}
}

func (g *gatedPreviewer) Embed(ctx context.Context, link string) (chat.Embed, error) {
	g.started <- link
	select {
	case <-g.release:
	case <-ctx.Done():
		return chat.Embed{}, ctx.Err()
	}
	if strings.Contains(link, "fail") {
		return chat.Embed{}, errors.New("unreachable")
	}
	return chat.Embed{Type: "Website", Title: &link}, nil
}

// TestPreviewsAfterEdit: a message edited while its links are fetched
// gets the previews of its new content only, and a link that fails costs
// nothing to the others.
func TestPreviewsAfterEdit(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ermine.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bus := inproc.New(0)
	t.Cleanup(func() { bus.Close() })
	g := &gatedPreviewer{started: make(chan string, 16), release: make(chan struct{})}
	ta := &testApp{App: New(Deps{Store: st, Bus: bus, Settings: Settings{Limits: DefaultLimits()}, Previews: g}), st: st, bus: bus}
	t.Cleanup(func() { ta.Close() })
	ctx := context.Background()
	me := ta.user(t, "me")
	saved := &chat.Channel{ChannelType: chat.ChannelSavedMessages, ID: chat.NewID(), User: me.ID()}
	if err := st.InsertChannel(ctx, saved); err != nil {
		t.Fatal(err)
	}
	ev := ta.listen(t, event.Of(saved.ID))
	content := "https://old.example/a"
	m, err := ta.SendMessage(ctx, me, saved.ID, chat.MessageSend{Content: &content}, "")
	if err != nil {
		t.Fatal(err)
	}
	ev.expect([2]string{chat.EvMessage, event.Of(saved.ID)})
	if got := <-g.started; got != "https://old.example/a" {
		t.Fatalf("fetching %s", got)
	}
	edited := "https://new.example/b https://fail.example/c"
	if _, err := ta.EditMessage(ctx, me, saved.ID, m.ID, chat.MessageEdit{Content: &edited}); err != nil {
		t.Fatal(err)
	}
	ev.expect([2]string{chat.EvMessageUpdate, event.Of(saved.ID)})
	close(g.release) // every fetch, old and new, finishes now
	got := ev.expect([2]string{chat.EvMessageAppend, event.Of(saved.ID)})[0]
	embeds := got.body["append"].(map[string]any)["embeds"].([]any)
	if len(embeds) != 1 || embeds[0].(map[string]any)["title"] != "https://new.example/b" {
		t.Errorf("appended %v, want only the new link's preview", embeds)
	}
	ev.none()
	stored, err := st.FetchMessage(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored.Embeds) != 1 || *stored.Embeds[0].Title != "https://new.example/b" {
		t.Errorf("stored embeds %+v", stored.Embeds)
	}
}
