package app

import (
	"context"
	"slices"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// CreateGroup makes a group owned by the caller with the given friends
// (POST /channels/create). Every member is told with ChannelCreate on
// their private topic.
func (a *App) CreateGroup(ctx context.Context, c *Caller, data chat.GroupCreate) (*chat.Channel, error) {
	if c.IsBot() {
		return nil, chat.ErrIsBot
	}
	members := []chat.ID{c.ID()}
	for _, u := range data.Users {
		if !slices.Contains(members, u) {
			members = append(members, u)
		}
	}
	if max := a.settings.Limits.GroupSize; len(members) > max {
		return nil, chat.ErrGroupTooLarge(max)
	}
	for _, u := range members[1:] {
		st, err := a.store.FetchRelationship(ctx, c.ID(), u)
		if err != nil {
			return nil, dbError("fetch relationship", err)
		}
		if st != chat.RelationFriend {
			return nil, chat.ErrNotFriends
		}
	}
	ch := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: data.Name, Owner: c.ID(),
		Description: data.Description, Recipients: members, NSFW: data.NSFW != nil && *data.NSFW}
	err := a.store.InTx(ctx, func(st store.Store) error {
		if data.Icon != nil {
			f, err := useFile(ctx, st, *data.Icon, chat.TagIcons, fileUseIcon, ch.ID)
			if err != nil {
				return err
			}
			ch.Icon = f
		}
		return dbError("insert channel", st.InsertChannel(ctx, ch))
	})
	if err != nil {
		return nil, err
	}
	topics := make([]string, len(members))
	for i, u := range members {
		topics[i] = event.Private(u)
	}
	a.publish(ctx, chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: ch}, topics...)
	return ch, nil
}

// requireGroup fetches a group the caller can see, with the caller's
// permissions in it. Other channel types are an InvalidOperation.
func (a *App) requireGroup(ctx context.Context, c *Caller, id chat.ID) (*chat.Channel, perm.Set, error) {
	ch, p, err := a.requireChannel(ctx, c.User, id)
	if err != nil {
		return nil, 0, err
	}
	if ch.ChannelType != chat.ChannelGroup {
		return nil, 0, chat.ErrInvalidOperation
	}
	return ch, p, nil
}

// FetchGroupMembers lists the users of a group the caller can see
// (GET /channels/{target}/members), in the group's order.
func (a *App) FetchGroupMembers(ctx context.Context, c *Caller, id chat.ID) ([]*chat.User, error) {
	ch, _, err := a.requireGroup(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return a.viewUsers(ctx, c.User, ch.Recipients)
}

// viewUsers loads users by id and returns them as viewer sees them, in
// the order of ids; ids of users that no longer exist are skipped.
func (a *App) viewUsers(ctx context.Context, viewer *chat.User, ids []chat.ID) ([]*chat.User, error) {
	found, err := a.store.FetchUsers(ctx, ids)
	if err != nil {
		return nil, dbError("fetch users", err)
	}
	byID := make(map[chat.ID]*chat.User, len(found))
	for _, u := range found {
		byID[u.ID] = u
	}
	v, err := a.withRelations(ctx, viewer)
	if err != nil {
		return nil, err
	}
	out := make([]*chat.User, 0, len(found))
	for _, id := range ids {
		u, ok := byID[id]
		if !ok {
			continue
		}
		seen, err := a.viewUser(ctx, v, u)
		if err != nil {
			return nil, err
		}
		out = append(out, seen)
	}
	return out, nil
}

// AddGroupMember adds a friend of the caller to a group
// (PUT /channels/{group}/recipients/{member}); the caller needs
// InviteOthers there.
func (a *App) AddGroupMember(ctx context.Context, c *Caller, groupID, userID chat.ID) error {
	if c.IsBot() {
		return chat.ErrIsBot
	}
	ch, p, err := a.requireGroup(ctx, c, groupID)
	if err != nil {
		return err
	}
	if err := perm.Require(p, perm.InviteOthers); err != nil {
		return err
	}
	userID = self(c, userID)
	target, err := a.fetchUser(ctx, userID)
	if err != nil {
		return err
	}
	if target.ID != c.ID() {
		st, err := a.store.FetchRelationship(ctx, c.ID(), target.ID)
		if err != nil {
			return dbError("fetch relationship", err)
		}
		if st != chat.RelationFriend {
			return chat.ErrNotFriends
		}
	}
	_, err = a.addToGroup(ctx, ch.ID, target.ID, chat.SystemMessage{Type: sysUserAdded, ID: target.ID, By: c.ID()})
	return err
}

// addToGroup makes user a member of a group: the group's subscribers get
// ChannelGroupJoin and the system message sys, and the new member gets
// the group with ChannelCreate. It returns the updated group.
func (a *App) addToGroup(ctx context.Context, groupID, user chat.ID, sys chat.SystemMessage) (*chat.Channel, error) {
	var ch *chat.Channel
	err := a.store.InTx(ctx, func(st store.Store) error {
		var err error
		if ch, err = st.FetchChannel(ctx, groupID); err != nil {
			return dbError("fetch channel", notFound(err))
		}
		if ch.HasRecipient(user) {
			return chat.ErrAlreadyInGroup
		}
		if max := a.settings.Limits.GroupSize; len(ch.Recipients) >= max {
			return chat.ErrGroupTooLarge(max)
		}
		ch.Recipients = append(ch.Recipients, user)
		return dbError("update channel", st.UpdateChannel(ctx, ch))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ChannelUserEvent{Type: chat.EvChannelGroupJoin, ID: ch.ID, User: user},
		event.Of(ch.ID))
	if _, err := a.systemMessage(ctx, ch.ID, sys); err != nil {
		return nil, err
	}
	if fresh, err := a.store.FetchChannel(ctx, ch.ID); err == nil {
		ch = fresh // with the system message as its last message
	}
	a.publish(ctx, chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: ch},
		event.Private(user))
	return ch, nil
}

// RemoveGroupMember takes a user out of a group
// (DELETE /channels/{target}/recipients/{member}); only the group's owner
// may, and not on themself.
func (a *App) RemoveGroupMember(ctx context.Context, c *Caller, groupID, userID chat.ID) error {
	ch, _, err := a.requireGroup(ctx, c, groupID)
	if err != nil {
		return err
	}
	if ch.Owner != c.ID() {
		return chat.ErrMissingPermission("ManageChannel")
	}
	userID = self(c, userID)
	if userID == c.ID() {
		return chat.ErrCannotRemoveYourself
	}
	err = a.store.InTx(ctx, func(st store.Store) error {
		g, err := st.FetchChannel(ctx, groupID)
		if err != nil {
			return dbError("fetch channel", notFound(err))
		}
		if !g.HasRecipient(userID) {
			return chat.ErrNotInGroup
		}
		g.Recipients = slices.DeleteFunc(g.Recipients, func(id chat.ID) bool { return id == userID })
		return dbError("update channel", st.UpdateChannel(ctx, g))
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.ChannelUserEvent{Type: chat.EvChannelGroupLeave, ID: groupID, User: userID},
		event.Of(groupID))
	_, err = a.systemMessage(ctx, groupID, chat.SystemMessage{Type: sysUserRemove, ID: userID, By: c.ID()})
	a.disconnectUserFrom(ctx, userID, "", groupID)
	return err
}

// editGroup applies PATCH /channels/{target} to a group: name,
// description, icon, nsfw and owner, with Description and Icon
// removable. It needs ManageChannel; handing the group over needs its
// owner and a member to receive it. System messages for each change go
// first, then ChannelUpdate to the group.
func (a *App) editGroup(ctx context.Context, c *Caller, ch *chat.Channel, data chat.ChannelEdit) (*chat.Channel, error) {
	if ch.ChannelType != chat.ChannelGroup {
		return nil, chat.ErrInvalidOperation
	}
	p, err := a.channelPermissions(ctx, c.User, ch)
	if err != nil {
		return nil, err
	}
	if !p.Has(perm.ViewChannel) {
		return nil, chat.ErrNotFound
	}
	if err := perm.Require(p, perm.ManageChannel); err != nil {
		return nil, err
	}
	if data.Owner != nil {
		if ch.Owner != c.ID() {
			return nil, chat.ErrNotOwner
		}
		if !ch.HasRecipient(*data.Owner) {
			return nil, chat.ErrNotInGroup
		}
	}
	changed := chat.Partial{}
	clear := []string{}
	var sys []chat.SystemMessage
	var updated *chat.Channel
	err = a.store.InTx(ctx, func(st store.Store) error {
		g, err := st.FetchChannel(ctx, ch.ID)
		if err != nil {
			return dbError("fetch channel", notFound(err))
		}
		for _, f := range data.Remove {
			switch f {
			case chat.FieldDescription:
				g.Description = nil
			case chat.FieldIcon:
				if err := dropFile(ctx, st, g.Icon); err != nil {
					return err
				}
				g.Icon = nil
			default:
				continue // server-channel fields; a group has none
			}
			if !slices.Contains(clear, f) {
				clear = append(clear, f)
			}
		}
		if data.Name != nil {
			g.Name = *data.Name
			changed["name"] = g.Name
			sys = append(sys, chat.SystemMessage{Type: sysChannelRenamed, Name: g.Name, By: c.ID()})
		}
		if data.Description != nil {
			d := *data.Description
			g.Description = &d
			changed["description"] = d
			sys = append(sys, chat.SystemMessage{Type: sysChannelDescriptionChanged, By: c.ID()})
		}
		if data.Icon != nil {
			f, err := replaceFile(ctx, st, *data.Icon, chat.TagIcons, fileUseIcon, g.ID, g.Icon)
			if err != nil {
				return err
			}
			g.Icon = f
			changed["icon"] = f
			sys = append(sys, chat.SystemMessage{Type: sysChannelIconChanged, By: c.ID()})
		}
		if data.NSFW != nil {
			g.NSFW = *data.NSFW
			changed["nsfw"] = g.NSFW
		}
		if data.Owner != nil && *data.Owner != g.Owner {
			sys = append(sys, chat.SystemMessage{Type: sysChannelOwnershipChanged, From: g.Owner, To: *data.Owner})
			g.Owner = *data.Owner
			changed["owner"] = g.Owner
		}
		updated = g
		if len(changed) == 0 && len(clear) == 0 {
			return nil
		}
		return dbError("update channel", st.UpdateChannel(ctx, g))
	})
	if err != nil {
		return nil, err
	}
	if len(changed) == 0 && len(clear) == 0 {
		return updated, nil
	}
	for _, m := range sys {
		if _, err := a.systemMessage(ctx, ch.ID, m); err != nil {
			return nil, err
		}
	}
	a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: ch.ID, Data: changed, Clear: clear},
		event.Of(ch.ID))
	if fresh, err := a.store.FetchChannel(ctx, ch.ID); err == nil {
		updated = fresh
	}
	return updated, nil
}

// deleteDirectChannel is DELETE /channels/{target} for private
// channels: it closes a direct message (active false, ChannelUpdate to
// both sides), makes the caller leave a group, and has no effect on Saved
// Messages.
func (a *App) deleteDirectChannel(ctx context.Context, c *Caller, ch *chat.Channel, leaveSilently bool) error {
	switch ch.ChannelType {
	case chat.ChannelSavedMessages:
		if ch.User != c.ID() {
			return chat.ErrNotFound
		}
		return chat.ErrNoEffect
	case chat.ChannelDirectMessage:
		if !ch.HasRecipient(c.ID()) {
			return chat.ErrNotFound
		}
		err := a.store.InTx(ctx, func(st store.Store) error {
			dm, err := st.FetchChannel(ctx, ch.ID)
			if err != nil {
				return dbError("fetch channel", notFound(err))
			}
			inactive := false
			dm.Active = &inactive
			return dbError("update channel", st.UpdateChannel(ctx, dm))
		})
		if err != nil {
			return err
		}
		a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: ch.ID,
			Data: chat.Partial{"active": false}, Clear: []string{}}, event.Of(ch.ID))
		return nil
	case chat.ChannelGroup:
		if !ch.HasRecipient(c.ID()) {
			return chat.ErrNotFound
		}
		return a.leaveGroup(ctx, c, ch.ID, leaveSilently)
	}
	return chat.ErrInvalidOperation
}

// leaveGroup takes the caller out of a group. When the owner leaves, the
// first remaining member becomes owner (with a ChannelUpdate, which the
// original interface omits, and a system message); the last one out
// deletes the group.
func (a *App) leaveGroup(ctx context.Context, c *Caller, groupID chat.ID, silent bool) error {
	var g *chat.Channel
	var deleted bool
	var oldOwner chat.ID
	err := a.store.InTx(ctx, func(st store.Store) error {
		var err error
		if g, err = st.FetchChannel(ctx, groupID); err != nil {
			return dbError("fetch channel", notFound(err))
		}
		if !g.HasRecipient(c.ID()) {
			return chat.ErrNotFound
		}
		g.Recipients = slices.DeleteFunc(g.Recipients, func(id chat.ID) bool { return id == c.ID() })
		if len(g.Recipients) == 0 {
			deleted = true
			if err := dropFile(ctx, st, g.Icon); err != nil {
				return err
			}
			return dbError("delete channel", st.DeleteChannel(ctx, g.ID))
		}
		oldOwner = g.Owner
		if g.Owner == c.ID() {
			g.Owner = g.Recipients[0]
		}
		return dbError("update channel", st.UpdateChannel(ctx, g))
	})
	if err != nil {
		return err
	}
	if deleted {
		a.publish(ctx, chat.IDEvent{Type: chat.EvChannelDelete, ID: groupID}, event.Of(groupID))
		return nil
	}
	a.publish(ctx, chat.ChannelUserEvent{Type: chat.EvChannelGroupLeave, ID: groupID, User: c.ID()},
		event.Of(groupID))
	if g.Owner != oldOwner {
		a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: groupID,
			Data: chat.Partial{"owner": g.Owner}, Clear: []string{}}, event.Of(groupID))
		if _, err := a.systemMessage(ctx, groupID, chat.SystemMessage{Type: sysChannelOwnershipChanged, From: oldOwner, To: g.Owner}); err != nil {
			return err
		}
	}
	a.disconnectUserFrom(ctx, c.ID(), "", groupID)
	if silent {
		return nil
	}
	_, err = a.systemMessage(ctx, groupID, chat.SystemMessage{Type: sysUserLeft, ID: c.ID()})
	return err
}

// setGroupDefaultPermissions sets what the members of a group other than
// its owner hold (PUT /channels/{target}/permissions/default with
// {permissions: n}). It needs ManagePermissions, and a caller may not
// hand out a permission they lack.
func (a *App) setGroupDefaultPermissions(ctx context.Context, c *Caller, ch *chat.Channel, value int64) (*chat.Channel, error) {
	if ch.ChannelType != chat.ChannelGroup {
		return nil, chat.ErrInvalidOperation
	}
	p, err := a.channelPermissions(ctx, c.User, ch)
	if err != nil {
		return nil, err
	}
	if !p.Has(perm.ViewChannel) {
		return nil, chat.ErrNotFound
	}
	if err := perm.Require(p, perm.ManagePermissions); err != nil {
		return nil, err
	}
	if value < 0 || !p.Has(perm.Set(value)) {
		return nil, chat.ErrCannotGiveMissingPermissions
	}
	var g *chat.Channel
	err = a.store.InTx(ctx, func(st store.Store) error {
		var err error
		if g, err = st.FetchChannel(ctx, ch.ID); err != nil {
			return dbError("fetch channel", notFound(err))
		}
		v := value
		g.Permissions = &v
		return dbError("update channel", st.UpdateChannel(ctx, g))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: ch.ID,
		Data: chat.Partial{"permissions": value}, Clear: []string{}}, event.Of(ch.ID))
	a.syncChannelVoice(ctx, ch.ID)
	return g, nil
}

// joinGroupInvite adds the caller to a group through an invite and
// returns the group with its members as the caller sees them. Bots do not
// join through invites.
func (a *App) joinGroupInvite(ctx context.Context, c *Caller, ch *chat.Channel) (*chat.Channel, []*chat.User, error) {
	if c.IsBot() {
		return nil, nil, chat.ErrIsBot
	}
	if ch.ChannelType != chat.ChannelGroup {
		return nil, nil, chat.ErrInvalidOperation
	}
	g, err := a.addToGroup(ctx, ch.ID, c.ID(), chat.SystemMessage{Type: sysUserJoined, ID: c.ID()})
	if err != nil {
		return nil, nil, err
	}
	users, err := a.viewUsers(ctx, c.User, g.Recipients)
	if err != nil {
		return nil, nil, err
	}
	return g, users, nil
}
