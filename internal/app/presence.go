package app

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// looksOnline reports whether others should see u online: connected
// (to any node) and not Invisible.
func (a *App) looksOnline(u *chat.User) bool {
	return !isInvisible(u) && a.online.Online(u.ID)
}

// isInvisible reports whether u chose to look offline.
func isInvisible(u *chat.User) bool {
	return u.Status != nil && u.Status.Presence != nil && *u.Status.Presence == chat.PresenceInvisible
}

// UserConnected records an authenticated events connection of user, made
// after its Ready was sent. On the user's first connection, unless they
// are Invisible, it tells every server they belong to and everyone
// following them (their user topic) that they are online.
func (a *App) UserConnected(ctx context.Context, user *chat.User) {
	if a.online.Connect(ctx, user.ID) && !isInvisible(user) {
		a.publishPresence(ctx, user.ID, true)
	}
}

// UserDisconnected records that an events connection of user closed. When
// it was their last one, unless they are Invisible now, it announces them
// offline the way UserConnected announced them online.
func (a *App) UserDisconnected(ctx context.Context, user chat.ID) {
	if !a.online.Disconnect(ctx, user) {
		return
	}
	a.announcePresence(ctx, []chat.ID{user}, false)
}

// announcePresence tells others that users came online or went offline
// without a connection of theirs opening or closing on this node: the
// presence tracker calls it when another node's leases ran out (that
// node died). Invisible users are not announced.
func (a *App) announcePresence(ctx context.Context, users []chat.ID, online bool) {
	for _, user := range users {
		u, err := a.store.FetchUser(ctx, user)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			a.log.ErrorContext(ctx, "fetch user for presence", "user", user, "err", err)
			continue
		}
		if !isInvisible(u) {
			a.publishPresence(ctx, user, online)
		}
	}
}

// publishPresence sends UserUpdate{online} to each of the user's servers
// and to the user's own topic.
func (a *App) publishPresence(ctx context.Context, user chat.ID, online bool) {
	members, err := a.store.FetchMemberships(ctx, user)
	if err != nil {
		a.log.ErrorContext(ctx, "fetch memberships for presence", "user", user, "err", err)
	}
	topics := make([]string, 0, len(members)+1)
	for _, m := range members {
		topics = append(topics, event.Of(m.ID.Server))
	}
	topics = append(topics, event.Of(user))
	eventID := string(chat.NewID())
	a.publish(ctx, chat.UserUpdateEvent{
		Type:  chat.EvUserUpdate,
		ID:    user,
		Data:  chat.Partial{"online": online},
		Clear: []string{},
		// The gateway de-duplicates by event_id (a connection may follow
		// several of the topics) and sends it as null.
		EventID: &eventID,
	}, topics...)
}
