package app

import (
	"context"
	"errors"
	"fmt"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// ServerView is what a user sees of one server: the gateway keeps a
// connection's subscriptions to the server's channels equal to Channels.
type ServerView struct {
	// Server is the server, nil when it does not exist (any more).
	Server *chat.Server
	// Member is the user's membership, nil when they are not a member.
	Member *chat.Member
	// Channels are the server's channels the user holds ViewChannel in,
	// oldest first; empty for non-members.
	Channels []*chat.Channel
}

// ViewServer returns what user sees of server now. A missing server or
// membership is not an error: the view is then empty.
func (a *App) ViewServer(ctx context.Context, user *chat.User, server chat.ID) (*ServerView, error) {
	s, err := a.store.FetchServer(ctx, server)
	if errors.Is(err, store.ErrNotFound) {
		return &ServerView{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fetch server %s: %w", server, err)
	}
	v := &ServerView{Server: s}
	m, err := a.store.FetchMember(ctx, server, user.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return v, nil
	case err != nil:
		return nil, fmt.Errorf("fetch member %s/%s: %w", server, user.ID, err)
	}
	v.Member = m
	channels, err := a.store.FetchServerChannels(ctx, server)
	if err != nil {
		return nil, fmt.Errorf("fetch channels of %s: %w", server, err)
	}
	v.Channels = a.viewableOf(user, s, m, channels)
	return v, nil
}

// ServerState is a server with its channels, as stored at one moment. The
// gateway loads it once per event that can change what members see, and
// asks VisibleChannels for each connected member.
type ServerState struct {
	// Server is nil when the server does not exist (any more).
	Server   *chat.Server
	Channels []*chat.Channel
}

// LoadServerState returns server and its channels as stored now.
func (a *App) LoadServerState(ctx context.Context, server chat.ID) (*ServerState, error) {
	s, err := a.store.FetchServer(ctx, server)
	if errors.Is(err, store.ErrNotFound) {
		return &ServerState{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fetch server %s: %w", server, err)
	}
	channels, err := a.store.FetchServerChannels(ctx, server)
	if err != nil {
		return nil, fmt.Errorf("fetch channels of %s: %w", server, err)
	}
	return &ServerState{Server: s, Channels: channels}, nil
}

// VisibleChannels returns the channels of st that user, a member holding
// roles, may view. It does no I/O. A member's timeout never hides a
// channel (timed-out members keep ViewChannel), so roles are all it needs
// of the membership.
func (a *App) VisibleChannels(user *chat.User, st *ServerState, roles []chat.ID) []*chat.Channel {
	if st == nil || st.Server == nil {
		return nil
	}
	m := &chat.Member{ID: chat.MemberID{Server: st.Server.ID, User: user.ID}, Roles: roles}
	return a.viewableOf(user, st.Server, m, st.Channels)
}

// viewableOf keeps the channels of s that the member may view.
func (a *App) viewableOf(user *chat.User, s *chat.Server, m *chat.Member, channels []*chat.Channel) []*chat.Channel {
	now := a.now()
	out := make([]*chat.Channel, 0, len(channels))
	for _, c := range channels {
		p := perm.ForChannel(perm.ChannelFacts{
			Channel: c, Server: s, Member: m, UserID: user.ID,
			Privileged: user.Privileged, Now: now,
		})
		if p.Has(perm.ViewChannel) {
			out = append(out, c)
		}
	}
	return out
}

// FollowsUser reports whether viewer's connections follow other's user
// topic: they have a relationship of any kind, or share a direct message
// or a group. (Server co-members are followed only through the server.)
func (a *App) FollowsUser(ctx context.Context, viewer, other chat.ID) (bool, error) {
	rel, err := a.store.FetchRelationship(ctx, viewer, other)
	if err != nil {
		return false, fmt.Errorf("fetch relationship: %w", err)
	}
	if rel != chat.RelationNone && rel != "" {
		return true, nil
	}
	channels, err := a.store.FetchPrivateChannels(ctx, viewer)
	if err != nil {
		return false, fmt.Errorf("fetch private channels: %w", err)
	}
	for _, c := range channels {
		if c.ChannelType != chat.ChannelSavedMessages && c.HasRecipient(other) {
			return true, nil
		}
	}
	return false, nil
}
