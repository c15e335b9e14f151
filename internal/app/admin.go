package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"ermine/internal/auth"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// Running the platform: the use cases of the admin API and of the
// `ermine admin` command. Every Admin… method takes the caller and
// refuses anyone but a privileged user or the operator at the command
// line (Operator) with NotPrivileged. A nil caller (an anonymous request)
// is refused like anyone else.

// requireAdmin refuses callers who may not run the platform.
func requireAdmin(c *Caller) error {
	if c == nil {
		return chat.ErrNotPrivileged
	}
	if c.operator {
		return nil
	}
	if c.IsBot() || c.User == nil || !c.User.Privileged {
		return chat.ErrNotPrivileged
	}
	return nil
}

// connectionCounter is what a presence tracker may tell about itself.
type connectionCounter interface {
	Counts() (users, connections int)
}

// AdminStats counts users, servers, messages and connections.
func (a *App) AdminStats(ctx context.Context, c *Caller) (*chat.AdminStats, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	counts, err := a.store.CountObjects(ctx)
	if err != nil {
		return nil, dbError("count objects", err)
	}
	s := &chat.AdminStats{InstanceCounts: counts}
	if cc, ok := a.online.(connectionCounter); ok {
		s.OnlineUsers, s.Connections = cc.Counts()
	}
	return s, nil
}

// AdminUsers lists users whose id is query or whose username contains
// it, by id, after after.
func (a *App) AdminUsers(ctx context.Context, c *Caller, query string, after chat.ID, limit int) ([]*chat.AdminUser, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	if limit < 1 || limit > 1000 {
		return nil, chat.ErrFailedValidation("limit: between 1 and 1000")
	}
	us, err := a.store.SearchUsers(ctx, store.UserSearch{Query: strings.TrimSpace(query), After: after, Limit: limit})
	if err != nil {
		return nil, dbError("search users", err)
	}
	out := make([]*chat.AdminUser, 0, len(us))
	for _, u := range us {
		au, err := a.adminUser(ctx, u)
		if err != nil {
			return nil, err
		}
		out = append(out, au)
	}
	return out, nil
}

// AdminFetchUser returns one user with their account.
func (a *App) AdminFetchUser(ctx context.Context, c *Caller, id chat.ID) (*chat.AdminUser, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	u, err := a.resolveUser(ctx, string(id))
	if err != nil {
		return nil, err
	}
	return a.adminUser(ctx, u)
}

// resolveUser finds a user by id or by "name#discriminator".
func (a *App) resolveUser(ctx context.Context, ref string) (*chat.User, error) {
	if name, disc, ok := strings.Cut(ref, "#"); ok {
		u, err := a.store.FetchUserByUsername(ctx, name, disc)
		return u, dbError("fetch user", notFound(err))
	}
	u, err := a.store.FetchUser(ctx, chat.ID(ref))
	return u, dbError("fetch user", notFound(err))
}

func (a *App) adminUser(ctx context.Context, u *chat.User) (*chat.AdminUser, error) {
	view := *u
	view.Relations, view.Relationship, view.Online = nil, chat.RelationNone, a.online.Online(u.ID)
	au := &chat.AdminUser{User: &view, Online: view.Online}
	acc, err := a.store.FetchAccount(ctx, u.ID)
	switch {
	case errors.Is(err, store.ErrNotFound): // a bot
	case err != nil:
		return nil, dbError("fetch account", err)
	default:
		au.Email, au.Verified, au.Disabled, au.DeleteAfter = acc.Email, acc.Verified, acc.Disabled, acc.DeleteAfter
	}
	sessions, err := a.store.FetchSessions(ctx, u.ID)
	if err != nil {
		return nil, dbError("fetch sessions", err)
	}
	au.Sessions = len(sessions)
	return au, nil
}

// AdminSetDisabled disables an account, ending its sessions (the login
// then answers Disabled), or enables it again.
func (a *App) AdminSetDisabled(ctx context.Context, c *Caller, id chat.ID, disabled bool) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	if !c.operator && c.ID() == id && disabled {
		return chat.ErrInvalidOperation
	}
	var ended bool
	err := a.store.InTx(ctx, func(tx store.Store) error {
		acc, err := tx.FetchAccount(ctx, id)
		if err != nil {
			return dbError("fetch account", notFound(err))
		}
		if acc.Disabled == disabled {
			return nil
		}
		if !disabled && acc.DeleteAfter != nil {
			acc.DeleteAfter = nil // enabling cancels a scheduled deletion
		}
		acc.Disabled = disabled
		if err := tx.UpdateAccount(ctx, acc); err != nil {
			return dbError("update account", err)
		}
		if disabled {
			ended = true
			_, err := tx.DeleteSessions(ctx, id, "")
			return dbError("delete sessions", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if ended {
		a.publishSessionsDeleted(ctx, id, nil)
	}
	action := AdminEnableUser
	if disabled {
		action = AdminDisableUser
	}
	a.recordAdmin(ctx, c, action, string(id), nil)
	return nil
}

// AdminEditUser sets a user's badges, flags or privileged mark and tells
// whoever sees the user.
func (a *App) AdminEditUser(ctx context.Context, c *Caller, id chat.ID, d chat.AdminUserEdit) (*chat.AdminUser, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	if d.Privileged != nil && !c.operator && c.ID() == id && !*d.Privileged {
		return nil, chat.ErrInvalidOperation // keep someone able to undo it
	}
	var u *chat.User
	err := a.store.InTx(ctx, func(tx store.Store) error {
		var err error
		if u, err = tx.FetchUser(ctx, id); err != nil {
			return dbError("fetch user", notFound(err))
		}
		if d.Badges != nil {
			u.Badges = *d.Badges
		}
		if d.Flags != nil {
			u.Flags = *d.Flags
		}
		if d.Privileged != nil {
			u.Privileged = *d.Privileged
		}
		return dbError("update user", tx.UpdateUser(ctx, u))
	})
	if err != nil {
		return nil, err
	}
	data := chat.Partial{}
	if d.Badges != nil {
		data["badges"] = u.Badges
	}
	if d.Flags != nil {
		data["flags"] = u.Flags
	}
	if len(data) > 0 {
		if err := a.publishUserUpdate(ctx, id, data, nil); err != nil {
			a.log.ErrorContext(ctx, "announce user edit", "err", err)
		}
	}
	detail := map[string]any{}
	if d.Badges != nil {
		detail["badges"] = *d.Badges
	}
	if d.Flags != nil {
		detail["flags"] = *d.Flags
	}
	if d.Privileged != nil {
		detail["privileged"] = *d.Privileged
	}
	a.recordAdmin(ctx, c, AdminEditUser, string(id), detail)
	return a.adminUser(ctx, u)
}

// Wipe modes.
const (
	WipeBan    = "ban"    // flag 8 (spam): banned from the platform
	WipeDelete = "delete" // the account is deleted and the user anonymised
)

// wipeBatch is how many messages a wipe deletes per transaction.
const wipeBatch = 500

// AdminWipeUser removes a user from the platform: their sessions end,
// their account is disabled (ban) or deleted (delete), they leave every
// server they do not own and every relationship, their messages are
// deleted, and UserPlatformWipe goes to everyone who could see them:
// their relations and DM/group partners, and the members of their
// servers. Clients then drop their messages, DMs and memberships.
func (a *App) AdminWipeUser(ctx context.Context, c *Caller, id chat.ID, mode string) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	flag := uint32(chat.UserFlagSpam)
	switch mode {
	case WipeBan:
	case WipeDelete:
		flag = chat.UserFlagDeleted
	default:
		return chat.ErrFailedValidation(`mode: want "ban" or "delete"`)
	}
	if !c.operator && c.ID() == id {
		return chat.ErrInvalidOperation
	}
	u, err := a.store.FetchUser(ctx, id)
	if err != nil {
		return dbError("fetch user", notFound(err))
	}

	// Who could see them, gathered before anything is removed.
	topics := []string{event.Of(id)}
	ms, err := a.store.FetchMemberships(ctx, id)
	if err != nil {
		return dbError("fetch memberships", err)
	}
	for _, m := range ms {
		topics = append(topics, event.Of(m.ID.Server))
	}
	chans, err := a.store.FetchPrivateChannels(ctx, id)
	if err != nil {
		return dbError("fetch channels", err)
	}
	for _, ch := range chans {
		if ch.ChannelType != chat.ChannelSavedMessages {
			topics = append(topics, event.Of(ch.ID))
		}
	}
	rels, err := a.store.FetchRelationships(ctx, id)
	if err != nil {
		return dbError("fetch relationships", err)
	}
	for _, r := range rels {
		topics = append(topics, event.Private(r.ID))
	}

	err = a.store.InTx(ctx, func(tx store.Store) error {
		acc, err := tx.FetchAccount(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound): // a bot
		case err != nil:
			return dbError("fetch account", err)
		default:
			acc.Disabled = true
			if err := tx.UpdateAccount(ctx, acc); err != nil {
				return dbError("update account", err)
			}
		}
		if _, err := tx.DeleteSessions(ctx, id, ""); err != nil {
			return dbError("delete sessions", err)
		}
		if u.Bot != nil {
			// A bot has no sessions: a new token nobody knows ends its access.
			b, err := tx.FetchBot(ctx, id)
			if err == nil {
				b.Token = chat.NewToken(tokenLength)
				err = tx.UpdateBot(ctx, b)
			}
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return dbError("revoke bot token", err)
			}
		}
		for _, m := range ms {
			s, err := tx.FetchServer(ctx, m.ID.Server)
			if err != nil || s.Owner == id {
				continue // their own servers stay for the operator to judge
			}
			if err := a.departMember(ctx, tx, m); err != nil {
				return err
			}
		}
		for _, r := range rels {
			if err := tx.SetRelationship(ctx, id, r.ID, chat.RelationNone); err != nil {
				return dbError("remove relationship", err)
			}
			if err := tx.SetRelationship(ctx, r.ID, id, chat.RelationNone); err != nil {
				return dbError("remove relationship", err)
			}
		}
		u.Flags |= flag
		return dbError("update user", tx.UpdateUser(ctx, u))
	})
	if err != nil {
		return err
	}
	a.publishSessionsDeleted(ctx, id, nil)
	if err := a.deleteMessagesBy(ctx, id); err != nil {
		return err
	}
	if mode == WipeDelete {
		if err := a.store.InTx(ctx, func(tx store.Store) error {
			u, err := tx.FetchUser(ctx, id)
			if err != nil {
				return dbError("fetch user", err)
			}
			if _, err := a.anonymise(ctx, tx, u); err != nil {
				return err
			}
			if err := tx.DeleteAccount(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
				return dbError("delete account", err)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	eventID := string(chat.NewID())
	a.publish(ctx, chat.UserPlatformWipeEvent{Type: chat.EvUserPlatformWipe,
		UserID: id, Flags: u.Flags | flag, EventID: &eventID}, dedupeTopics(topics)...)
	a.recordAdmin(ctx, c, AdminWipeUser, string(id), map[string]any{"mode": mode})
	return nil
}

// dedupeTopics drops repeated topics, keeping the order.
func dedupeTopics(ts []string) []string {
	out := ts[:0:0]
	for _, t := range ts {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// deleteMessagesBy deletes every message of author, in batches, and
// releases their files. Clients told of the wipe drop them themselves,
// so no MessageDelete goes out.
func (a *App) deleteMessagesBy(ctx context.Context, author chat.ID) error {
	for {
		msgs, err := a.store.FetchMessagesByAuthor(ctx, author, "", wipeBatch)
		if err != nil {
			return dbError("fetch messages", err)
		}
		if len(msgs) == 0 {
			return nil
		}
		byChannel := map[chat.ID][]chat.ID{}
		var files []string
		for _, m := range msgs {
			byChannel[m.Channel] = append(byChannel[m.Channel], m.ID)
			files = append(files, messageFiles(m)...)
		}
		err = a.store.InTx(ctx, func(tx store.Store) error {
			for ch, ids := range byChannel {
				if _, err := tx.DeleteMessages(ctx, ch, ids); err != nil {
					return dbError("delete messages", err)
				}
			}
			return releaseFiles(ctx, tx, files)
		})
		if err != nil {
			return err
		}
	}
}

// ReportQuery selects a page of reports for AdminReports.
type ReportQuery = store.ReportQuery

// AdminReports lists reports, newest first.
func (a *App) AdminReports(ctx context.Context, c *Caller, q store.ReportQuery) ([]*chat.Report, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	switch q.Status {
	case "", chat.ReportCreated, chat.ReportResolved, chat.ReportRejected:
	default:
		return nil, chat.ErrFailedValidation("status: want Created, Resolved or Rejected")
	}
	if q.Limit < 1 || q.Limit > 1000 {
		return nil, chat.ErrFailedValidation("limit: between 1 and 1000")
	}
	rs, err := a.store.FetchReports(ctx, q)
	if rs == nil {
		rs = []*chat.Report{}
	}
	return rs, dbError("fetch reports", err)
}

// AdminFetchReport returns one report.
func (a *App) AdminFetchReport(ctx context.Context, c *Caller, id chat.ID) (*chat.Report, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	r, err := a.store.FetchReport(ctx, id)
	return r, dbError("fetch report", notFound(err))
}

// Actions an operator takes on a reported item when closing its report.
const (
	ActionNone          = "None"
	ActionDeleteMessage = "DeleteMessage" // message reports
	ActionDeleteServer  = "DeleteServer"  // server reports
	ActionDisableUser   = "DisableUser"   // the user, the message's author or the server's owner
	ActionBanUser       = "BanUser"       // wipe with flag 8
	ActionDeleteUser    = "DeleteUser"    // wipe with the deletion flag
)

// AdminResolveReport closes an open report with a note, first acting on
// the reported item as asked.
func (a *App) AdminResolveReport(ctx context.Context, c *Caller, id chat.ID, d chat.ReportResolution) (*chat.Report, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	if d.Status == "" {
		d.Status = chat.ReportResolved
	}
	if d.Status != chat.ReportResolved && d.Status != chat.ReportRejected {
		return nil, chat.ErrFailedValidation("status: want Resolved or Rejected")
	}
	if d.Action == "" {
		d.Action = ActionNone
	}
	if len([]rune(d.Note)) > 2000 {
		return nil, chat.ErrFailedValidation("notes: at most 2000 characters")
	}
	r, err := a.store.FetchReport(ctx, id)
	if err != nil {
		return nil, dbError("fetch report", notFound(err))
	}
	if r.Status != chat.ReportCreated {
		return nil, chat.ErrInvalidOperation
	}
	if err := a.actOnReport(ctx, c, r, d.Action); err != nil {
		return nil, err
	}
	now := chat.TimeOf(a.now())
	r.Status, r.Note, r.Action, r.ClosedAt = d.Status, d.Note, d.Action, &now
	if !c.operator {
		by := c.ID()
		r.ClosedBy = &by
	}
	if err := a.store.UpdateReport(ctx, r); err != nil {
		return nil, dbError("update report", err)
	}
	a.recordAdmin(ctx, c, AdminResolveReport, string(id), map[string]any{"status": r.Status, "action": r.Action, "notes": r.Note})
	return r, nil
}

// actOnReport carries out action on a report's item.
func (a *App) actOnReport(ctx context.Context, c *Caller, r *chat.Report, action string) error {
	if action == ActionNone {
		return nil
	}
	// The user an action on a person applies to.
	var target chat.ID
	switch r.Content.Type {
	case chat.ReportUser:
		target = r.Content.ID
	case chat.ReportMessage:
		if m, ok := r.Snapshot["_message"].(map[string]any); ok {
			if s, ok := m["author"].(string); ok {
				target = chat.ID(s)
			}
		}
	case chat.ReportServer:
		if s, ok := r.Snapshot["_server"].(map[string]any); ok {
			if o, ok := s["owner"].(string); ok {
				target = chat.ID(o)
			}
		}
	}
	switch action {
	case ActionDeleteMessage:
		if r.Content.Type != chat.ReportMessage {
			return chat.ErrInvalidOperation
		}
		return a.adminDeleteMessage(ctx, r.Content.ID)
	case ActionDeleteServer:
		if r.Content.Type != chat.ReportServer {
			return chat.ErrInvalidOperation
		}
		return a.adminDeleteServer(ctx, r.Content.ID)
	case ActionDisableUser, ActionBanUser, ActionDeleteUser:
		if target == "" {
			return chat.ErrInvalidOperation
		}
		switch action {
		case ActionDisableUser:
			return a.AdminSetDisabled(ctx, c, target, true)
		case ActionBanUser:
			return a.AdminWipeUser(ctx, c, target, WipeBan)
		default:
			return a.AdminWipeUser(ctx, c, target, WipeDelete)
		}
	}
	return chat.ErrFailedValidation(fmt.Sprintf("action: unknown %q", action))
}

// adminDeleteMessage deletes a message wherever it is; gone already is
// not an error.
func (a *App) adminDeleteMessage(ctx context.Context, id chat.ID) error {
	var channel chat.ID
	err := a.store.InTx(ctx, func(tx store.Store) error {
		m, err := tx.FetchMessage(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return dbError("fetch message", err)
		}
		channel = m.Channel
		if err := tx.DeleteMessage(ctx, id); err != nil {
			return dbError("delete message", err)
		}
		return releaseFiles(ctx, tx, messageFiles(m))
	})
	if err != nil || channel == "" {
		return err
	}
	a.publish(ctx, chat.MessageDeleteEvent{Type: chat.EvMessageDelete, ID: id, Channel: channel},
		event.Of(channel))
	return nil
}

// adminDeleteServer deletes a server as its owner would; gone already is
// not an error.
func (a *App) adminDeleteServer(ctx context.Context, id chat.ID) error {
	err := a.store.InTx(ctx, func(st store.Store) error {
		s, err := st.FetchServer(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return errGone
		}
		if err != nil {
			return dbError("fetch server", err)
		}
		if err := st.DetachEmojis(ctx, id); err != nil {
			return dbError("detach emojis", err)
		}
		if err := a.releaseServerFiles(ctx, st, s); err != nil {
			return err
		}
		return lookupError("delete server", st.DeleteServer(ctx, id))
	})
	if errors.Is(err, errGone) {
		return nil
	}
	if err != nil {
		return err
	}
	a.publish(ctx, chat.IDEvent{Type: chat.EvServerDelete, ID: id}, event.Of(id))
	return nil
}

// errGone ends a transaction that found nothing to do.
var errGone = errors.New("already gone")

// AdminResetPassword resets a user's password for the operator: with a
// password, it is set at once (and every session ends); without, a
// one-hour reset link is made and returned.
func (a *App) AdminResetPassword(ctx context.Context, c *Caller, id chat.ID, password string) (string, error) {
	if err := requireAdmin(c); err != nil {
		return "", err
	}
	tok := &chat.AccountToken{Token: auth.NewEmailToken(), Expiry: a.timeAfter(resetTTL)}
	var hash string
	if password != "" {
		if err := a.login.policy.Check(password); err != nil {
			return "", err
		}
		var err error
		if hash, err = a.login.passwords.Hash(ctx, password); err != nil {
			return "", fmt.Errorf("hash password: %w", err)
		}
	}
	err := a.store.InTx(ctx, func(tx store.Store) error {
		acc, err := tx.FetchAccount(ctx, id)
		if err != nil {
			return dbError("fetch account", notFound(err))
		}
		if hash != "" {
			acc.PasswordHash, acc.PasswordReset, acc.Lockout = hash, nil, nil
		} else {
			acc.PasswordReset = tok
		}
		if err := tx.UpdateAccount(ctx, acc); err != nil {
			return dbError("update account", err)
		}
		if hash != "" {
			_, err := tx.DeleteSessions(ctx, id, "")
			return dbError("delete sessions", err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if hash != "" {
		a.publishSessionsDeleted(ctx, id, nil)
		a.recordAdmin(ctx, c, AdminResetPassword, string(id), map[string]any{"set": true})
		return "", nil
	}
	a.recordAdmin(ctx, c, AdminResetPassword, string(id), map[string]any{"set": false})
	return a.settings.AppURL + resetPath + tok.Token, nil
}

// AdminCheck answers NotPrivileged unless c may use the admin API, so a
// transport can refuse before reading a request body.
func (a *App) AdminCheck(c *Caller) error { return requireAdmin(c) }
