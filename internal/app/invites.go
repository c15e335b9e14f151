package app

import (
	"context"
	"crypto/rand"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// inviteAlphabet is digits and letters without I, L, O and U in either
// case: 54 characters that cannot be misread for one another.
const inviteAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz"

// inviteCodeLength is the length of invite codes.
const inviteCodeLength = 8

// newInviteCode returns a random invite code. Each character is drawn
// without modulo bias by rejecting bytes above the largest multiple of 54.
func newInviteCode() string {
	const limit = 256 - 256%len(inviteAlphabet)
	out := make([]byte, 0, inviteCodeLength)
	var buf [16]byte
	for len(out) < inviteCodeLength {
		if _, err := rand.Read(buf[:]); err != nil {
			panic("app: crypto/rand failed: " + err.Error())
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < inviteCodeLength {
				out = append(out, inviteAlphabet[int(b)%len(inviteAlphabet)])
			}
		}
	}
	return string(out)
}

// CreateInvite creates an invite code to a server channel or a group
// (InviteOthers there). Bots may not.
func (a *App) CreateInvite(ctx context.Context, c *Caller, channel chat.ID) (*chat.Invite, error) {
	if c.IsBot() {
		return nil, chat.ErrIsBot
	}
	ch, p, err := a.requireChannel(ctx, c.User, channel)
	if err != nil {
		return nil, err
	}
	inv := &chat.Invite{Creator: c.ID(), Channel: ch.ID}
	switch {
	case ch.IsServerChannel():
		inv.Type, inv.Server = chat.InviteServer, ch.Server
	case ch.ChannelType == chat.ChannelGroup:
		inv.Type = chat.InviteGroup
	default:
		return nil, chat.ErrInvalidOperation
	}
	if err := perm.Require(p, perm.InviteOthers); err != nil {
		return nil, err
	}
	// 54^8 codes make a clash rare; retry the few that happen.
	for range 5 {
		inv.Code = newInviteCode()
		err = a.store.InTx(ctx, func(st store.Store) error {
			if err := st.InsertInvite(ctx, inv); err != nil {
				return err
			}
			if inv.Type != chat.InviteServer {
				return nil
			}
			return a.audit(ctx, st, c, inv.Server, chat.AuditAction{Type: chat.AuditInviteCreate,
				Invite: inv.Code, Channel: inv.Channel})
		})
		if !errors.Is(err, store.ErrConflict) {
			break
		}
	}
	if err != nil {
		return nil, dbError("insert invite", err)
	}
	return inv, nil
}

// resolveInvite finds an invite by code. The id of a discoverable server
// works as a code too: it invites to the server's first channel, from its
// owner.
func (a *App) resolveInvite(ctx context.Context, code string) (*chat.Invite, error) {
	inv, err := a.store.FetchInvite(ctx, code)
	if err == nil {
		return inv, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, dbError("fetch invite", err)
	}
	if id := chat.ID(code); id.Valid() {
		s, err := a.store.FetchServer(ctx, id)
		if err == nil && s.Discoverable && len(s.Channels) > 0 {
			return &chat.Invite{Type: chat.InviteServer, Code: code, Server: s.ID, Creator: s.Owner,
				Channel: s.Channels[0]}, nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, dbError("fetch server", err)
		}
	}
	return nil, chat.ErrNotFound
}

// FetchInvite describes an invite to anyone, signed in or not.
func (a *App) FetchInvite(ctx context.Context, code string) (*chat.InvitePreview, error) {
	inv, err := a.resolveInvite(ctx, code)
	if err != nil {
		return nil, err
	}
	ch, err := a.store.FetchChannel(ctx, inv.Channel)
	if err != nil {
		return nil, lookupError("fetch channel", err)
	}
	out := &chat.InvitePreview{Type: inv.Type, Code: inv.Code, ChannelID: ch.ID, ChannelName: ch.Name,
		ChannelDescription: ch.Description, UserName: "Deleted User"}
	creator, err := a.store.FetchUser(ctx, inv.Creator)
	switch {
	case err == nil:
		out.UserName, out.UserAvatar = creator.Username, creator.Avatar
	case !errors.Is(err, store.ErrNotFound):
		return nil, dbError("fetch user", err)
	}
	if inv.Type != chat.InviteServer {
		return out, nil
	}
	s, err := a.store.FetchServer(ctx, inv.Server)
	if err != nil {
		return nil, lookupError("fetch server", err)
	}
	n, err := a.store.CountMembers(ctx, s.ID)
	if err != nil {
		return nil, dbError("count members", err)
	}
	count := int64(n)
	out.ServerID, out.ServerName, out.ServerIcon, out.ServerBanner = s.ID, s.Name, s.Icon, s.Banner
	out.MemberCount = &count
	if s.Flags != 0 {
		flags := s.Flags
		out.ServerFlags = &flags
	}
	return out, nil
}

// JoinInvite makes the caller join what an invite points to. Bots may not
// join through invites; banned users, members and users at their server
// limit are refused.
func (a *App) JoinInvite(ctx context.Context, c *Caller, code string) (*chat.InviteJoined, error) {
	if c.IsBot() {
		return nil, chat.ErrIsBot
	}
	inv, err := a.resolveInvite(ctx, code)
	if err != nil {
		return nil, err
	}
	// The server limit applies to group invites too.
	if err := a.checkServerLimit(ctx, a.store, c.User); err != nil {
		return nil, err
	}
	if inv.Type != chat.InviteServer {
		ch, err := a.store.FetchChannel(ctx, inv.Channel)
		if err != nil {
			return nil, lookupError("fetch channel", err)
		}
		group, users, err := a.joinGroupInvite(ctx, c, ch)
		if err != nil {
			return nil, err
		}
		return &chat.InviteJoined{Type: chat.InviteGroup, Channel: group, Users: users}, nil
	}
	x, err := a.joinServer(ctx, c.User, inv.Server)
	if err != nil {
		return nil, err
	}
	channels, err := a.visibleChannels(ctx, a.store, x)
	if err != nil {
		return nil, err
	}
	return &chat.InviteJoined{Type: chat.InviteServer, Server: x.server, Channels: channels}, nil
}

// joinServer adds u to a server and announces it: ServerMemberJoin to the
// server, ServerCreate (with the channels u can see) to u, and the
// user_joined system message.
func (a *App) joinServer(ctx context.Context, u *chat.User, id chat.ID) (*access, error) {
	var x *access
	err := a.store.InTx(ctx, func(st store.Store) error {
		s, err := st.FetchServer(ctx, id)
		if err != nil {
			return lookupError("fetch server", err)
		}
		if _, err := st.FetchBan(ctx, id, u.ID); err == nil {
			return chat.ErrBanned
		} else if !errors.Is(err, store.ErrNotFound) {
			return dbError("fetch ban", err)
		}
		if _, err := st.FetchMember(ctx, id, u.ID); err == nil {
			return chat.ErrAlreadyInServer
		} else if !errors.Is(err, store.ErrNotFound) {
			return dbError("fetch member", err)
		}
		if err := a.checkServerLimit(ctx, st, u); err != nil {
			return err
		}
		m := &chat.Member{ID: chat.MemberID{Server: id, User: u.ID}, JoinedAt: chat.TimeOf(a.now())}
		kept, err := st.TakeTimeout(ctx, id, u.ID)
		if err != nil {
			return dbError("take timeout", err)
		}
		if kept != nil && kept.After(a.now()) {
			m.Timeout = kept
		}
		if err := st.InsertMember(ctx, m); err != nil {
			return dbError("insert member", err)
		}
		now := a.now()
		x = &access{user: u, server: s, member: m, now: now,
			perms: perm.ForServer(perm.ServerFacts{Server: s, Member: m, UserID: u.ID, Now: now})}
		return nil
	})
	if err != nil {
		return nil, err
	}
	channels, err := a.visibleChannels(ctx, a.store, x)
	if err != nil {
		return nil, err
	}
	emojis, err := a.store.FetchServerEmojis(ctx, []chat.ID{id})
	if err != nil {
		return nil, dbError("fetch emojis", err)
	}
	if emojis == nil {
		emojis = []*chat.Emoji{}
	}
	a.announceJoin(ctx, x.server, x.member, channels, emojis)
	a.serverSystemMessage(ctx, x.server, slotJoined, chat.SystemMessage{Type: sysUserJoined, ID: u.ID})
	return x, nil
}

// DeleteInvite deletes an invite: its creator may, and so may whoever
// holds ManageServer on its server (ManageChannel in its group).
func (a *App) DeleteInvite(ctx context.Context, c *Caller, code string) error {
	inv, err := a.store.FetchInvite(ctx, code)
	if err != nil {
		return lookupError("fetch invite", err)
	}
	if inv.Creator != c.ID() {
		if inv.Type == chat.InviteServer {
			x, err := a.serverAccess(ctx, a.store, c.User, inv.Server)
			if err != nil {
				return err
			}
			if err := x.require(perm.ManageServer); err != nil {
				return err
			}
		} else {
			_, p, err := a.requireChannel(ctx, c.User, inv.Channel)
			if err != nil {
				return err
			}
			if err := perm.Require(p, perm.ManageChannel); err != nil {
				return err
			}
		}
	}
	return a.store.InTx(ctx, func(st store.Store) error {
		if err := lookupError("delete invite", st.DeleteInvite(ctx, code)); err != nil {
			return err
		}
		if inv.Type != chat.InviteServer {
			return nil
		}
		return a.audit(ctx, st, c, inv.Server, chat.AuditAction{Type: chat.AuditInviteDelete,
			Invite: inv.Code, Channel: inv.Channel})
	})
}

// FetchServerInvites lists a server's invites (ManageServer).
func (a *App) FetchServerInvites(ctx context.Context, c *Caller, id chat.ID) ([]*chat.Invite, error) {
	x, err := a.serverAccess(ctx, a.store, c.User, id)
	if err != nil {
		return nil, err
	}
	if err := x.require(perm.ManageServer); err != nil {
		return nil, err
	}
	list, err := a.store.FetchServerInvites(ctx, id)
	if err != nil {
		return nil, dbError("fetch invites", err)
	}
	if list == nil {
		list = []*chat.Invite{}
	}
	return list, nil
}
