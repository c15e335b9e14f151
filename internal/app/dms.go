package app

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// FetchDMs lists the caller's private channels: their Saved Messages,
// the direct messages open on their side (active) and their groups.
func (a *App) FetchDMs(ctx context.Context, c *Caller) ([]*chat.Channel, error) {
	chans, err := a.store.FetchPrivateChannels(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch channels", err)
	}
	out := make([]*chat.Channel, 0, len(chans))
	for _, ch := range chans {
		if ch.ChannelType == chat.ChannelDirectMessage && (ch.Active == nil || !*ch.Active) {
			continue
		}
		out = append(out, ch)
	}
	return out, nil
}

// OpenDM returns the direct message between the caller and a user,
// creating it when there is none; the caller's own id gives their Saved
// Messages, created on first use without an event. A new direct message
// needs the SendMessage user permission (friends, or a bot with a mutual
// connection) and is announced to both users with ChannelCreate. Opening
// an existing one changes nothing.
func (a *App) OpenDM(ctx context.Context, c *Caller, id chat.ID) (*chat.Channel, error) {
	id = self(c, id)
	if id == c.ID() {
		return a.savedMessages(ctx, c.ID())
	}
	target, err := a.fetchUser(ctx, id)
	if err != nil {
		return nil, err
	}
	ch, err := a.store.FetchDirectMessage(ctx, c.ID(), id)
	if err == nil {
		return ch, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, dbError("fetch direct message", err)
	}
	p, err := a.userPermissions(ctx, c.User, target)
	if err != nil {
		return nil, err
	}
	if err := perm.RequireUser(p, perm.UserSendMessage); err != nil {
		return nil, err
	}
	inactive := false
	ch = &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: chat.NewID(), Active: &inactive,
		Recipients: []chat.ID{c.ID(), id}}
	if err := a.store.InsertChannel(ctx, ch); err != nil {
		if errors.Is(err, store.ErrConflict) {
			// Opened by the other side at the same moment: use theirs.
			existing, ferr := a.store.FetchDirectMessage(ctx, c.ID(), id)
			return existing, dbError("fetch direct message", ferr)
		}
		return nil, dbError("insert channel", err)
	}
	a.publish(ctx, chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: ch},
		event.Private(c.ID()), event.Private(id))
	return ch, nil
}

// savedMessages returns a user's Saved Messages, creating it the first
// time.
func (a *App) savedMessages(ctx context.Context, user chat.ID) (*chat.Channel, error) {
	ch, err := a.store.FetchSavedMessages(ctx, user)
	if err == nil {
		return ch, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, dbError("fetch saved messages", err)
	}
	ch = &chat.Channel{ChannelType: chat.ChannelSavedMessages, ID: chat.NewID(), User: user}
	if err := a.store.InsertChannel(ctx, ch); err != nil {
		if errors.Is(err, store.ErrConflict) {
			existing, ferr := a.store.FetchSavedMessages(ctx, user)
			return existing, dbError("fetch saved messages", ferr)
		}
		return nil, dbError("insert channel", err)
	}
	return ch, nil
}

// activateDirectMessage marks a direct message active, as its first
// message (after opening or closing it) does, and tells both participants
// with ChannelUpdate {active: true} so their lists of conversations show
// it. Once the message is stored the send has succeeded, so a failure here
// is only logged.
func (a *App) activateDirectMessage(ctx context.Context, id chat.ID) {
	changed := false
	err := a.store.InTx(ctx, func(st store.Store) error {
		dm, err := st.FetchChannel(ctx, id)
		if err != nil {
			return dbError("fetch channel", notFound(err))
		}
		if dm.Active != nil && *dm.Active {
			return nil
		}
		active := true
		dm.Active = &active
		changed = true
		return dbError("update channel", st.UpdateChannel(ctx, dm))
	})
	if err != nil {
		a.log.ErrorContext(ctx, "activate direct message", "channel", id, "err", err)
		return
	}
	if changed {
		a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: id,
			Data: chat.Partial{"active": true}, Clear: []string{}}, event.Of(id))
	}
}
