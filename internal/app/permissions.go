package app

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// The helpers below gather the facts perm needs from the store. Every use
// case that checks a permission goes through them.

// serverPermissions returns what user holds in server, with their
// membership (nil when not a member).
func (a *App) serverPermissions(ctx context.Context, user *chat.User, server *chat.Server) (perm.Set, *chat.Member, error) {
	m, err := a.store.FetchMember(ctx, server.ID, user.ID)
	if errors.Is(err, store.ErrNotFound) {
		m = nil
	} else if err != nil {
		return 0, nil, dbError("fetch member", err)
	}
	p := perm.ForServer(perm.ServerFacts{Server: server, Member: m, UserID: user.ID,
		Privileged: user.Privileged, Now: a.now()})
	return p, m, nil
}

// channelPermissions returns what user holds in channel.
func (a *App) channelPermissions(ctx context.Context, user *chat.User, ch *chat.Channel) (perm.Set, error) {
	f := perm.ChannelFacts{Channel: ch, UserID: user.ID, Privileged: user.Privileged, Now: a.now()}
	switch {
	case ch.IsServerChannel():
		s, err := a.store.FetchServer(ctx, ch.Server)
		if err != nil {
			return 0, dbError("fetch server", err)
		}
		m, err := a.store.FetchMember(ctx, s.ID, user.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return 0, dbError("fetch member", err)
		}
		f.Server, f.Member = s, m
	case ch.ChannelType == chat.ChannelDirectMessage && ch.HasRecipient(user.ID):
		for _, other := range ch.Recipients {
			if other == user.ID {
				continue
			}
			peer, err := a.store.FetchUser(ctx, other)
			if errors.Is(err, store.ErrNotFound) {
				break
			}
			if err != nil {
				return 0, dbError("fetch user", err)
			}
			viewer, err := a.withRelations(ctx, user)
			if err != nil {
				return 0, err
			}
			f.Peer = perm.UserFactsOf(viewer, peer, true)
		}
	}
	return perm.ForChannel(f), nil
}

// requireChannel fetches a channel the user can see (ViewChannel), else
// NotFound, and returns it with the user's permissions in it.
func (a *App) requireChannel(ctx context.Context, user *chat.User, id chat.ID) (*chat.Channel, perm.Set, error) {
	ch, err := a.store.FetchChannel(ctx, id)
	if err != nil {
		return nil, 0, notFound(err)
	}
	p, err := a.channelPermissions(ctx, user, ch)
	if err != nil {
		return nil, 0, err
	}
	if !p.Has(perm.ViewChannel) {
		return nil, 0, chat.ErrNotFound
	}
	return ch, p, nil
}

// withRelations returns u with its Relations loaded (a copy when they
// were not).
func (a *App) withRelations(ctx context.Context, u *chat.User) (*chat.User, error) {
	if u.Relations != nil {
		return u, nil
	}
	rel, err := a.store.FetchRelationships(ctx, u.ID)
	if err != nil {
		return nil, dbError("fetch relationships", err)
	}
	c := *u
	c.Relations = rel
	if c.Relations == nil {
		c.Relations = []chat.Relationship{}
	}
	return &c, nil
}

// mutual reports whether two users share a server, a group or a direct
// message channel.
func (a *App) mutual(ctx context.Context, x, y chat.ID) (bool, error) {
	mx, err := a.store.FetchMemberships(ctx, x)
	if err != nil {
		return false, dbError("fetch memberships", err)
	}
	if len(mx) > 0 {
		my, err := a.store.FetchMemberships(ctx, y)
		if err != nil {
			return false, dbError("fetch memberships", err)
		}
		servers := make(map[chat.ID]bool, len(mx))
		for _, m := range mx {
			servers[m.ID.Server] = true
		}
		for _, m := range my {
			if servers[m.ID.Server] {
				return true, nil
			}
		}
	}
	chans, err := a.store.FetchPrivateChannels(ctx, x)
	if err != nil {
		return false, dbError("fetch channels", err)
	}
	for _, c := range chans {
		if c.ChannelType != chat.ChannelSavedMessages && c.HasRecipient(y) {
			return true, nil
		}
	}
	return false, nil
}

// userPermissions returns what viewer may do towards target (§3.4).
func (a *App) userPermissions(ctx context.Context, viewer, target *chat.User) (perm.UserSet, error) {
	v, err := a.withRelations(ctx, viewer)
	if err != nil {
		return 0, err
	}
	f := perm.UserFactsOf(v, target, false)
	if !f.Privileged && !f.Self && f.Relationship != chat.RelationFriend {
		if f.Mutual, err = a.mutual(ctx, viewer.ID, target.ID); err != nil {
			return 0, err
		}
	}
	return perm.ForUser(f), nil
}
