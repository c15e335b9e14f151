package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// The operator's console: what the web client's "Instance" pages need
// beyond the admin use cases of admin.go. Every use case here refuses
// callers who are not privileged (requireAdmin), and every change is
// written to the instance's audit log (recordAdmin).

// Instance describes the node to its operator: facts the app cannot
// learn from its other dependencies, set once at start.
type Instance struct {
	Version string
	// Store and Bus name what the node runs on ("sqlite", "postgres";
	// "inproc", "nats", "redis").
	Store, Bus string
	Started    time.Time
	// DiskUploads says uploads are kept on this machine's disk.
	DiskUploads bool
}

// Names of the instance's audit log entries.
const (
	AdminDisableUser      = "DisableUser"
	AdminEnableUser       = "EnableUser"
	AdminEditUser         = "EditUser"
	AdminWipeUser         = "WipeUser"
	AdminResetPassword    = "ResetPassword"
	AdminExportUser       = "ExportUser"
	AdminResolveReport    = "ResolveReport"
	AdminDeleteServer     = "DeleteServer"
	AdminTransferServer   = "TransferServer"
	AdminRemoveMember     = "RemoveMember"
	AdminCreateInvite     = "CreateRegistrationInvite"
	AdminDeleteInvite     = "DeleteRegistrationInvite"
	AdminBackup           = "Backup"
	backupTarget          = "backup"
	adminLogPage          = 50
	backupStaleAfter      = 7 * 24 * time.Hour
	voiceCheckTimeout     = 3 * time.Second
	adminRecentReportsCap = 20
)

// actor is the user id an audit log entry names: empty for the operator
// at the command line.
func actor(c *Caller) chat.ID {
	if c == nil || c.User == nil {
		return ""
	}
	return c.User.ID
}

// recordAdmin writes an entry of the instance's audit log. The action is
// done by then; failing to record it is logged, not undone.
func (a *App) recordAdmin(ctx context.Context, c *Caller, action, target string, detail map[string]any) {
	e := &chat.AdminAction{ID: chat.NewIDAt(a.now()), User: actor(c), Action: action, Target: target, Detail: detail}
	if err := a.store.InsertAdminAction(ctx, e); err != nil {
		a.log.ErrorContext(ctx, "record admin action", "action", action, "target", target, "err", err)
	}
}

// RecordBackup notes in the instance's audit log that the operator took
// a backup (to dest), which the overview's backup warning reads.
func (a *App) RecordBackup(ctx context.Context, dest string) error {
	e := &chat.AdminAction{ID: chat.NewIDAt(a.now()), Action: AdminBackup, Target: backupTarget,
		Detail: map[string]any{"file": dest}}
	return dbError("record backup", a.store.InsertAdminAction(ctx, e))
}

// voicePinger is what a voice service may offer to check its nodes.
type voicePinger interface {
	Ping(ctx context.Context, node string) error
}

// AdminOverview gathers the figures and warnings of the instance.
func (a *App) AdminOverview(ctx context.Context, c *Caller) (*chat.AdminOverview, error) {
	stats, err := a.AdminStats(ctx, c)
	if err != nil {
		return nil, err
	}
	now := a.now()
	o := &chat.AdminOverview{AdminStats: *stats, Version: a.settings.Instance.Version, Store: a.settings.Instance.Store, Bus: a.settings.Instance.Bus,
		InviteOnly: a.settings.InviteOnly, Warnings: []chat.AdminWarning{}}
	if !a.settings.Instance.Started.IsZero() {
		o.Started = chat.TimeOf(a.settings.Instance.Started)
		o.Uptime = int64(now.Sub(a.settings.Instance.Started) / time.Second)
	}
	if a.push.pusher == nil {
		o.Warnings = append(o.Warnings, chat.AdminWarning{Type: "PushOff", Message: "Push notifications are not configured ([push] vapid keys): people get no notifications while the client is closed."})
	}
	if a.mail.mailer == nil {
		o.Warnings = append(o.Warnings, chat.AdminWarning{Type: "MailOff", Message: "Mail is not configured ([email]): addresses are not verified and nobody can reset a forgotten password by mail."})
	}
	if a.voice != nil {
		if p, ok := a.voice.(voicePinger); ok {
			for _, n := range a.voice.Nodes() {
				pctx, cancel := context.WithTimeout(ctx, voiceCheckTimeout)
				err := p.Ping(pctx, n.Name)
				cancel()
				if err != nil {
					o.Warnings = append(o.Warnings, chat.AdminWarning{Type: "VoiceUnreachable", Message: fmt.Sprintf("Voice is configured but its LiveKit node %q (%s) does not answer: %v", n.Name, n.URL, err)})
				}
			}
		}
	}
	if a.settings.Instance.DiskUploads && a.settings.Instance.Bus != "" && a.settings.Instance.Bus != "inproc" {
		o.Warnings = append(o.Warnings, chat.AdminWarning{Type: "DiskUploadsShared", Message: "Uploads are kept on this node's disk while several nodes share the database (bus " + a.settings.Instance.Bus + "): files uploaded through one node are missing on the others. Use S3 storage."})
	}
	last, err := a.store.FetchAdminActions(ctx, store.AdminActionQuery{Target: backupTarget, Limit: 1})
	if err != nil {
		return nil, dbError("fetch last backup", err)
	}
	if len(last) == 1 {
		t := chat.TimeOf(last[0].ID.Time())
		o.LastBackup = &t
		if age := now.Sub(last[0].ID.Time()); age > backupStaleAfter {
			o.Warnings = append(o.Warnings, chat.AdminWarning{Type: "BackupStale", Message: fmt.Sprintf("The last backup is %d days old (ermine backup).", int(age/(24*time.Hour)))})
		}
	}
	return o, nil
}

// AdminUserPage returns a user's page: profile, account state, sessions,
// servers, bots, recent reports by and against them, and what operators
// did to them.
func (a *App) AdminUserPage(ctx context.Context, c *Caller, id chat.ID) (*chat.AdminUserPage, error) {
	au, err := a.AdminFetchUser(ctx, c, id)
	if err != nil {
		return nil, err
	}
	id = au.User.ID
	p := &chat.AdminUserPage{AdminUser: au, SessionList: []chat.AdminSession{}, Servers: []chat.AdminServerRef{}, Bots: []*chat.User{}}
	acc, err := a.store.FetchAccount(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, dbError("fetch account", err)
	default:
		p.MFA = acc.MFA.TOTPSecret != "" || len(acc.MFA.RecoveryCodes) > 0
	}
	sessions, err := a.store.FetchSessions(ctx, id)
	if err != nil {
		return nil, dbError("fetch sessions", err)
	}
	for _, s := range sessions {
		p.SessionList = append(p.SessionList, chat.AdminSession{ID: s.ID, Name: s.Name, LastSeen: s.LastSeen})
	}
	ms, err := a.store.FetchMemberships(ctx, id)
	if err != nil {
		return nil, dbError("fetch memberships", err)
	}
	for _, m := range ms {
		s, err := a.store.FetchServer(ctx, m.ID.Server)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, dbError("fetch server", err)
		}
		p.Servers = append(p.Servers, chat.AdminServerRef{ID: s.ID, Name: s.Name, Owner: s.Owner == id})
	}
	bots, err := a.store.FetchBotsByOwner(ctx, id)
	if err != nil {
		return nil, dbError("fetch bots", err)
	}
	for _, b := range bots {
		u, err := a.store.FetchUser(ctx, b.ID)
		if err == nil {
			p.Bots = append(p.Bots, u)
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, dbError("fetch bot user", err)
		}
	}
	if p.ReportsBy, err = a.store.FetchReports(ctx, store.ReportQuery{Author: id, Limit: adminRecentReportsCap}); err != nil {
		return nil, dbError("fetch reports", err)
	}
	if p.ReportsAgainst, err = a.store.FetchReports(ctx, store.ReportQuery{Content: id, Limit: adminRecentReportsCap}); err != nil {
		return nil, dbError("fetch reports", err)
	}
	if p.Actions, err = a.store.FetchAdminActions(ctx, store.AdminActionQuery{Target: string(id), Limit: adminLogPage}); err != nil {
		return nil, dbError("fetch admin actions", err)
	}
	p.ReportsBy, p.ReportsAgainst, p.Actions = orEmpty(p.ReportsBy), orEmpty(p.ReportsAgainst), orEmpty(p.Actions)
	return p, nil
}

// orEmpty makes a nil list an empty one, so it encodes as [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// AdminServers lists servers whose id is query or whose name contains
// it, by id, after after.
func (a *App) AdminServers(ctx context.Context, c *Caller, query string, after chat.ID, limit int) ([]chat.AdminServerItem, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	if limit < 1 || limit > 1000 {
		return nil, chat.ErrFailedValidation("limit: between 1 and 1000")
	}
	ss, err := a.store.SearchServers(ctx, store.UserSearch{Query: strings.TrimSpace(query), After: after, Limit: limit})
	if err != nil {
		return nil, dbError("search servers", err)
	}
	out := make([]chat.AdminServerItem, 0, len(ss))
	for _, s := range ss {
		n, err := a.store.CountMembers(ctx, s.ID)
		if err != nil {
			return nil, dbError("count members", err)
		}
		out = append(out, chat.AdminServerItem{Server: s, Members: n})
	}
	return out, nil
}

// AdminServerPage returns a server with its owner, member count,
// channels, recent audit log and what operators did to it.
func (a *App) AdminServerPage(ctx context.Context, c *Caller, id chat.ID) (*chat.AdminServerPage, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	s, err := a.store.FetchServer(ctx, id)
	if err != nil {
		return nil, dbError("fetch server", notFound(err))
	}
	p := &chat.AdminServerPage{Server: s}
	owner, err := a.store.FetchUser(ctx, s.Owner)
	switch {
	case err == nil:
		view := *owner
		view.Relations, view.Relationship = nil, chat.RelationNone
		p.Owner = &view
	case !errors.Is(err, store.ErrNotFound):
		return nil, dbError("fetch owner", err)
	}
	if p.Members, err = a.store.CountMembers(ctx, id); err != nil {
		return nil, dbError("count members", err)
	}
	if p.Channels, err = a.store.FetchServerChannels(ctx, id); err != nil {
		return nil, dbError("fetch channels", err)
	}
	if p.AuditLog, err = a.store.FetchAuditLogEntries(ctx, store.AuditLogQuery{Server: id, Limit: adminLogPage}); err != nil {
		return nil, dbError("fetch audit log", err)
	}
	if p.Actions, err = a.store.FetchAdminActions(ctx, store.AdminActionQuery{Target: string(id), Limit: adminLogPage}); err != nil {
		return nil, dbError("fetch admin actions", err)
	}
	p.Channels, p.AuditLog, p.Actions = orEmpty(p.Channels), orEmpty(p.AuditLog), orEmpty(p.Actions)
	return p, nil
}

// AdminDeleteServer deletes a server as its owner would (ServerDelete
// to its members).
func (a *App) AdminDeleteServer(ctx context.Context, c *Caller, id chat.ID) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	if _, err := a.store.FetchServer(ctx, id); err != nil {
		return dbError("fetch server", notFound(err))
	}
	if err := a.adminDeleteServer(ctx, id); err != nil {
		return err
	}
	a.recordAdmin(ctx, c, AdminDeleteServer, string(id), nil)
	return nil
}

// AdminTransferServer makes a member the owner of a server.
func (a *App) AdminTransferServer(ctx context.Context, c *Caller, id, owner chat.ID) (*chat.Server, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	var s *chat.Server
	var from chat.ID
	err := a.store.InTx(ctx, func(tx store.Store) error {
		var err error
		if s, err = tx.FetchServer(ctx, id); err != nil {
			return dbError("fetch server", notFound(err))
		}
		if s.Owner == owner {
			return chat.ErrInvalidOperation
		}
		if _, err := tx.FetchMember(ctx, id, owner); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return chat.ErrFailedValidation("owner: not a member of the server")
			}
			return dbError("fetch member", err)
		}
		from, s.Owner = s.Owner, owner
		return dbError("update server", tx.UpdateServer(ctx, s))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: id,
		Data: chat.Partial{"owner": owner}, Clear: []string{}}, event.Of(id))
	a.syncServerVoice(ctx, id)
	a.recordAdmin(ctx, c, AdminTransferServer, string(id), map[string]any{"from": from, "to": owner})
	return s, nil
}

// AdminRemoveMember removes a member from a server, as a kick does
// (without the system message); the owner cannot be removed.
func (a *App) AdminRemoveMember(ctx context.Context, c *Caller, id, user chat.ID) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	var s *chat.Server
	err := a.store.InTx(ctx, func(tx store.Store) error {
		var err error
		if s, err = tx.FetchServer(ctx, id); err != nil {
			return dbError("fetch server", notFound(err))
		}
		if s.Owner == user {
			return chat.ErrInvalidOperation
		}
		m, err := tx.FetchMember(ctx, id, user)
		if err != nil {
			return dbError("fetch member", notFound(err))
		}
		return a.departMember(ctx, tx, m)
	})
	if err != nil {
		return err
	}
	a.memberRemoved(ctx, s, user, chat.LeaveReasonKick)
	a.recordAdmin(ctx, c, AdminRemoveMember, string(id), map[string]any{"user": user})
	return nil
}

// AdminRegistrationInvites lists every registration invite code.
func (a *App) AdminRegistrationInvites(ctx context.Context, c *Caller) (*chat.AdminInvites, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	invs, err := a.RegistrationInvites(ctx, c)
	if err != nil {
		return nil, err
	}
	return &chat.AdminInvites{InviteOnly: a.settings.InviteOnly, Invites: orEmpty(invs)}, nil
}

// AdminDeleteRegistrationInvite revokes a registration invite code that
// was not used yet.
func (a *App) AdminDeleteRegistrationInvite(ctx context.Context, c *Caller, code string) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	err := a.store.InTx(ctx, func(tx store.Store) error {
		inv, err := tx.FetchRegistrationInvite(ctx, code)
		if err != nil {
			return dbError("fetch invite", notFound(err))
		}
		if inv.Used {
			return chat.ErrInvalidOperation
		}
		return dbError("delete invite", tx.DeleteRegistrationInvite(ctx, code))
	})
	if err != nil {
		return err
	}
	a.recordAdmin(ctx, c, AdminDeleteInvite, code, nil)
	return nil
}

// AdminActionQuery selects a page of the instance's audit log.
type AdminActionQuery = store.AdminActionQuery

// AdminActions lists the instance's audit log, newest first.
func (a *App) AdminActions(ctx context.Context, c *Caller, q AdminActionQuery) ([]*chat.AdminAction, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	if q.Limit < 1 || q.Limit > 1000 {
		return nil, chat.ErrFailedValidation("limit: between 1 and 1000")
	}
	out, err := a.store.FetchAdminActions(ctx, q)
	return orEmpty(out), dbError("fetch admin actions", err)
}
