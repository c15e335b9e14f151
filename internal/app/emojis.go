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
		if max := a.settings.Limits.ServerEmoji; len(existing) >= max {
			return chat.ErrTooManyEmoji(max)
		}
		f, err := useFile(ctx, st, string(id), chat.TagEmojis, usedForEmoji, id)
		if err != nil {
			return err
		}
		e = &chat.Emoji{ID: id, Parent: chat.EmojiParent{Type: chat.EmojiParentServer, ID: sid},
			CreatorID: c.ID(), Name: data.Name, Animated: f.ContentType == "image/gif", NSFW: data.NSFW}
		if err := a.audit(ctx, st, c, sid, chat.AuditAction{Type: chat.AuditEmojiCreate, Emoji: id,
			Name: named(e.Name)}); err != nil {
			return err
		}
		return dbError("insert emoji", st.InsertEmoji(ctx, e))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.EmojiCreateEvent{Type: chat.EvEmojiCreate, Emoji: e}, event.Of(sid))
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

// EditEmoji renames a server's emoji (ManageCustomisation on that
// server); members hear EmojiUpdate and the audit log records EmojiEdit.
// Detached emoji belong to no server and cannot be renamed.
func (a *App) EditEmoji(ctx context.Context, c *Caller, id chat.ID, data chat.EmojiEdit) (*chat.Emoji, error) {
	var e *chat.Emoji
	err := a.store.InTx(ctx, func(st store.Store) error {
		var err error
		if e, err = st.FetchEmoji(ctx, id); err != nil {
			return lookupError("fetch emoji", err)
		}
		if e.Parent.Type != chat.EmojiParentServer {
			return chat.ErrNotFound
		}
		x, err := a.serverAccess(ctx, st, c.User, e.Parent.ID)
		if err != nil {
			return err
		}
		if err := x.require(perm.ManageCustomisation); err != nil {
			return err
		}
		e.Name = data.Name
		if err := a.audit(ctx, st, c, e.Parent.ID, chat.AuditAction{Type: chat.AuditEmojiEdit, Emoji: id,
			Name: named(e.Name)}); err != nil {
			return err
		}
		return lookupError("update emoji", st.UpdateEmoji(ctx, e))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.EmojiUpdateEvent{Type: chat.EvEmojiUpdate, ID: id,
		Data: chat.Partial{"name": e.Name}}, event.Of(e.Parent.ID))
	return e, nil
}

// DeleteEmoji deletes an emoji: its creator may, and so may whoever holds
// ManageCustomisation on its server. Deleting a server's emoji is
// recorded in its audit log.
func (a *App) DeleteEmoji(ctx context.Context, c *Caller, id chat.ID) error {
	var e *chat.Emoji
	err := a.store.InTx(ctx, func(st store.Store) error {
		var err error
		if e, err = st.FetchEmoji(ctx, id); err != nil {
			return lookupError("fetch emoji", err)
		}
		if e.CreatorID != c.ID() {
			if e.Parent.Type != chat.EmojiParentServer {
				return chat.ErrNotFound
			}
			x, err := a.serverAccess(ctx, st, c.User, e.Parent.ID)
			if err != nil {
				return err
			}
			if err := x.require(perm.ManageCustomisation); err != nil {
				return err
			}
		}
		if e.Parent.Type == chat.EmojiParentServer {
			if err := a.audit(ctx, st, c, e.Parent.ID, chat.AuditAction{Type: chat.AuditEmojiDelete, Emoji: id,
				Name: named(e.Name)}); err != nil {
				return err
			}
		}
		return lookupError("delete emoji", st.DeleteEmoji(ctx, id))
	})
	if err != nil {
		return err
	}
	if e.Parent.Type == chat.EmojiParentServer {
		a.publish(ctx, chat.IDEvent{Type: chat.EvEmojiDelete, ID: id}, event.Of(e.Parent.ID))
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
