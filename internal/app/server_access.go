package app

import (
	"context"
	"errors"
	"math"
	"time"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// access is what a use case knows about its caller on one server: the
// server, the caller's membership and what it holds there. Use cases that
// change a server load it through the transaction's store, so the facts
// they decide on are the ones they write against.
type access struct {
	user   *chat.User
	server *chat.Server
	member *chat.Member // nil for a privileged user who is not a member
	perms  perm.Set
	now    time.Time
}

// serverAccess loads server id and the caller's membership through st.
// Non-members get NotFound (the server's existence is not revealed);
// privileged users pass without a membership.
func (a *App) serverAccess(ctx context.Context, st store.Store, u *chat.User, id chat.ID) (*access, error) {
	s, err := st.FetchServer(ctx, id)
	if err != nil {
		return nil, lookupError("fetch server", err)
	}
	m, err := st.FetchMember(ctx, id, u.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if !u.Privileged {
			return nil, chat.ErrNotFound
		}
		m = nil
	case err != nil:
		return nil, dbError("fetch member", err)
	}
	now := a.now()
	p := perm.ForServer(perm.ServerFacts{Server: s, Member: m, UserID: u.ID, Privileged: u.Privileged, Now: now})
	return &access{user: u, server: s, member: m, perms: p, now: now}, nil
}

// require checks the caller holds want on the server.
func (x *access) require(want perm.Set) error { return perm.Require(x.perms, want) }

// owner reports whether the caller owns the server.
func (x *access) owner() bool { return x.server.Owner == x.user.ID }

// rank is the caller's ranking: the owner and privileged users rank above
// everyone, members by their best role, role-less members last.
func (x *access) rank() int64 {
	switch {
	case x.user.Privileged || x.owner():
		return math.MinInt64
	case x.member == nil:
		return math.MaxInt64
	}
	return perm.MemberRank(x.server, x.member)
}

// actOn checks the caller ranks strictly above target (NotElevated).
func (x *access) actOn(target *chat.Member) error {
	if !perm.CanActOn(x.rank(), perm.MemberRank(x.server, target)) {
		return chat.ErrNotElevated
	}
	return nil
}

// manageRole checks the caller ranks strictly above role (NotElevated).
func (x *access) manageRole(role chat.Role) error {
	if !perm.CanManageRole(x.rank(), role.Rank) {
		return chat.ErrNotElevated
	}
	return nil
}

// role returns the server's role id, or NotFound.
func (x *access) role(id chat.ID) (chat.Role, error) {
	r, ok := x.server.Roles[id]
	if !ok {
		return chat.Role{}, chat.ErrNotFound
	}
	return r, nil
}

// manageableRole returns the server's role id when the caller holds need
// in the server and ranks above the role (MissingPermission, NotFound or
// NotElevated otherwise).
func (x *access) manageableRole(id chat.ID, need perm.Set) (chat.Role, error) {
	if err := x.require(need); err != nil {
		return chat.Role{}, err
	}
	role, err := x.role(id)
	if err != nil {
		return chat.Role{}, err
	}
	return role, x.manageRole(role)
}

// channel returns what the caller holds in one of the server's channels.
func (x *access) channel(ch *chat.Channel) perm.Set {
	return perm.ForChannel(perm.ChannelFacts{Channel: ch, Server: x.server, Member: x.member,
		UserID: x.user.ID, Privileged: x.user.Privileged, Now: x.now})
}

// serverChannel loads a channel of the server through st and checks the
// caller can see it (else NotFound); it returns what they hold there.
func (x *access) serverChannel(ctx context.Context, st store.Store, id chat.ID) (*chat.Channel, perm.Set, error) {
	ch, err := st.FetchChannel(ctx, id)
	if err != nil {
		return nil, 0, lookupError("fetch channel", err)
	}
	if ch.Server != x.server.ID {
		return nil, 0, chat.ErrNotFound
	}
	p := x.channel(ch)
	if !p.Has(perm.ViewChannel) {
		return nil, 0, chat.ErrNotFound
	}
	return ch, p, nil
}

// visibleChannels lists the server's channels the caller can see, in the
// server's channel order.
func (a *App) visibleChannels(ctx context.Context, st store.Store, x *access) ([]*chat.Channel, error) {
	all, err := st.FetchServerChannels(ctx, x.server.ID)
	if err != nil {
		return nil, dbError("fetch server channels", err)
	}
	byID := make(map[chat.ID]*chat.Channel, len(all))
	for _, c := range all {
		byID[c.ID] = c
	}
	out := make([]*chat.Channel, 0, len(all))
	for _, id := range x.server.Channels {
		if c, ok := byID[id]; ok && x.channel(c).Has(perm.ViewChannel) {
			out = append(out, c)
		}
	}
	return out, nil
}

// lookupError maps a store miss to NotFound and wraps other failures.
func lookupError(op string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return chat.ErrNotFound.Wrap(err)
	}
	return dbError(op, err)
}

// checkServerLimit refuses a user who is already in as many servers as
// their limit allows.
func (a *App) checkServerLimit(ctx context.Context, st store.Store, u *chat.User) error {
	ms, err := st.FetchMemberships(ctx, u.ID)
	if err != nil {
		return dbError("fetch memberships", err)
	}
	if max := a.settings.Limits.For(u.ID, a.now()).Servers; len(ms) >= max {
		return chat.ErrTooManyServers(max)
	}
	return nil
}

// Uses of an upload, recorded in its UsedFor.
const (
	usedForServerIcon   = "server_icon"
	usedForServerBanner = "server_banner"
	usedForChannelIcon  = "channel_icon"
	usedForMemberAvatar = "member_avatar"
	usedForEmoji        = "emoji"
	usedForRoleIcon     = "role_icon"
)

// clearList returns the removed fields that were not set again by the same
// edit, in the order given and without repeats.
func clearList(removed []string, set chat.Partial, wire map[string]string) []string {
	out := []string{}
	for _, f := range removed {
		if _, again := set[wire[f]]; again {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == f
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}
