package discord

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"ermine/internal/chat"
)

// seeEmoji records a custom emoji met in channel ch (in a reaction, or
// in a message's content), used uses times, and where its image is when the export holds it (the
// tool's --media writes it beside the export and imageUrl names it).
func (im *importState) seeEmoji(ch *channel, e Emoji, uses int) {
	ce := im.emoji[e.ID]
	if ce == nil {
		ce = &customEmoji{e: e}
		im.emoji[e.ID] = ce
	}
	ce.uses += max(uses, 1)
	if ce.path == "" {
		ce.path = localFileAt(ch.file, e.ImageURL)
	}
}

// emojiOrder lists the custom emoji most used first (ties by Discord
// id), the order in which they take the server's emoji places.
func (im *importState) emojiOrder() []string {
	ids := make([]string, 0, len(im.emoji))
	for id := range im.emoji {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if d := im.emoji[b].uses - im.emoji[a].uses; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return ids
}

// emojiID is the id of the server emoji a custom Discord emoji becomes
// (also its image's file id, as for an emoji made through the API).
func emojiID(did string) chat.ID { return mintID("emoji", did, snowTime(did)) }

// writeEmoji makes server emoji of the custom emoji reactions and
// messages use whose images the export holds, most used first, up to the server's limit,
// with names made valid and distinct; the others are reported. Then it
// notes which ones the server holds, for the reactions.
func (im *importState) writeEmoji(ctx context.Context) error {
	if len(im.emoji) > 0 && !im.p.Complete("emoji") {
		if err := im.writeEmojiCollection(ctx); err != nil {
			return err
		}
	}
	held, err := im.p.Store().FetchServerEmojis(ctx, []chat.ID{im.server})
	if err != nil {
		return fmt.Errorf("fetch emoji: %w", err)
	}
	for did := range im.emoji {
		id := emojiID(did)
		if slices.ContainsFunc(held, func(e *chat.Emoji) bool { return e.ID == id }) {
			im.emojiIDs[did] = id
		}
	}
	return nil
}

func (im *importState) writeEmojiCollection(ctx context.Context) error {
	order := im.emojiOrder()
	w := im.p.Collection("emoji", int64(len(order)))
	skip := im.p.Done("emoji")
	existing, err := im.p.Store().FetchServerEmojis(ctx, []chat.ID{im.server})
	if err != nil {
		return fmt.Errorf("fetch emoji: %w", err)
	}
	have := map[chat.ID]bool{}
	names := map[string]bool{}
	for _, e := range existing {
		have[e.ID] = true
		names[e.Name] = true
	}
	count := len(existing)
	for i, did := range order {
		if int64(i) < skip {
			continue
		}
		ce, id := im.emoji[did], emojiID(did)
		w.ID(did)
		switch {
		case have[id]:
			w.Skip(did, "imported before")
		case ce.path == "":
			w.Skip(did, "custom emoji whose image is not in the export (export with --media to keep it)")
		case count >= im.opt.EmojiLimit:
			w.Skip(did, fmt.Sprintf("custom emoji beyond the server's limit of %d (the most used are kept)", im.opt.EmojiLimit))
		default:
			rec := im.fileRecord("emoji", did, chat.TagEmojis, filepath.Base(ce.path), im.opt.Owner, snowTime(did))
			rec.ID = string(id)
			imageMetadata(rec, ce.path)
			rec.ObjectID = &id
			rec.UsedFor = "emoji"
			path := ce.path
			if err := w.File(ctx, rec, func() (io.ReadCloser, error) { return os.Open(path) }); err != nil {
				w.Skip(did, "custom emoji image unreadable")
				break
			}
			w.Emoji(&chat.Emoji{ID: id, Parent: chat.EmojiParent{Type: chat.EmojiParentServer, ID: im.server},
				CreatorID: im.opt.Owner, Name: uniqueName(emojiName(ce.e.Name), names),
				Animated: ce.e.IsAnimated || rec.ContentType == "image/gif"})
			count++
		}
		if err := w.Next(ctx); err != nil {
			return err
		}
	}
	return w.Close(ctx)
}

// inlineEmoji writes the custom emoji content uses (":name:" in the
// export) as Ermine does, ":ID:", for those the server holds; the
// others stay as the export wrote them.
func (im *importState) inlineEmoji(content string, inline []Emoji) string {
	for _, e := range inline {
		if id, ok := im.emojiIDs[e.ID]; ok && e.Name != "" {
			content = strings.ReplaceAll(content, ":"+e.Name+":", ":"+string(id)+":")
		}
	}
	return content
}

// emojiName makes a Discord emoji name an Ermine one: lower case
// letters, digits and "_" (a run of other characters becomes one "_"),
// at most 32 characters, "emoji" when nothing is left.
func emojiName(s string) string {
	var b strings.Builder
	replaced := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
			replaced = false
			continue
		}
		if !replaced {
			b.WriteByte('_')
			replaced = true
		}
	}
	n := strings.Trim(b.String(), "_")
	if len(n) > 32 {
		n = strings.TrimRight(n[:32], "_")
	}
	if n == "" {
		n = "emoji"
	}
	return n
}

// uniqueName returns base, or base with "_2", "_3"... when taken holds
// it, within 32 characters, and adds the result to taken.
func uniqueName(base string, taken map[string]bool) string {
	name := base
	for n := 2; taken[name]; n++ {
		suffix := "_" + strconv.Itoa(n)
		name = base[:min(len(base), 32-len(suffix))] + suffix
	}
	taken[name] = true
	return name
}
