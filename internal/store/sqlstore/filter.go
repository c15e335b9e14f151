package sqlstore

import (
	"context"
	"slices"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// A message's tags are the words its filters match beyond content,
// channel and author, kept in the messages' tags column (NULL when none)
// and indexed with them: mention<user id>, role<role id>, bot, webhook,
// pinned, file, image, video, link, embed. Ids are ULIDs (letters and
// digits), so every tag is one word to both engines' tokenisers.
const (
	tagMention = "mention"
	tagRole    = "role"
	tagBot     = "bot"
	tagWebhook = "webhook"
	tagPinned  = "pinned"
)

// componentTags maps the components of a filter to their tags.
var componentTags = map[string]string{
	store.ComponentImage: "image",
	store.ComponentVideo: "video",
	store.ComponentLink:  "link",
	store.ComponentFile:  "file",
	store.ComponentEmbed: "embed",
}

// messageTags is the tags column of m: nil when it has none.
func messageTags(m *chat.Message) any {
	var tags []string
	for _, id := range m.Mentions {
		tags = append(tags, tagMention+string(id))
	}
	for _, id := range m.RoleMentions {
		tags = append(tags, tagRole+string(id))
	}
	switch {
	case m.Webhook != nil:
		tags = append(tags, tagWebhook)
	case m.AuthorBot:
		tags = append(tags, tagBot)
	}
	if m.Pinned != nil && *m.Pinned {
		tags = append(tags, tagPinned)
	}
	if len(m.Attachments) > 0 {
		tags = append(tags, componentTags[store.ComponentFile])
	}
	var image, video bool
	for _, f := range m.Attachments {
		image = image || f.Metadata.Type == "Image"
		video = video || f.Metadata.Type == "Video"
	}
	if image {
		tags = append(tags, componentTags[store.ComponentImage])
	}
	if video {
		tags = append(tags, componentTags[store.ComponentVideo])
	}
	if m.Content != nil && hasLink(*m.Content) {
		tags = append(tags, componentTags[store.ComponentLink])
	}
	if len(m.Embeds) > 0 {
		tags = append(tags, componentTags[store.ComponentEmbed])
	}
	if len(tags) == 0 {
		return nil
	}
	return strings.Join(tags, " ")
}

// hasLink reports whether content holds an http or https URL: the scheme
// followed by a host character.
func hasLink(content string) bool {
	for rest := content; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return false
		}
		scheme := strings.ToLower(rest[max(0, i-5):i])
		if (strings.HasSuffix(scheme, "http") || strings.HasSuffix(scheme, "https")) &&
			i+3 < len(rest) && !strings.ContainsRune(" \t\n/<>\"", rune(rest[i+3])) {
			return true
		}
		rest = rest[i+3:]
	}
}

// ephemeralOf is the ephemeral column of m.
func ephemeralOf(m *chat.Message) any {
	if m.Ephemeral == nil {
		return nil
	}
	return string(*m.Ephemeral)
}

// FilterTerms is a MessageFilter as words of the index, for a dialect's
// Filter: every group must hold (any of its words), no word of None may.
type FilterTerms struct {
	Channels []string   // channel ids, any of (none: every channel)
	Authors  []string   // author ids, any of
	Words    []string   // content words, all of
	Tags     [][]string // tag groups, each any of
	None     []string   // tags none of which may be present
}

// Positive reports whether the terms hold a condition an index answers;
// without one a filter finds nothing (MessageFilter's contract).
func (t FilterTerms) Positive() bool {
	return len(t.Channels) > 0 || len(t.Authors) > 0 || len(t.Words) > 0 || len(t.Tags) > 0
}

// FilterTokens turns f into index words. ok is false when f can match
// nothing: a list given with no well-formed id in it.
func FilterTokens(f store.MessageFilter) (t FilterTerms, ok bool) {
	ids := func(in []chat.ID, prefix string) []string {
		var out []string
		for _, id := range in {
			if id.Valid() && !slices.Contains(out, prefix+string(id)) {
				out = append(out, prefix+string(id))
			}
		}
		return out
	}
	if t.Channels = ids(f.Channels, ""); len(f.Channels) > 0 && len(t.Channels) == 0 {
		return t, false
	}
	if t.Authors = ids(f.Authors, ""); len(f.Authors) > 0 && len(t.Authors) == 0 {
		return t, false
	}
	t.Words = SearchTerms(f.Words)
	for _, g := range []struct {
		in     []chat.ID
		prefix string
	}{{f.Mentions, tagMention}, {f.RoleMentions, tagRole}} {
		if len(g.in) == 0 {
			continue
		}
		tags := ids(g.in, g.prefix)
		if len(tags) == 0 {
			return t, false
		}
		t.Tags = append(t.Tags, tags)
	}
	if len(f.Components) > 0 {
		var tags []string
		for _, c := range f.Components {
			if tag, known := componentTags[c]; known && !slices.Contains(tags, tag) {
				tags = append(tags, tag)
			}
		}
		if len(tags) == 0 {
			return t, false
		}
		t.Tags = append(t.Tags, tags)
	}
	if len(f.AuthorTypes) > 0 {
		user, bot, webhook := slices.Contains(f.AuthorTypes, store.AuthorUser),
			slices.Contains(f.AuthorTypes, store.AuthorBot), slices.Contains(f.AuthorTypes, store.AuthorWebhook)
		switch {
		case user && bot && webhook:
		case user:
			// A user's message carries neither tag.
			if !bot {
				t.None = append(t.None, tagBot)
			}
			if !webhook {
				t.None = append(t.None, tagWebhook)
			}
		case bot && webhook:
			t.Tags = append(t.Tags, []string{tagBot, tagWebhook})
		case bot:
			t.Tags = append(t.Tags, []string{tagBot})
		case webhook:
			t.Tags = append(t.Tags, []string{tagWebhook})
		default:
			return t, false
		}
	}
	if f.Pinned != nil {
		if *f.Pinned {
			t.Tags = append(t.Tags, []string{tagPinned})
		} else {
			t.None = append(t.None, tagPinned)
		}
	}
	return t, true
}

// FilterMessages finds a page of messages by a filter: the dialect's
// query lists the page's ids in order, and the messages are loaded by id.
func (s *DB) FilterMessages(ctx context.Context, f store.MessageFilter) ([]*chat.Message, error) {
	t, ok := FilterTokens(f)
	if !ok || !t.Positive() || f.Limit <= 0 {
		return nil, nil
	}
	q, args := s.d.Filter(t, f)
	ids, err := s.ids(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	ids = ids[min(f.Offset, len(ids)):min(f.Offset+f.Limit, len(ids))]
	found, err := messagesIn(ctx, s, `SELECT `+messageCols+` FROM messages WHERE id IN (%s)`, ids)
	if err != nil {
		return nil, err
	}
	// An engine walking in storage order may see ids of one group commit
	// out of order: the page is in id order.
	slices.SortFunc(found, func(a, b *chat.Message) int {
		if f.Ascending {
			return strings.Compare(string(a.ID), string(b.ID))
		}
		return strings.Compare(string(b.ID), string(a.ID))
	})
	return found, nil
}

// DeleteEphemeralMessages removes ephemeral messages sent before before.
func (s *DB) DeleteEphemeralMessages(ctx context.Context, before chat.ID, limit int) ([]*chat.Message, error) {
	var out []*chat.Message
	err := s.within(ctx, func(tx *DB) error {
		var err error
		out, err = manyMessages(ctx, tx, `SELECT `+messageCols+` FROM messages WHERE ephemeral IS NOT NULL AND id < ?
			ORDER BY id LIMIT ?`, before, limit)
		if err != nil || len(out) == 0 {
			return err
		}
		ids := make([]chat.ID, len(out))
		for i, m := range out {
			ids[i] = m.ID
		}
		for chunk := range chunks(ids) {
			if _, err := tx.exec(ctx, `DELETE FROM messages WHERE id IN (`+placeholders(len(chunk))+`)`, idArgs(chunk)...); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}
