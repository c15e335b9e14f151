package app

import (
	"context"
	"slices"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// FetchChannel returns a channel of any type the caller can see.
func (a *App) FetchChannel(ctx context.Context, c *Caller, id chat.ID) (*chat.Channel, error) {
	ch, _, err := a.requireChannel(ctx, c.User, id)
	return ch, err
}

// EditChannel changes a group or a server channel.
func (a *App) EditChannel(ctx context.Context, c *Caller, id chat.ID, data chat.ChannelEdit) (*chat.Channel, error) {
	ch, err := a.store.FetchChannel(ctx, id)
	if err != nil {
		return nil, lookupError("fetch channel", err)
	}
	if ch.IsServerChannel() {
		return a.editServerChannel(ctx, c, ch.Server, id, data)
	}
	return a.editGroup(ctx, c, ch, data)
}

// channelWire maps the removable fields of a channel to their wire names.
var channelWire = map[string]string{
	chat.FieldDescription: "description", chat.FieldIcon: "icon",
	chat.FieldDefaultPermissions: "default_permissions", chat.FieldVoice: "voice",
	chat.FieldSlowmode: "slowmode",
}

// editServerChannel changes a server channel (ManageChannel in it).
func (a *App) editServerChannel(ctx context.Context, c *Caller, server, id chat.ID, data chat.ChannelEdit) (*chat.Channel, error) {
	var (
		ch      *chat.Channel
		changed = chat.Partial{}
		clear   []string
	)
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, server)
		if err != nil {
			return err
		}
		var p perm.Set
		if ch, p, err = x.serverChannel(ctx, st, id); err != nil {
			return err
		}
		if err := perm.Require(p, perm.ManageChannel); err != nil {
			return err
		}
		if data.Owner != nil {
			return chat.ErrInvalidOperation // only groups have owners
		}
		for _, f := range data.Remove {
			switch f {
			case chat.FieldDescription:
				ch.Description = nil
			case chat.FieldIcon:
				if err := dropFile(ctx, st, ch.Icon); err != nil {
					return err
				}
				ch.Icon = nil
			case chat.FieldDefaultPermissions:
				ch.DefaultPermissions = nil
			case chat.FieldVoice:
				ch.Voice = nil
			case chat.FieldSlowmode:
				ch.Slowmode = nil
			}
		}
		if data.Name != nil {
			ch.Name = *data.Name
			changed["name"] = ch.Name
		}
		if data.Description != nil {
			ch.Description = data.Description
			changed["description"] = *ch.Description
		}
		if data.Icon != nil {
			f, err := replaceFile(ctx, st, *data.Icon, chat.TagIcons, usedForChannelIcon, ch.ID, ch.Icon)
			if err != nil {
				return err
			}
			ch.Icon = f
			changed["icon"] = f
		}
		if data.NSFW != nil {
			ch.NSFW = *data.NSFW
			changed["nsfw"] = ch.NSFW
		}
		if data.Voice != nil {
			v := *data.Voice
			ch.Voice = &v
			changed["voice"] = v
		}
		if data.Slowmode != nil {
			// 0 turns slowmode off, which clients learn as a cleared field.
			if s := *data.Slowmode; s > 0 {
				ch.Slowmode = &s
				changed["slowmode"] = s
			} else if ch.Slowmode != nil {
				ch.Slowmode = nil
				data.Remove = append(data.Remove, chat.FieldSlowmode)
			}
		}
		clear = clearList(data.Remove, changed, channelWire)
		if len(changed) == 0 && len(clear) == 0 {
			return nil
		}
		if err := a.audit(ctx, st, c, server, chat.AuditAction{Type: chat.AuditChannelEdit, Channel: id,
			Remove: clear, Partial: edited(changed)}); err != nil {
			return err
		}
		return dbError("update channel", st.UpdateChannel(ctx, ch))
	})
	if err != nil {
		return nil, err
	}
	if len(changed) > 0 || len(clear) > 0 {
		a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: id,
			Data: changed, Clear: clear}, event.Of(server))
	}
	return ch, nil
}

// DeleteChannel deletes a server channel, or closes a direct message or
// leaves a group.
func (a *App) DeleteChannel(ctx context.Context, c *Caller, id chat.ID, leaveSilently bool) error {
	ch, err := a.store.FetchChannel(ctx, id)
	if err != nil {
		return lookupError("fetch channel", err)
	}
	if ch.IsServerChannel() {
		return a.deleteServerChannel(ctx, c, ch.Server, id)
	}
	return a.deleteDirectChannel(ctx, c, ch, leaveSilently)
}

// deleteServerChannel deletes a server channel (ManageChannel in it) with
// its messages, invites and webhooks, and removes it from the server's
// channel list, categories and system message channels.
func (a *App) deleteServerChannel(ctx context.Context, c *Caller, server, id chat.ID) error {
	changed := chat.Partial{}
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, server)
		if err != nil {
			return err
		}
		ch, p, err := x.serverChannel(ctx, st, id)
		if err != nil {
			return err
		}
		if err := perm.Require(p, perm.ManageChannel); err != nil {
			return err
		}
		s := x.server
		s.Channels = slices.DeleteFunc(s.Channels, func(c chat.ID) bool { return c == id })
		changed["channels"] = s.Channels
		for i := range s.Categories {
			cat := &s.Categories[i]
			if slices.Contains(cat.Channels, id) {
				cat.Channels = slices.DeleteFunc(cat.Channels, func(c chat.ID) bool { return c == id })
				changed["categories"] = s.Categories
			}
		}
		if sm := s.SystemMessages; sm != nil {
			for _, slot := range []**chat.ID{&sm.UserJoined, &sm.UserLeft, &sm.UserKicked, &sm.UserBanned} {
				if *slot != nil && **slot == id {
					*slot = nil
					changed["system_messages"] = *sm
				}
			}
		}
		if err := st.UpdateServer(ctx, s); err != nil {
			return dbError("update server", err)
		}
		if err := dropFile(ctx, st, ch.Icon); err != nil {
			return err
		}
		if err := a.audit(ctx, st, c, server, chat.AuditAction{Type: chat.AuditChannelDelete, Channel: id,
			Name: named(ch.Name)}); err != nil {
			return err
		}
		return lookupError("delete channel", st.DeleteChannel(ctx, id))
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.IDEvent{Type: chat.EvChannelDelete, ID: id}, event.Of(server))
	a.closeVoiceChannels(ctx, id)
	// The server's references to the channel are gone too; say so, so
	// clients do not keep a dangling id in the channel list or categories.
	a.publish(ctx, chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: server,
		Data: changed, Clear: []string{}}, event.Of(server))
	return nil
}

// SetChannelRolePermissions sets a role's override in a server channel
// (ManagePermissions there, a role ranked below the caller, and the grant
// rule against what the caller holds in the channel).
func (a *App) SetChannelRolePermissions(ctx context.Context, c *Caller, id, roleID chat.ID, o chat.OverrideData) (*chat.Channel, error) {
	next := o.Override()
	var ch *chat.Channel
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, p, err := a.channelAccess(ctx, st, c, id)
		if err != nil {
			return err
		}
		ch = x.ch
		if err := perm.Require(p, perm.ManagePermissions); err != nil {
			return err
		}
		role, err := x.role(roleID)
		if err != nil {
			return err
		}
		if err := x.manageRole(role); err != nil {
			return err
		}
		var old *chat.Override
		if prev, ok := ch.RolePermissions[roleID]; ok {
			old = &prev
		}
		if err := perm.CheckOverride(p, old, next); err != nil {
			return err
		}
		if ch.RolePermissions == nil {
			ch.RolePermissions = map[chat.ID]chat.Override{}
		}
		ch.RolePermissions[roleID] = next
		if err := a.audit(ctx, st, c, ch.Server, chat.AuditAction{Type: chat.AuditChannelRolePermissionsEdit,
			Channel: id, Role: roleID, Permissions: &next}); err != nil {
			return err
		}
		return dbError("update channel", st.UpdateChannel(ctx, ch))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: id,
		Data: chat.Partial{"role_permissions": ch.RolePermissions}, Clear: []string{}}, event.Of(ch.Server))
	a.syncChannelVoice(ctx, id)
	return ch, nil
}

// SetChannelDefaultPermissions sets the override every member of a server
// channel gets (ManagePermissions there, and the grant rule).
func (a *App) SetChannelDefaultPermissions(ctx context.Context, c *Caller, id chat.ID, data chat.DefaultPermissionsSet) (*chat.Channel, error) {
	ch, err := a.store.FetchChannel(ctx, id)
	if err != nil {
		return nil, lookupError("fetch channel", err)
	}
	if !ch.IsServerChannel() {
		if data.Value == nil {
			return nil, chat.ErrInvalidOperation // a group takes a number
		}
		return a.setGroupDefaultPermissions(ctx, c, ch, int64(*data.Value))
	}
	if data.Override == nil {
		return nil, chat.ErrInvalidOperation // a server channel takes {allow, deny}
	}
	next := data.Override.Override()
	err = a.store.InTx(ctx, func(st store.Store) error {
		x, p, err := a.channelAccess(ctx, st, c, id)
		if err != nil {
			return err
		}
		ch = x.ch
		if err := perm.Require(p, perm.ManagePermissions); err != nil {
			return err
		}
		if err := perm.CheckOverride(p, ch.DefaultPermissions, next); err != nil {
			return err
		}
		ch.DefaultPermissions = &next
		if err := a.audit(ctx, st, c, ch.Server, chat.AuditAction{Type: chat.AuditChannelEdit, Channel: id,
			Partial: &chat.Partial{"default_permissions": next}}); err != nil {
			return err
		}
		return dbError("update channel", st.UpdateChannel(ctx, ch))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: id,
		Data: chat.Partial{"default_permissions": next}, Clear: []string{}}, event.Of(ch.Server))
	a.syncChannelVoice(ctx, id)
	return ch, nil
}

// channelAccessResult is a server channel with the caller's access to its server.
type channelAccessResult struct {
	*access
	ch *chat.Channel
}

// channelAccess loads a server channel the caller can see through st,
// with their access to its server and what they hold in the channel.
// Channels of other kinds are InvalidOperation.
func (a *App) channelAccess(ctx context.Context, st store.Store, c *Caller, id chat.ID) (*channelAccessResult, perm.Set, error) {
	ch, err := st.FetchChannel(ctx, id)
	if err != nil {
		return nil, 0, lookupError("fetch channel", err)
	}
	if !ch.IsServerChannel() {
		return nil, 0, chat.ErrInvalidOperation
	}
	x, err := a.serverAccess(ctx, st, c.User, ch.Server)
	if err != nil {
		return nil, 0, err
	}
	p := x.channel(ch)
	if !p.Has(perm.ViewChannel) {
		return nil, 0, chat.ErrNotFound
	}
	return &channelAccessResult{access: x, ch: ch}, p, nil
}
