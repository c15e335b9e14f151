package app

import (
	"context"
	"slices"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// CreateServer creates a server owned by the caller with one text channel,
// "General", and makes the caller its first member.
func (a *App) CreateServer(ctx context.Context, c *Caller, data chat.ServerCreate) (*chat.ServerCreated, error) {
	if c.IsBot() {
		return nil, chat.ErrIsBot
	}
	if a.settings.Limits.RestrictServerCreation && !c.User.Privileged {
		return nil, chat.ErrCantCreateServers
	}
	sid, cid := chat.NewID(), chat.NewID()
	general := &chat.Channel{ChannelType: chat.ChannelText, ID: cid, Server: sid, Name: "General"}
	s := &chat.Server{ID: sid, Owner: c.ID(), Name: data.Name, Description: data.Description,
		Channels: []chat.ID{cid}, DefaultPermissions: perm.DefaultServer.Int64(),
		NSFW: data.NSFW != nil && *data.NSFW}
	m := &chat.Member{ID: chat.MemberID{Server: sid, User: c.ID()}, JoinedAt: chat.TimeOf(a.now())}
	err := a.store.InTx(ctx, func(st store.Store) error {
		if err := a.checkServerLimit(ctx, st, c.User); err != nil {
			return err
		}
		if err := st.InsertServer(ctx, s); err != nil {
			return dbError("insert server", err)
		}
		if err := st.InsertChannel(ctx, general); err != nil {
			return dbError("insert channel", err)
		}
		return dbError("insert member", st.InsertMember(ctx, m))
	})
	if err != nil {
		return nil, err
	}
	channels := []*chat.Channel{general}
	a.announceJoin(ctx, s, m, channels, []*chat.Emoji{})
	return &chat.ServerCreated{Server: s, Channels: channels}, nil
}

// announceJoin tells the joiner about the server they joined (ServerCreate
// with the channels they can see) and everyone about the new member
// (ServerMemberJoin). The joiner's connections get the join on their
// private topic too, right after ServerCreate: they subscribe to the
// server's topic only on ServerCreate, so the server-topic copy may come
// too late for them, and clients keep their own member from this event
// (they drop later ServerMemberUpdates of a member they never saw).
func (a *App) announceJoin(ctx context.Context, s *chat.Server, m *chat.Member, channels []*chat.Channel, emojis []*chat.Emoji) {
	ids := make([]chat.ID, 0, len(channels))
	for _, ch := range channels {
		ids = append(ids, ch.ID)
	}
	slices.Sort(ids)
	states, err := a.voiceStates(ctx, ids)
	if err != nil {
		a.log.ErrorContext(ctx, "voice states", "server", s.ID, "err", err)
		states = []chat.VoiceState{}
	}
	a.publish(ctx, chat.ServerCreateEvent{Type: chat.EvServerCreate, ID: s.ID,
		Server: s, Channels: channels, Emojis: emojis, VoiceStates: states}, event.Private(m.ID.User))
	a.publish(ctx, chat.ServerMemberJoinEvent{Type: chat.EvServerMemberJoin,
		ID: s.ID, User: m.ID.User, Member: m}, event.Private(m.ID.User), event.Of(s.ID))
}

// FetchServer returns a server the caller is a member of, and with
// includeChannels the channels of it they can see.
func (a *App) FetchServer(ctx context.Context, c *Caller, id chat.ID, includeChannels bool) (*chat.Server, []*chat.Channel, error) {
	x, err := a.serverAccess(ctx, a.store, c.User, id)
	if err != nil {
		return nil, nil, err
	}
	if err := a.countMembers(ctx, x.server); err != nil {
		return nil, nil, err
	}
	if !includeChannels {
		return x.server, nil, nil
	}
	channels, err := a.visibleChannels(ctx, a.store, x)
	if err != nil {
		return nil, nil, err
	}
	return x.server, channels, nil
}

// countMembers fills in the server's approximate_member_count (reference
// 0.15.0) for a response; events and stored servers go without it.
func (a *App) countMembers(ctx context.Context, s *chat.Server) error {
	n, err := a.store.CountMembers(ctx, s.ID)
	if err != nil {
		return dbError("count members", err)
	}
	count := int64(n)
	s.ApproximateMemberCount = &count
	return nil
}

// serverWire maps the removable fields of a server to their wire names.
var serverWire = map[string]string{
	chat.FieldDescription: "description", chat.FieldCategories: "categories",
	chat.FieldSystemMessages: "system_messages", chat.FieldIcon: "icon", chat.FieldBanner: "banner",
}

// EditServer changes a server. Name, description, icon, banner, system
// message channels, analytics and removals need ManageServer; categories
// need ManageChannel; flags and discoverable are for privileged users.
// Owner transfers the server: only its owner may, with a validated MFA
// ticket, to a member who is not a bot. The change is recorded in the
// audit log (ServerEdit).
func (a *App) EditServer(ctx context.Context, c *Caller, id chat.ID, data chat.ServerEdit, ticket string) (*chat.Server, error) {
	var (
		s       *chat.Server
		changed = chat.Partial{}
		clear   []string
	)
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		s = x.server
		if (data.Flags != nil || data.Discoverable != nil) && !c.User.Privileged {
			return chat.ErrNotPrivileged
		}
		categoriesOnly := len(data.Remove) == 1 && data.Removes(chat.FieldCategories)
		if data.Name != nil || data.Description != nil || data.Icon != nil || data.Banner != nil ||
			data.SystemMessages != nil || data.Analytics != nil || (len(data.Remove) > 0 && !categoriesOnly) {
			if err := x.require(perm.ManageServer); err != nil {
				return err
			}
		}
		if data.Categories != nil || data.Removes(chat.FieldCategories) {
			if err := x.require(perm.ManageChannel); err != nil {
				return err
			}
		}
		if data.Owner != nil {
			if err := a.transferServer(ctx, st, c, x, *data.Owner, ticket, changed); err != nil {
				return err
			}
		}
		if err := a.applyServerEdit(ctx, st, s, data, changed); err != nil {
			return err
		}
		clear = clearList(data.Remove, changed, serverWire)
		if len(changed) == 0 && len(clear) == 0 {
			return nil
		}
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditServerEdit,
			Remove: clear, Partial: edited(changed)}); err != nil {
			return err
		}
		return dbError("update server", st.UpdateServer(ctx, s))
	})
	if err != nil {
		return nil, err
	}
	if len(changed) > 0 || len(clear) > 0 {
		a.publish(ctx, chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: id,
			Data: changed, Clear: clear}, event.Of(id))
	}
	if err := a.countMembers(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// transferServer makes user the owner of x's server, recording it in
// changed: the caller must own the server and give a validated MFA
// ticket (used up here), and user must be a member who is not a bot.
func (a *App) transferServer(ctx context.Context, st store.Store, c *Caller, x *access, user chat.ID, ticket string, changed chat.Partial) error {
	if c.IsBot() {
		return chat.ErrIsBot
	}
	if !x.owner() {
		return chat.ErrNotOwner
	}
	if user == x.server.Owner {
		return nil
	}
	if _, err := st.FetchMember(ctx, x.server.ID, user); err != nil {
		return lookupError("fetch member", err)
	}
	u, err := st.FetchUser(ctx, user)
	if err != nil {
		return lookupError("fetch user", err)
	}
	if u.IsBot() {
		return chat.ErrIsBot
	}
	if err := a.consumeTicket(ctx, st, ticket, accountID(c)); err != nil {
		return err
	}
	x.server.Owner = user
	changed["owner"] = user
	return nil
}

// applyServerEdit changes s as data says (removals first) and records
// every field set in changed.
func (a *App) applyServerEdit(ctx context.Context, st store.Store, s *chat.Server, data chat.ServerEdit, changed chat.Partial) error {
	for _, f := range data.Remove {
		switch f {
		case chat.FieldDescription:
			s.Description = nil
		case chat.FieldCategories:
			s.Categories = nil
		case chat.FieldSystemMessages:
			s.SystemMessages = nil
		case chat.FieldIcon:
			if err := dropFile(ctx, st, s.Icon); err != nil {
				return err
			}
			s.Icon = nil
		case chat.FieldBanner:
			if err := dropFile(ctx, st, s.Banner); err != nil {
				return err
			}
			s.Banner = nil
		}
	}
	if data.Name != nil {
		s.Name = *data.Name
		changed["name"] = s.Name
	}
	if data.Description != nil {
		s.Description = data.Description
		changed["description"] = *s.Description
	}
	if data.Icon != nil {
		f, err := replaceFile(ctx, st, *data.Icon, chat.TagIcons, usedForServerIcon, s.ID, s.Icon)
		if err != nil {
			return err
		}
		s.Icon = f
		changed["icon"] = f
	}
	if data.Banner != nil {
		f, err := replaceFile(ctx, st, *data.Banner, chat.TagBanners, usedForServerBanner, s.ID, s.Banner)
		if err != nil {
			return err
		}
		s.Banner = f
		changed["banner"] = f
	}
	if data.Categories != nil {
		cats, err := checkCategories(s, *data.Categories)
		if err != nil {
			return err
		}
		s.Categories = cats
		changed["categories"] = cats
	}
	if data.SystemMessages != nil {
		sm := *data.SystemMessages
		for _, id := range []*chat.ID{sm.UserJoined, sm.UserLeft, sm.UserKicked, sm.UserBanned} {
			if id != nil && !slices.Contains(s.Channels, *id) {
				return chat.ErrNotFound
			}
		}
		s.SystemMessages = &sm
		changed["system_messages"] = sm
	}
	if data.Flags != nil {
		s.Flags = uint32(*data.Flags)
		changed["flags"] = s.Flags
	}
	if data.Discoverable != nil {
		s.Discoverable = *data.Discoverable
		changed["discoverable"] = s.Discoverable
	}
	if data.Analytics != nil {
		s.Analytics = *data.Analytics
		changed["analytics"] = s.Analytics
	}
	return nil
}

// checkCategories drops channel ids that are not the server's and refuses
// a channel listed in two categories.
func checkCategories(s *chat.Server, in []chat.Category) ([]chat.Category, error) {
	seen := map[chat.ID]bool{}
	out := make([]chat.Category, 0, len(in))
	for _, cat := range in {
		kept := []chat.ID{}
		for _, id := range cat.Channels {
			if !slices.Contains(s.Channels, id) {
				continue
			}
			if seen[id] {
				return nil, chat.ErrInvalidOperation
			}
			seen[id] = true
			kept = append(kept, id)
		}
		cat.Channels = kept
		out = append(out, cat)
	}
	return out, nil
}

// DeleteServer deletes the server when the caller owns it, and otherwise
// makes the caller leave it (with a user_left system message unless
// leaveSilently). The emoji of a deleted server stay, detached.
func (a *App) DeleteServer(ctx context.Context, c *Caller, id chat.ID, leaveSilently bool) error {
	x, err := a.serverAccess(ctx, a.store, c.User, id)
	if err != nil {
		return err
	}
	if x.owner() {
		err := a.store.InTx(ctx, func(st store.Store) error {
			if err := st.DetachEmojis(ctx, id); err != nil {
				return dbError("detach emojis", err)
			}
			if err := a.releaseServerFiles(ctx, st, x.server); err != nil {
				return err
			}
			return lookupError("delete server", st.DeleteServer(ctx, id))
		})
		if err != nil {
			return err
		}
		a.publish(ctx, chat.IDEvent{Type: chat.EvServerDelete, ID: id}, event.Of(id))
		a.closeVoiceChannels(ctx, x.server.Channels...)
		return nil
	}
	if x.member == nil {
		return chat.ErrNotFound
	}
	if err := a.store.InTx(ctx, func(st store.Store) error { return a.departMember(ctx, st, x.member) }); err != nil {
		return err
	}
	a.publish(ctx, chat.ServerMemberLeaveEvent{Type: chat.EvServerMemberLeave,
		ID: id, User: c.ID(), Reason: chat.LeaveReasonLeave}, event.Of(id))
	a.disconnectUserFrom(ctx, c.ID(), id)
	if !leaveSilently {
		a.serverSystemMessage(ctx, x.server, slotLeft, chat.SystemMessage{Type: sysUserLeft, ID: c.ID()})
	}
	return nil
}

// AckServer marks every channel of the server read for the caller. No
// event is sent.
func (a *App) AckServer(ctx context.Context, c *Caller, id chat.ID) error {
	if c.IsBot() {
		return chat.ErrIsBot
	}
	x, err := a.serverAccess(ctx, a.store, c.User, id)
	if err != nil {
		return err
	}
	return dbError("ack channels", a.store.AckChannels(ctx, c.ID(), x.server.Channels, chat.NewID()))
}

// CreateServerChannel adds a text or voice channel to a server
// (ManageChannel), up to the per-server channel limit.
func (a *App) CreateServerChannel(ctx context.Context, c *Caller, id chat.ID, data chat.ServerChannelCreate) (*chat.Channel, error) {
	ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: id, Name: data.Name,
		Description: data.Description, NSFW: data.NSFW != nil && *data.NSFW, Voice: data.Voice}
	// The interface has no voice channel type of its own: a voice channel
	// is a text channel that carries voice information.
	if data.Type == chat.ServerChannelVoice {
		if ch.Voice == nil {
			ch.Voice = &chat.VoiceInformation{}
		}
	}
	if data.Slowmode != nil && *data.Slowmode > 0 && ch.Voice == nil {
		s := *data.Slowmode
		ch.Slowmode = &s
	}
	var channels []chat.ID
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		if err := x.require(perm.ManageChannel); err != nil {
			return err
		}
		if max := a.settings.Limits.ServerChannels; len(x.server.Channels) >= max {
			return chat.ErrTooManyChannels(max)
		}
		if err := st.InsertChannel(ctx, ch); err != nil {
			return dbError("insert channel", err)
		}
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditChannelCreate,
			Channel: ch.ID, Name: named(ch.Name)}); err != nil {
			return err
		}
		x.server.Channels = append(x.server.Channels, ch.ID)
		channels = x.server.Channels
		return dbError("update server", st.UpdateServer(ctx, x.server))
	})
	if err != nil {
		return nil, err
	}
	// Clients add the channel to the server's list only from ServerUpdate.
	a.publish(ctx, chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: id,
		Data: chat.Partial{"channels": channels}, Clear: []string{}}, event.Of(id))
	a.publish(ctx, chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: ch}, event.Of(id))
	return ch, nil
}

// SetDefaultServerPermissions sets the permissions every member starts
// from (ManagePermissions; the caller must hold every bit given).
func (a *App) SetDefaultServerPermissions(ctx context.Context, c *Caller, id chat.ID, value uint64) (*chat.Server, error) {
	var s *chat.Server
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		if err := x.require(perm.ManagePermissions); err != nil {
			return err
		}
		if err := perm.CheckDefault(x.perms, perm.Set(value)); err != nil {
			return err
		}
		s = x.server
		s.DefaultPermissions = int64(value)
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditServerEdit,
			Partial: &chat.Partial{"default_permissions": s.DefaultPermissions}}); err != nil {
			return err
		}
		return dbError("update server", st.UpdateServer(ctx, s))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: id,
		Data: chat.Partial{"default_permissions": s.DefaultPermissions}, Clear: []string{}}, event.Of(id))
	a.syncServerVoice(ctx, id)
	return s, nil
}

// SetServerRolePermissions sets a role's server-wide override
// (ManagePermissions, a role ranked below the caller, and the grant rule).
func (a *App) SetServerRolePermissions(ctx context.Context, c *Caller, id, roleID chat.ID, o chat.OverrideData) (*chat.Server, error) {
	var s *chat.Server
	next := o.Override()
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		role, err := x.manageableRole(roleID, perm.ManagePermissions)
		if err != nil {
			return err
		}
		if err := perm.CheckOverride(x.perms, &role.Permissions, next); err != nil {
			return err
		}
		s = x.server
		role.Permissions = next
		s.Roles[roleID] = role
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditRoleEdit, Role: roleID,
			Partial: &chat.Partial{"permissions": next}}); err != nil {
			return err
		}
		return dbError("update server", st.UpdateServer(ctx, s))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ServerRoleUpdateEvent{Type: chat.EvServerRoleUpdate, ID: id,
		RoleID: roleID, Data: chat.Partial{"permissions": next}, Clear: []string{}}, event.Of(id))
	a.syncServerVoice(ctx, id)
	return s, nil
}

// releaseServerFiles marks the uploads a server being deleted used (its
// icon and banner, its roles' and channels' icons, its members' avatars) deleted, so
// the file service reclaims them.
func (a *App) releaseServerFiles(ctx context.Context, st store.Store, s *chat.Server) error {
	files := []*chat.File{s.Icon, s.Banner}
	for _, r := range s.Roles {
		files = append(files, r.Icon)
	}
	channels, err := st.FetchServerChannels(ctx, s.ID)
	if err != nil {
		return dbError("fetch channels", err)
	}
	for _, ch := range channels {
		files = append(files, ch.Icon)
	}
	members, err := st.FetchMembers(ctx, s.ID)
	if err != nil {
		return dbError("fetch members", err)
	}
	for _, m := range members {
		files = append(files, m.Avatar)
	}
	for _, f := range files {
		if err := dropFile(ctx, st, f); err != nil {
			return err
		}
	}
	return nil
}
