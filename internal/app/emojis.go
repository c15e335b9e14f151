package app

import (
	"context"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// CreateEmoji makes the unused upload id (tag emojis) a custom emoji of a
// server (ManageCustomisation), up to the per-server emoji limit.
func (a *App) CreateEmoji(ctx context.Context, c *Caller, id chat.ID, data chat.EmojiCreate) (*chat.Emoji, error) {
	if data.Parent.Type != chat.EmojiParentServer {
		return nil, chat.ErrInvalidOperation // emoji are created in a server
	}
	sid := data.Parent.ID
	var e *chat.Emoji
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, sid)
		if err != nil {
			return err
		}
		if err := x.require(perm.ManageCustomisation); err != nil {
			return err
		}
		existing, err := st.FetchServerEmojis(ctx, []chat.ID{sid})
		if err != nil {
			return dbError("fetch emojis", err)
		}
		if max := a.limits.ServerEmoji; len(existing) >= max {
			return chat.ErrTooManyEmoji(max)
		}
		f, err := useFile(ctx, st, string(id), chat.TagEmojis, usedForEmoji, id)
		if err != nil {
			return err
		}
		e = &chat.Emoji{ID: id, Parent: chat.EmojiParent{Type: chat.EmojiParentServer, ID: sid},
			CreatorID: c.ID(), Name: data.Name, Animated: f.ContentType == "image/gif", NSFW: data.NSFW}
		return dbError("insert emoji", st.InsertEmoji(ctx, e))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.EvEmojiCreate, chat.EmojiCreateEvent{Type: chat.EvEmojiCreate, Emoji: e}, event.Of(sid))
	return e, nil
}

// FetchEmoji returns any emoji, detached ones included, to anyone.
func (a *App) FetchEmoji(ctx context.Context, id chat.ID) (*chat.Emoji, error) {
	e, err := a.store.FetchEmoji(ctx, id)
	if err != nil {
		return nil, lookupError("fetch emoji", err)
	}
	return e, nil
}

// DeleteEmoji deletes an emoji: its creator may, and so may whoever holds
// ManageCustomisation on its server.
func (a *App) DeleteEmoji(ctx context.Context, c *Caller, id chat.ID) error {
	e, err := a.store.FetchEmoji(ctx, id)
	if err != nil {
		return lookupError("fetch emoji", err)
	}
	if e.CreatorID != c.ID() {
		if e.Parent.Type != chat.EmojiParentServer {
			return chat.ErrNotFound
		}
		x, err := a.serverAccess(ctx, a.store, c.User, e.Parent.ID)
		if err != nil {
			return err
		}
		if err := x.require(perm.ManageCustomisation); err != nil {
			return err
		}
	}
	if err := a.store.DeleteEmoji(ctx, id); err != nil {
		return lookupError("delete emoji", err)
	}
	if e.Parent.Type == chat.EmojiParentServer {
		a.publish(ctx, chat.EvEmojiDelete, chat.IDEvent{Type: chat.EvEmojiDelete, ID: id}, event.Of(e.Parent.ID))
	}
	return nil
}

// FetchServerEmojis lists a server's emoji for its members.
func (a *App) FetchServerEmojis(ctx context.Context, c *Caller, id chat.ID) ([]*chat.Emoji, error) {
	if _, err := a.serverAccess(ctx, a.store, c.User, id); err != nil {
		return nil, err
	}
	list, err := a.store.FetchServerEmojis(ctx, []chat.ID{id})
	if err != nil {
		return nil, dbError("fetch emojis", err)
	}
	if list == nil {
		list = []*chat.Emoji{}
	}
	return list, nil
}
