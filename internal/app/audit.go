package app

import (
	"context"
	"errors"
	"slices"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// audit records in server's audit log that c took action. It writes
// through st, the transaction of the change it records, so an entry
// exists exactly when the change does.
func (a *App) audit(ctx context.Context, st store.Store, c *Caller, server chat.ID, action chat.AuditAction) error {
	e := &chat.AuditLogEntry{ID: chat.NewIDAt(a.now()), Server: server, Reason: c.AuditReason,
		User: c.ID(), Action: action}
	return dbError("insert audit log entry", st.InsertAuditLogEntry(ctx, e))
}

// edited returns the partial of an edit entry: the changed fields, never
// nil so the entry always carries one.
func edited(changed chat.Partial) *chat.Partial {
	p := chat.Partial{}
	for k, v := range changed {
		p[k] = v
	}
	return &p
}

// named returns a pointer to a copy of s, for the name of an entry.
func named(s string) *string { return &s }

// AuditLogQuery selects entries of a server's audit log
// (GET /servers/{id}/audit_logs).
type AuditLogQuery struct {
	User         chat.ID
	Target       string
	Types        []string
	Before       chat.ID
	After        chat.ID
	Limit        int // 1–100; 0 means 50
	IncludeUsers bool
}

// AuditLogPage answers an audit log query: the entries, and when asked
// for, the users they name (with the actors) and those users' members.
type AuditLogPage struct {
	Entries []*chat.AuditLogEntry
	Users   []*chat.User   // nil unless asked for
	Members []*chat.Member // nil unless asked for
}

// QueryAuditLogs returns a server's audit log entries, newest first
// (ViewAuditLogs).
func (a *App) QueryAuditLogs(ctx context.Context, c *Caller, id chat.ID, q AuditLogQuery) (*AuditLogPage, error) {
	if q.Limit < 0 || q.Limit > 100 {
		return nil, chat.ErrInvalidBody("limit: must be between 1 and 100")
	}
	if q.Limit == 0 {
		q.Limit = 50
	}
	for _, t := range q.Types {
		if !slices.Contains(chat.AuditActionTypes, t) {
			return nil, chat.ErrInvalidBody("type: unknown action type " + t)
		}
	}
	x, err := a.serverAccess(ctx, a.store, c.User, id)
	if err != nil {
		return nil, err
	}
	if err := x.require(perm.ViewAuditLogs); err != nil {
		return nil, err
	}
	entries, err := a.store.FetchAuditLogEntries(ctx, store.AuditLogQuery{Server: id, User: q.User,
		Target: q.Target, Types: slices.Compact(slices.Sorted(slices.Values(q.Types))),
		Before: q.Before, After: q.After, Limit: q.Limit})
	if err != nil {
		return nil, dbError("fetch audit log", err)
	}
	if entries == nil {
		entries = []*chat.AuditLogEntry{}
	}
	page := &AuditLogPage{Entries: entries}
	if !q.IncludeUsers {
		return page, nil
	}
	var ids []chat.ID
	for _, e := range entries {
		for _, u := range append([]chat.ID{e.User}, e.Action.Users()...) {
			if !slices.Contains(ids, u) {
				ids = append(ids, u)
			}
		}
	}
	users, err := a.store.FetchUsers(ctx, ids)
	if err != nil {
		return nil, dbError("fetch users", err)
	}
	v, err := a.withRelations(ctx, c.User)
	if err != nil {
		return nil, err
	}
	page.Users, page.Members = []*chat.User{}, []*chat.Member{}
	for _, u := range users {
		seen, err := a.viewUser(ctx, v, u)
		if err != nil {
			return nil, err
		}
		page.Users = append(page.Users, seen)
		m, err := a.store.FetchMember(ctx, id, u.ID)
		switch {
		case err == nil:
			page.Members = append(page.Members, m)
		case !errors.Is(err, store.ErrNotFound):
			return nil, dbError("fetch member", err)
		}
	}
	return page, nil
}
