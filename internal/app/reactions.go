package app

import (
	"context"
	"errors"
	"slices"

	"ermine/internal/app/emoji"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// checkEmoji checks that e may be used as a reaction: the id of any
// custom emoji that exists (detached ones included; a well-formed id of
// none is NotFound) or a Unicode emoji of the bundled list (anything
// else is InvalidOperation).
func (a *App) checkEmoji(ctx context.Context, e string) error {
	if id := chat.ID(e); id.Valid() {
		_, err := a.store.FetchEmoji(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return chat.ErrNotFound
		}
		return dbError("fetch emoji", err)
	}
	if emoji.IsUnicode(e) {
		return nil
	}
	return chat.ErrInvalidOperation
}

// checkExternalEmojis requires UseExternalEmojis when a message or
// reaction in a server channel uses a custom emoji of another server (as
// the reference's branch feat/block-emojis does for messages; Ermine
// holds reactions to it too). Detached emoji, Unicode emoji, unknown ids
// and channels outside servers need nothing; the emoji are looked up
// only when the flag is missing.
func (a *App) checkExternalEmojis(ctx context.Context, acc *channelAccess, ids []chat.ID) error {
	if acc.server == nil || acc.perms.Has(perm.UseExternalEmojis) {
		return nil
	}
	for _, id := range ids {
		if !id.Valid() {
			continue
		}
		e, err := a.store.FetchEmoji(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return dbError("fetch emoji", err)
		}
		if e.Parent.Type == "Server" && e.Parent.ID != acc.server.ID {
			return perm.Require(acc.perms, perm.UseExternalEmojis)
		}
	}
	return nil
}

// ReactMessage adds the caller's reaction to a message
// (PUT /channels/{target}/messages/{msg}/reactions/{emoji}); it needs
// React. A message holds at most MessageReactions distinct emoji, and
// only its listed ones when it restricts reactions. MessageReact is sent
// even when the caller had already reacted so.
func (a *App) ReactMessage(ctx context.Context, c *Caller, channel, id chat.ID, e string) error {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return err
	}
	if err := perm.Require(acc.perms, perm.React); err != nil {
		return err
	}
	if err := a.checkEmoji(ctx, e); err != nil {
		return err
	}
	if err := a.checkExternalEmojis(ctx, acc, []chat.ID{chat.ID(e)}); err != nil {
		return err
	}
	topic := event.Of(acc.ch.ID)
	err = a.store.InTx(ctx, func(tx store.Store) error {
		m, err := visibleMessage(ctx, tx, acc.ch.ID, id, c.ID())
		if err == nil {
			topic = messageTopic(m)
		}
		if err != nil {
			return err
		}
		if in := m.Interactions; in != nil && in.RestrictReactions && !slices.Contains(in.Reactions, e) {
			return chat.ErrInvalidOperation
		}
		users, exists := m.Reactions[e]
		if !exists && len(m.Reactions) >= a.settings.Limits.MessageReactions {
			return chat.ErrInvalidOperation
		}
		if slices.Contains(users, c.ID()) {
			return nil
		}
		if m.Reactions == nil {
			m.Reactions = map[string][]chat.ID{}
		}
		m.Reactions[e] = append(users, c.ID())
		return dbError("update message", tx.UpdateMessage(ctx, m))
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.MessageReactEvent{Type: chat.EvMessageReact, ID: id,
		ChannelID: acc.ch.ID, UserID: c.ID(), EmojiID: e}, topic)
	return nil
}

// UnreactMessage removes a reaction
// (DELETE /channels/{target}/messages/{msg}/reactions/{emoji}): the
// caller's own with React, another user's (user) or every user's of that
// emoji (removeAll) also with ManageMessages.
func (a *App) UnreactMessage(ctx context.Context, c *Caller, channel, id chat.ID, e string, user chat.ID, removeAll bool) error {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return err
	}
	if err := perm.Require(acc.perms, perm.React); err != nil {
		return err
	}
	if user == "" {
		user = c.ID()
	}
	if removeAll || user != c.ID() {
		if err := perm.Require(acc.perms, perm.ManageMessages); err != nil {
			return err
		}
	}
	topic := event.Of(acc.ch.ID)
	err = a.store.InTx(ctx, func(tx store.Store) error {
		m, err := visibleMessage(ctx, tx, acc.ch.ID, id, c.ID())
		if err == nil {
			topic = messageTopic(m)
		}
		if err != nil {
			return err
		}
		users, ok := m.Reactions[e]
		if !ok {
			return nil
		}
		if removeAll {
			delete(m.Reactions, e)
		} else {
			i := slices.Index(users, user)
			if i < 0 {
				return nil
			}
			if users = slices.Delete(users, i, i+1); len(users) == 0 {
				delete(m.Reactions, e)
			} else {
				m.Reactions[e] = users
			}
		}
		return dbError("update message", tx.UpdateMessage(ctx, m))
	})
	if err != nil {
		return err
	}
	if removeAll {
		a.publish(ctx, chat.MessageRemoveReactionEvent{Type: chat.EvMessageRemoveReaction,
			ID: id, ChannelID: acc.ch.ID, EmojiID: e}, topic)
	} else {
		a.publish(ctx, chat.MessageReactEvent{Type: chat.EvMessageUnreact, ID: id,
			ChannelID: acc.ch.ID, UserID: user, EmojiID: e}, topic)
	}
	return nil
}

// ClearReactions removes every reaction of a message
// (DELETE /channels/{target}/messages/{msg}/reactions); it needs
// ManageMessages.
func (a *App) ClearReactions(ctx context.Context, c *Caller, channel, id chat.ID) error {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return err
	}
	if err := perm.Require(acc.perms, perm.ManageMessages); err != nil {
		return err
	}
	topic := event.Of(acc.ch.ID)
	err = a.store.InTx(ctx, func(tx store.Store) error {
		m, err := visibleMessage(ctx, tx, acc.ch.ID, id, c.ID())
		if err == nil {
			topic = messageTopic(m)
		}
		if err != nil {
			return err
		}
		m.Reactions = nil
		return dbError("update message", tx.UpdateMessage(ctx, m))
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.MessageUpdateEvent{Type: chat.EvMessageUpdate, ID: id, Channel: acc.ch.ID,
		Data: chat.Partial{"reactions": map[string][]chat.ID{}}, Clear: []string{}}, topic)
	return nil
}
