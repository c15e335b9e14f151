package sqlstore

import (
	"context"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// InsertAuditLogEntry adds an audit log entry.
func (s *DB) InsertAuditLogEntry(ctx context.Context, e *chat.AuditLogEntry) error {
	data, err := encode(e)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO audit_logs (id, server_id, user_id, type, target, data) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, e.Server, e.User, e.Action.Type, e.Action.Target(), data)
	return err
}

// FetchAuditLogEntries returns a server's entries matching q, newest first.
func (s *DB) FetchAuditLogEntries(ctx context.Context, q store.AuditLogQuery) ([]*chat.AuditLogEntry, error) {
	where, args := []string{"server_id = ?"}, []any{q.Server}
	if q.User != "" {
		where, args = append(where, "user_id = ?"), append(args, q.User)
	}
	if q.Target != "" {
		where, args = append(where, "target = ?"), append(args, q.Target)
	}
	if len(q.Types) > 0 {
		where = append(where, "type IN ("+placeholders(len(q.Types))+")")
		for _, t := range q.Types {
			args = append(args, t)
		}
	}
	if q.Before != "" {
		where, args = append(where, "id < ?"), append(args, q.Before)
	}
	if q.After != "" {
		where, args = append(where, "id > ?"), append(args, q.After)
	}
	return many[chat.AuditLogEntry](ctx, s, `SELECT data FROM audit_logs WHERE `+strings.Join(where, " AND ")+
		` ORDER BY id DESC LIMIT ?`, append(args, q.Limit)...)
}
