package app

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// LinkPreviewer makes the preview of one link (internal/embeds). An error
// means the link gets no embed; the app never shows it to anyone.
type LinkPreviewer interface {
	Embed(ctx context.Context, url string) (chat.Embed, error)
}

// previewQueueLen is how many messages may wait for their previews; past
// it new ones go without, like an event the bus could not deliver.
const previewQueueLen = 1024

// previewJob is one message whose links are to be previewed.
type previewJob struct {
	channel, message chat.ID
	content          string
	links            []string
}

// previews fetches link previews off the request path: a fixed number of
// workers take messages from a bounded queue.
type previews struct {
	svc    LinkPreviewer
	links  int
	jobs   chan previewJob
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startPreviews runs workers that append previews through a; nil when
// previews are off.
func startPreviews(a *App, svc LinkPreviewer, links, workers int) *previews {
	if svc == nil || links <= 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &previews{svc: svc, links: links, jobs: make(chan previewJob, previewQueueLen), ctx: ctx, cancel: cancel}
	for range max(workers, 1) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-p.jobs:
					a.runPreview(ctx, j)
				}
			}
		}()
	}
	return p
}

// close stops the workers, abandoning fetches in flight.
func (p *previews) close() {
	if p == nil {
		return
	}
	p.cancel()
	p.wg.Wait()
}

// queueLinkEmbeds schedules previews of the links in a message's content.
// The caller has decided the author may have them (SendEmbeds, or a
// webhook); messages without links cost nothing.
func (a *App) queueLinkEmbeds(ctx context.Context, m *chat.Message) {
	p := a.sends.previews
	if p == nil || m.Content == nil {
		return
	}
	links := Links(*m.Content, p.links)
	if len(links) == 0 {
		return
	}
	select {
	case p.jobs <- previewJob{channel: m.Channel, message: m.ID, content: *m.Content, links: links}:
	case <-p.ctx.Done():
	default:
		a.log.WarnContext(ctx, "link previews: queue full, message skipped", "message", m.ID)
	}
}

// runPreview fetches a message's links, at once, and appends the embeds
// that resolved in the order of the links.
func (a *App) runPreview(ctx context.Context, j previewJob) {
	results := make([]*chat.Embed, len(j.links))
	var wg sync.WaitGroup
	for i, link := range j.links {
		wg.Go(func() {
			e, err := a.sends.previews.svc.Embed(ctx, link)
			if err != nil {
				a.log.DebugContext(ctx, "link preview", "url", link, "err", err)
				return
			}
			results[i] = &e
		})
	}
	wg.Wait()
	var embeds []chat.Embed
	for _, e := range results {
		if e != nil {
			embeds = append(embeds, *e)
		}
	}
	if len(embeds) == 0 || ctx.Err() != nil {
		return
	}
	err := a.appendEmbeds(ctx, j.channel, j.message, &j.content, embeds)
	if err != nil && !errors.Is(err, chat.ErrNotFound) && !errors.Is(err, errStalePreview) {
		a.log.ErrorContext(ctx, "append link previews", "message", j.message, "err", err)
	}
}

// errStalePreview: the message was edited while its links were fetched;
// the edit queued previews of its own.
var errStalePreview = errors.New("message content changed")

// appendEmbeds adds embeds to a stored message and tells the channel with
// MessageAppend. With content non-nil, the message must still say exactly
// that, so previews of an edited-away link never land.
func (a *App) appendEmbeds(ctx context.Context, channel, message chat.ID, content *string, embeds []chat.Embed) error {
	if len(embeds) == 0 {
		return nil
	}
	topic := event.Of(channel)
	err := a.store.InTx(ctx, func(tx store.Store) error {
		m, err := channelMessage(ctx, tx, channel, message)
		if err != nil {
			return err
		}
		topic = messageTopic(m)
		if content != nil && (m.Content == nil || *m.Content != *content) {
			return errStalePreview
		}
		m.Embeds = append(m.Embeds, embeds...)
		return dbError("update message", tx.UpdateMessage(ctx, m))
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.MessageAppendEvent{Type: chat.EvMessageAppend, ID: message,
		Channel: channel, Append: chat.MessageAppend{Embeds: embeds}}, topic)
	return nil
}

var (
	// reCode matches fenced code blocks and inline code spans, whose links
	// are text, not links.
	reCode = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
	// reSuppressed matches a link in angle brackets, which asks for no
	// preview.
	reSuppressed = regexp.MustCompile(`<https?://[^\s>]*>`)
	// reLink finds links in what is left.
	reLink = regexp.MustCompile(`https?://[^\s<>"'` + "`" + `]+`)
)

// Links returns the links of a message's content that get previews, at
// most max, in order of appearance, without fragments or repeats. Links
// inside code, in angle brackets or on quoted lines (starting with '>')
// are left out, as the reference does.
func Links(content string, max int) []string {
	content = reCode.ReplaceAllString(content, " ")
	content = reSuppressed.ReplaceAllString(content, " ")
	var lines []string
	for line := range strings.SplitSeq(content, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), ">") {
			lines = append(lines, line)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, raw := range reLink.FindAllString(strings.Join(lines, "\n"), -1) {
		if len(out) == max {
			break
		}
		raw = trimLink(raw)
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			continue
		}
		u.Fragment, u.RawFragment = "", ""
		s := u.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// trimLink drops punctuation that ends a sentence rather than the link,
// and a closing bracket the link did not open (markdown's [text](url)).
func trimLink(s string) string {
	for s != "" {
		last := s[len(s)-1]
		switch {
		case strings.IndexByte(".,:;!?*_~", last) >= 0:
			s = s[:len(s)-1]
		case last == ')' && strings.Count(s, "(") < strings.Count(s, ")"):
			s = s[:len(s)-1]
		case last == ']' && strings.Count(s, "[") < strings.Count(s, "]"):
			s = s[:len(s)-1]
		default:
			return s
		}
	}
	return s
}
