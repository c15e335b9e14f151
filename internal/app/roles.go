package app

import (
	"context"
	"slices"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// rolePartial is the whole role as ServerRoleUpdate carries it.
func rolePartial(r chat.Role) chat.Partial {
	p := chat.Partial{"name": r.Name, "permissions": r.Permissions, "rank": r.Rank}
	if r.Colour != nil {
		p["colour"] = *r.Colour
	}
	if r.Hoist {
		p["hoist"] = true
	}
	if r.Icon != nil {
		p["icon"] = r.Icon
	}
	return p
}

// CreateRole adds a role below every other role (ManageRole), up to the
// per-server role limit.
func (a *App) CreateRole(ctx context.Context, c *Caller, id chat.ID, data chat.RoleCreate) (*chat.RoleCreated, error) {
	rid := chat.NewID()
	var role chat.Role
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		if err := x.require(perm.ManageRole); err != nil {
			return err
		}
		s := x.server
		if max := a.settings.Limits.ServerRoles; len(s.Roles) >= max {
			return chat.ErrTooManyRoles(max)
		}
		// The new role ranks below all others. Ranks are not re-packed on
		// delete, so counting roles could give a rank already in use.
		rank := int64(0)
		for _, r := range s.Roles {
			rank = max(rank, r.Rank+1)
		}
		role = chat.Role{ID: rid, Name: data.Name, Rank: rank}
		if s.Roles == nil {
			s.Roles = map[chat.ID]chat.Role{}
		}
		s.Roles[rid] = role
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditRoleCreate, Role: rid,
			Name: named(role.Name)}); err != nil {
			return err
		}
		return dbError("update server", st.UpdateServer(ctx, s))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ServerRoleUpdateEvent{Type: chat.EvServerRoleUpdate, ID: id,
		RoleID: rid, Data: rolePartial(role), Clear: []string{}}, event.Of(id))
	return &chat.RoleCreated{ID: rid, Role: role}, nil
}

// FetchRole returns a role of a server the caller is a member of.
func (a *App) FetchRole(ctx context.Context, c *Caller, id, roleID chat.ID) (*chat.Role, error) {
	x, err := a.serverAccess(ctx, a.store, c.User, id)
	if err != nil {
		return nil, err
	}
	r, err := x.role(roleID)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// EditRole changes a role's name, colour, hoist or icon (ManageRole, and
// the role must rank below the caller). Rank changes go through
// EditRoleRanks.
func (a *App) EditRole(ctx context.Context, c *Caller, id, roleID chat.ID, data chat.RoleEdit) (*chat.Role, error) {
	var (
		role    chat.Role
		changed = chat.Partial{}
		clear   []string
	)
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		if role, err = x.manageableRole(roleID, perm.ManageRole); err != nil {
			return err
		}
		if data.Removes(chat.FieldColour) {
			role.Colour = nil
		}
		if data.Removes(chat.FieldIcon) {
			if err := dropFile(ctx, st, role.Icon); err != nil {
				return err
			}
			role.Icon = nil
		}
		if data.Icon != nil {
			f, err := replaceFile(ctx, st, *data.Icon, chat.TagIcons, usedForRoleIcon, roleID, role.Icon)
			if err != nil {
				return err
			}
			role.Icon = f
			changed["icon"] = f
		}
		if data.Name != nil {
			role.Name = *data.Name
			changed["name"] = role.Name
		}
		if data.Colour != nil {
			colour := *data.Colour
			role.Colour = &colour
			changed["colour"] = colour
		}
		if data.Hoist != nil {
			role.Hoist = *data.Hoist
			changed["hoist"] = role.Hoist
		}
		clear = clearList(data.Remove, changed, map[string]string{chat.FieldColour: "colour", chat.FieldIcon: "icon"})
		if len(changed) == 0 && len(clear) == 0 {
			return nil
		}
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditRoleEdit, Role: roleID,
			Remove: clear, Partial: edited(changed)}); err != nil {
			return err
		}
		x.server.Roles[roleID] = role
		return dbError("update server", st.UpdateServer(ctx, x.server))
	})
	if err != nil {
		return nil, err
	}
	if len(changed) > 0 || len(clear) > 0 {
		a.publish(ctx, chat.ServerRoleUpdateEvent{Type: chat.EvServerRoleUpdate, ID: id,
			RoleID: roleID, Data: changed, Clear: clear}, event.Of(id))
	}
	a.syncServerVoice(ctx, id)
	return &role, nil
}

// DeleteRole removes a role (ManageRole, ranked below the caller) and
// every reference to it: members' role lists and the role overrides of
// all the server's channels.
func (a *App) DeleteRole(ctx context.Context, c *Caller, id, roleID chat.ID) error {
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		role, err := x.manageableRole(roleID, perm.ManageRole)
		if err != nil {
			return err
		}
		if err := dropFile(ctx, st, role.Icon); err != nil {
			return err
		}
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditRoleDelete, Role: roleID,
			Name: named(role.Name)}); err != nil {
			return err
		}
		delete(x.server.Roles, roleID)
		if err := st.UpdateServer(ctx, x.server); err != nil {
			return dbError("update server", err)
		}
		members, err := st.FetchMembers(ctx, id)
		if err != nil {
			return dbError("fetch members", err)
		}
		for _, m := range members {
			if !slices.Contains(m.Roles, roleID) {
				continue
			}
			m.Roles = slices.DeleteFunc(m.Roles, func(r chat.ID) bool { return r == roleID })
			if err := st.UpdateMember(ctx, m); err != nil {
				return dbError("update member", err)
			}
		}
		channels, err := st.FetchServerChannels(ctx, id)
		if err != nil {
			return dbError("fetch server channels", err)
		}
		for _, ch := range channels {
			if _, ok := ch.RolePermissions[roleID]; !ok {
				continue
			}
			delete(ch.RolePermissions, roleID)
			if err := st.UpdateChannel(ctx, ch); err != nil {
				return dbError("update channel", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.ServerRoleDeleteEvent{Type: chat.EvServerRoleDelete, ID: id,
		RoleID: roleID}, event.Of(id))
	a.syncServerVoice(ctx, id)
	return nil
}

// EditRoleRanks reorders every role of a server, highest first
// (ManageRole). The list must hold each role exactly once; a caller who
// does not own the server may not move a role ranked at or above their
// own best role.
func (a *App) EditRoleRanks(ctx context.Context, c *Caller, id chat.ID, ranks []chat.ID) (*chat.Server, error) {
	var s *chat.Server
	err := a.store.InTx(ctx, func(st store.Store) error {
		x, err := a.serverAccess(ctx, st, c.User, id)
		if err != nil {
			return err
		}
		if err := x.require(perm.ManageRole); err != nil {
			return err
		}
		s = x.server
		if len(ranks) != len(s.Roles) {
			return chat.ErrInvalidOperation
		}
		seen := map[chat.ID]bool{}
		for _, r := range ranks {
			if _, ok := s.Roles[r]; !ok || seen[r] {
				return chat.ErrInvalidOperation
			}
			seen[r] = true
		}
		// The current order: by rank, ties by id.
		old := make([]chat.ID, 0, len(s.Roles))
		for r := range s.Roles {
			old = append(old, r)
		}
		slices.SortFunc(old, func(p, q chat.ID) int {
			if d := s.Roles[p].Rank - s.Roles[q].Rank; d != 0 {
				if d < 0 {
					return -1
				}
				return 1
			}
			return strings.Compare(string(p), string(q))
		})
		mine := x.rank()
		for i, r := range old {
			if s.Roles[r].Rank <= mine && ranks[i] != r {
				return chat.ErrNotElevated
			}
		}
		for i, r := range ranks {
			role := s.Roles[r]
			role.Rank = int64(i)
			s.Roles[r] = role
		}
		if err := a.audit(ctx, st, c, id, chat.AuditAction{Type: chat.AuditRolesReorder,
			Positions: slices.Clone(ranks)}); err != nil {
			return err
		}
		return dbError("update server", st.UpdateServer(ctx, s))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ServerRoleRanksUpdateEvent{Type: chat.EvServerRoleRanksUpdate,
		ID: id, Ranks: ranks}, event.Of(id))
	a.syncServerVoice(ctx, id)
	return s, nil
}
