package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// memberList pairs members with their users as the viewer sees them,
// index by index. Members whose user is gone are left out.
func (a *App) memberList(ctx context.Context, viewer *chat.User, members []*chat.Member) (*chat.MemberList, error) {
	ids := make([]chat.ID, len(members))
	for i, m := range members {
		ids[i] = m.ID.User
	}
	users, err := a.store.FetchUsers(ctx, ids)
	if err != nil {
		return nil, dbError("fetch users", err)
	}
	byID := make(map[chat.ID]*chat.User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	v, err := a.withRelations(ctx, viewer)
	if err != nil {
		return nil, err
	}
	out := &chat.MemberList{Members: make([]*chat.Member, 0, len(members)), Users: make([]*chat.User, 0, len(members))}
	for _, m := range members {
		u, ok := byID[m.ID.User]
		if !ok {
			continue
		}
		seen, err := a.viewUser(ctx, v, u)
		if err != nil {
			return nil, err
		}
		out.Members = append(out.Members, m)
		out.Users = append(out.Users, seen)
	}
	return out, nil
}

// FetchMembers lists a server's members (ordered by user id) with their
// users; with excludeOffline only those online.
func (a *App) FetchMembers(ctx context.Context, c *Caller, id chat.ID, excludeOffline bool) (*chat.MemberList, error) {
	if _, err := a.serverAccess(ctx, a.store, c.User, id); err != nil {
		return nil, err
	}
	members, err := a.store.FetchMembers(ctx, id)
	if err != nil {
		return nil, dbError("fetch members", err)
	}
	if excludeOffline {
		members = slices.DeleteFunc(members, func(m *chat.Member) bool { return !a.online.Online(m.ID.User) })
	}
	list, err := a.memberList(ctx, c.User, members)
	if err != nil {
		return nil, err
	}
	if excludeOffline {
		// Invisible users count as offline.
		for i := len(list.Users) - 1; i >= 0; i-- {
			if !list.Users[i].Online {
				list.Users = slices.Delete(list.Users, i, i+1)
				list.Members = slices.Delete(list.Members, i, i+1)
			}
		}
	}
	return list, nil
}

// FetchMember returns a member of a server the caller is in, and with
// withRoles the roles that member holds.
func (a *App) FetchMember(ctx context.Context, c *Caller, id, user chat.ID, withRoles bool) (*chat.Member, map[chat.ID]chat.Role, error) {
	x, err := a.serverAccess(ctx, a.store, c.User, id)
	if err != nil {
		return nil, nil, err
	}
	m, err := a.store.FetchMember(ctx, id, user)
	if err != nil {
		return nil, nil, lookupError("fetch member", err)
	}
	if !withRoles {
		return m, nil, nil
	}
	roles := map[chat.ID]chat.Role{}
	for _, r := range m.Roles {
		if role, ok := x.server.Roles[r]; ok {
			roles[r] = role
		}
	}
	return m, roles, nil
}

// maxMemberQuery is the most members a name query returns.
const maxMemberQuery = 10

// QueryMembers finds up to ten members whose nickname (or, without one,
// username) contains query, shortest name first. The route is marked
// experimental: callers must say they know (experimental).
func (a *App) QueryMembers(ctx context.Context, c *Caller, id chat.ID, query string, experimental bool) (*chat.MemberList, error) {
	if !experimental {
		return nil, chat.ErrInvalidOperation
	}
	if _, err := a.serverAccess(ctx, a.store, c.User, id); err != nil {
		return nil, err
	}
	members, err := a.store.FetchMembers(ctx, id)
	if err != nil {
		return nil, dbError("fetch members", err)
	}
	all, err := a.memberList(ctx, c.User, members)
	if err != nil {
		return nil, err
	}
	type hit struct {
		name string
		i    int
	}
	var hits []hit
	for i, m := range all.Members {
		name := all.Users[i].Username
		if m.Nickname != nil {
			name = *m.Nickname
		}
		if strings.Contains(name, query) {
			hits = append(hits, hit{name, i})
		}
	}
	slices.SortStableFunc(hits, func(p, q hit) int {
		return utf8.RuneCountInString(p.name) - utf8.RuneCountInString(q.name)
	})
	out := &chat.MemberList{Members: []*chat.Member{}, Users: []*chat.User{}}
	for _, h := range hits[:min(len(hits), maxMemberQuery)] {
		out.Members = append(out.Members, all.Members[h.i])
		out.Users = append(out.Users, all.Users[h.i])
	}
	return out, nil
}

// memberWire maps the removable fields of a member to their wire names.
var memberWire = map[string]string{
	chat.FieldNickname: "nickname", chat.FieldAvatar: "avatar", chat.FieldRoles: "roles",
	chat.FieldTimeout: "timeout", chat.FieldCanReceive: "can_receive", chat.FieldCanPublish: "can_publish",
	chat.FieldPronouns: "pronouns",
}

// EditMember changes a member. One's own nickname needs ChangeNickname and
// one's own avatar ChangeAvatar; others' nicknames need ManageNicknames,
// removing their avatars RemoveAvatars; roles need AssignRoles (and each
// added role must rank below the caller); timeouts need TimeoutMembers and
// never apply to oneself. Pronouns follow the nickname's rules. Acting on
// another member needs a better rank, and is recorded in the audit log
// (MemberEdit).
func (a *App) EditMember(ctx context.Context, c *Caller, id, user chat.ID, data chat.MemberEdit) (*chat.Member, error) {
	var (
		m       *chat.Member
		changed = chat.Partial{}
		clear   []string
	)
	self := user == c.ID()
	if self && (data.Timeout != nil || data.Removes(chat.FieldTimeout)) {
		return nil, chat.ErrCannotTimeoutYourself
	}
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		if m, err = st.FetchMember(ctx, id, user); err != nil {
			return lookupError("fetch member", err)
		}
		if err := x.checkMemberEdit(m, self, data); err != nil {
			return err
		}
		for _, f := range data.Remove {
			switch f {
			case chat.FieldNickname:
				m.Nickname = nil
			case chat.FieldAvatar:
				if err := dropFile(ctx, st, m.Avatar); err != nil {
					return err
				}
				m.Avatar = nil
			case chat.FieldRoles:
				m.Roles = nil
			case chat.FieldTimeout:
				m.Timeout = nil
			case chat.FieldCanReceive:
				m.CanReceive = nil
			case chat.FieldCanPublish:
				m.CanPublish = nil
			case chat.FieldPronouns:
				m.Pronouns = nil
			}
		}
		if data.Pronouns != nil {
			p := *data.Pronouns
			m.Pronouns = &p
			changed["pronouns"] = p
		}
		if data.Nickname != nil {
			nick := *data.Nickname
			m.Nickname = &nick
			changed["nickname"] = nick
		}
		if data.Avatar != nil {
			f, err := replaceFile(ctx, st, *data.Avatar, chat.TagAvatars, usedForMemberAvatar, user, m.Avatar)
			if err != nil {
				return err
			}
			m.Avatar = f
			changed["avatar"] = f
		}
		if data.Roles != nil {
			roles := []chat.ID{}
			for _, r := range *data.Roles {
				if !slices.Contains(roles, r) {
					roles = append(roles, r)
				}
			}
			m.Roles = roles
			changed["roles"] = roles
		}
		if data.Timeout != nil {
			t := *data.Timeout
			m.Timeout = &t
			changed["timeout"] = t
		}
		if data.CanPublish != nil {
			v := *data.CanPublish
			m.CanPublish = &v
			changed["can_publish"] = v
		}
		if data.CanReceive != nil {
			v := *data.CanReceive
			m.CanReceive = &v
			changed["can_receive"] = v
		}
		clear = clearList(slices.DeleteFunc(slices.Clone(data.Remove), func(f string) bool {
			return f == chat.FieldJoinedAt || f == chat.FieldVoiceChannel
		}), changed, memberWire)
		if len(changed) == 0 && len(clear) == 0 {
			return nil
		}
		if !self {
			if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditMemberEdit, User: user,
				Remove: clear, Partial: edited(changed)}); err != nil {
				return err
			}
		}
		return dbError("update member", st.UpdateMember(ctx, m))
	})
	if err != nil {
		return nil, err
	}
	if len(changed) > 0 || len(clear) > 0 {
		a.publish(ctx, chat.ServerMemberUpdateEvent{Type: chat.EvServerMemberUpdate,
			ID: m.ID, Data: changed, Clear: clear}, event.Of(id))
	}
	// Voice: roles, timeouts and server mute or deafen change what the
	// member may do in a call; a move or a kick from voice acts on it.
	if data.Roles != nil || data.Timeout != nil || data.CanPublish != nil || data.CanReceive != nil ||
		data.Removes(chat.FieldRoles) || data.Removes(chat.FieldTimeout) ||
		data.Removes(chat.FieldCanPublish) || data.Removes(chat.FieldCanReceive) {
		a.syncServerVoice(ctx, id, user)
	}
	if data.Removes(chat.FieldVoiceChannel) {
		a.disconnectUserFrom(ctx, user, id)
	}
	if data.VoiceChannel != nil {
		if err := a.moveMember(ctx, id, user, *data.VoiceChannel); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// checkMemberEdit decides whether the caller may make the edit.
func (x *access) checkMemberEdit(m *chat.Member, self bool, data chat.MemberEdit) error {
	var need perm.Set
	if data.Nickname != nil || data.Removes(chat.FieldNickname) || data.Pronouns != nil || data.Removes(chat.FieldPronouns) {
		need |= pick(self, perm.ChangeNickname, perm.ManageNicknames)
	}
	if data.Avatar != nil {
		if !self {
			return chat.ErrInvalidOperation // nobody sets another member's avatar
		}
		need |= perm.ChangeAvatar
	}
	if data.Removes(chat.FieldAvatar) {
		need |= pick(self, perm.ChangeAvatar, perm.RemoveAvatars)
	}
	if data.Roles != nil || data.Removes(chat.FieldRoles) {
		need |= perm.AssignRoles
	}
	if data.Timeout != nil || data.Removes(chat.FieldTimeout) {
		need |= perm.TimeoutMembers
	}
	if data.CanPublish != nil || data.Removes(chat.FieldCanPublish) {
		need |= perm.MuteMembers
	}
	if data.CanReceive != nil || data.Removes(chat.FieldCanReceive) {
		need |= perm.DeafenMembers
	}
	if data.VoiceChannel != nil || data.Removes(chat.FieldVoiceChannel) {
		need |= perm.MoveMembers
	}
	if err := x.require(need); err != nil {
		return err
	}
	if need != 0 && !self {
		if err := x.actOn(m); err != nil {
			return err
		}
	}
	if data.Roles != nil {
		for _, r := range *data.Roles {
			role, ok := x.server.Roles[r]
			if !ok {
				return chat.ErrInvalidRole
			}
			if !slices.Contains(m.Roles, r) {
				if err := x.manageRole(role); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func pick(self bool, own, others perm.Set) perm.Set {
	if self {
		return own
	}
	return others
}

// removeMember takes user out of a server as kick or ban (reason) do:
// checks the permission and the rank, deletes the membership when there
// is one and reports whether there was.
func (a *App) removeMember(ctx context.Context, st store.Store, x *access, user chat.ID, need perm.Set) (bool, error) {
	if err := x.require(need); err != nil {
		return false, err
	}
	if user == x.user.ID {
		return false, chat.ErrCannotRemoveYourself
	}
	m, err := st.FetchMember(ctx, x.server.ID, user)
	if errors.Is(err, store.ErrNotFound) {
		if user == x.server.Owner {
			return false, chat.ErrNotElevated
		}
		return false, nil
	}
	if err != nil {
		return false, dbError("fetch member", err)
	}
	if err := x.actOn(m); err != nil {
		return false, err
	}
	return true, a.departMember(ctx, st, m)
}

// departMember removes a membership. A running timeout is kept, so that
// leaving and joining again does not lift it; nickname, avatar and roles
// go with the membership.
func (a *App) departMember(ctx context.Context, st store.Store, m *chat.Member) error {
	if m.Timeout != nil && m.Timeout.After(a.now()) {
		if err := st.KeepTimeout(ctx, m.ID.Server, m.ID.User, *m.Timeout); err != nil {
			return dbError("keep timeout", err)
		}
	}
	return lookupError("delete member", st.DeleteMember(ctx, m.ID.Server, m.ID.User))
}

// memberRemoved publishes a member's departure and posts its system message.
func (a *App) memberRemoved(ctx context.Context, s *chat.Server, user chat.ID, reason string) {
	a.publish(ctx, chat.ServerMemberLeaveEvent{Type: chat.EvServerMemberLeave,
		ID: s.ID, User: user, Reason: reason}, event.Of(s.ID))
	switch reason {
	case chat.LeaveReasonKick:
		a.serverSystemMessage(ctx, s, slotKicked, chat.SystemMessage{Type: sysUserKicked, ID: user})
	case chat.LeaveReasonBan:
		a.serverSystemMessage(ctx, s, slotBanned, chat.SystemMessage{Type: sysUserBanned, ID: user})
	}
}

// KickMember removes a member ranked below the caller (KickMembers).
func (a *App) KickMember(ctx context.Context, c *Caller, id, user chat.ID) error {
	var s *chat.Server
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		s = x.server
		was, err := a.removeMember(ctx, st, x, user, perm.KickMembers)
		if err == nil && !was {
			err = chat.ErrNotFound
		}
		if err != nil {
			return err
		}
		return a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditMemberKick, User: user})
	})
	if err != nil {
		return err
	}
	a.memberRemoved(ctx, s, user, chat.LeaveReasonKick)
	a.disconnectUserFrom(ctx, user, id)
	return nil
}

// BanUser bans a user from a server (BanMembers), removing them first
// when they are a member ranked below the caller.
func (a *App) BanUser(ctx context.Context, c *Caller, id, user chat.ID, reason *string) (*chat.ServerBan, error) {
	var (
		s   *chat.Server
		was bool
	)
	ban := &chat.ServerBan{ID: chat.MemberID{Server: id, User: user}, Reason: reason}
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		s = x.server
		if err := x.require(perm.BanMembers); err != nil {
			return err
		}
		if _, err := st.FetchUser(ctx, user); err != nil {
			return lookupError("fetch user", err)
		}
		if was, err = a.removeMember(ctx, st, x, user, perm.BanMembers); err != nil {
			return err
		}
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditBanCreate, User: user}); err != nil {
			return err
		}
		return dbError("insert ban", st.InsertBan(ctx, ban))
	})
	if err != nil {
		return nil, err
	}
	if was {
		a.memberRemoved(ctx, s, user, chat.LeaveReasonBan)
		a.disconnectUserFrom(ctx, user, id)
	}
	return ban, nil
}

// UnbanUser lifts a ban (BanMembers). No event is sent.
func (a *App) UnbanUser(ctx context.Context, c *Caller, id, user chat.ID) error {
	return a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		if err := x.require(perm.BanMembers); err != nil {
			return err
		}
		if err := lookupError("delete ban", st.DeleteBan(ctx, id, user)); err != nil {
			return err
		}
		return a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditBanDelete, User: user})
	})
}

// FetchBans lists a server's bans with just enough of each user
// (BanMembers).
func (a *App) FetchBans(ctx context.Context, c *Caller, id chat.ID) (*chat.BanList, error) {
	x, err := a.serverAccess(ctx, a.store, c.User, id)
	if err != nil {
		return nil, err
	}
	if err := x.require(perm.BanMembers); err != nil {
		return nil, err
	}
	bans, err := a.store.FetchBans(ctx, id)
	if err != nil {
		return nil, dbError("fetch bans", err)
	}
	ids := make([]chat.ID, len(bans))
	for i, b := range bans {
		ids[i] = b.ID.User
	}
	users, err := a.store.FetchUsers(ctx, ids)
	if err != nil {
		return nil, dbError("fetch users", err)
	}
	slices.SortFunc(users, func(p, q *chat.User) int { return strings.Compare(string(p.ID), string(q.ID)) })
	out := &chat.BanList{Users: make([]chat.BannedUser, 0, len(users)), Bans: bans}
	if out.Bans == nil {
		out.Bans = []*chat.ServerBan{}
	}
	for _, u := range users {
		out.Users = append(out.Users, chat.BannedUser{ID: u.ID, Username: u.Username,
			Discriminator: u.Discriminator, Avatar: u.Avatar})
	}
	return out, nil
}
