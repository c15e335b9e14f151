package sqlstore

import (
	"context"
	"strings"
	"time"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// SearchUsers lists users by id, username or account email.
func (s *DB) SearchUsers(ctx context.Context, q store.UserSearch) ([]*chat.User, error) {
	pattern := "%" + likeEscape(strings.ToLower(q.Query)) + "%"
	docs, err := many[chat.UserDoc](ctx, s, `SELECT data FROM users
		WHERE (? = '' OR id = ? OR username_lower LIKE ? ESCAPE '\'
			OR id IN (SELECT id FROM accounts WHERE LOWER(`+s.d.Field("data", "email")+`) LIKE ? ESCAPE '\')) AND id > ?
		ORDER BY id LIMIT ?`, q.Query, q.Query, pattern, pattern, q.After, q.Limit)
	if err != nil {
		return nil, err
	}
	return users(docs), nil
}

// SearchServers lists servers by id or name.
func (s *DB) SearchServers(ctx context.Context, q store.UserSearch) ([]*chat.Server, error) {
	pattern := "%" + likeEscape(strings.ToLower(q.Query)) + "%"
	return many[chat.Server](ctx, s, `SELECT data FROM servers
		WHERE (? = '' OR id = ? OR LOWER(`+s.d.Field("data", "name")+`) LIKE ? ESCAPE '\') AND id > ?
		ORDER BY id LIMIT ?`, q.Query, q.Query, pattern, q.After, q.Limit)
}

// likeEscape escapes the wildcards of a LIKE pattern.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// FetchMessagesByAuthor lists an author's messages, oldest first.
func (s *DB) FetchMessagesByAuthor(ctx context.Context, author, after chat.ID, limit int) ([]*chat.Message, error) {
	if s.d.ByAuthor != nil {
		q, args := s.d.ByAuthor(author, after, limit)
		return manyMessages(ctx, s, q, args...)
	}
	return manyMessages(ctx, s, `SELECT `+messageCols+` FROM messages WHERE author_id = ? AND id > ? ORDER BY id LIMIT ?`,
		author, after, limit)
}

// FetchFilesByUploader lists an uploader's file records by id.
func (s *DB) FetchFilesByUploader(ctx context.Context, uploader chat.ID, after string, limit int) ([]*chat.FileRecord, error) {
	return many[chat.FileRecord](ctx, s, `SELECT data FROM files WHERE uploader_id = ? AND id > ? ORDER BY id LIMIT ?`,
		uploader, after, limit)
}

// CountObjects counts what the instance holds.
func (s *DB) CountObjects(ctx context.Context) (store.Counts, error) {
	var c store.Counts
	err := s.queryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM accounts),
		(SELECT COUNT(*) FROM users),
		(SELECT COUNT(*) FROM bots),
		(SELECT COUNT(*) FROM servers),
		(SELECT COUNT(*) FROM channels),
		(SELECT COUNT(*) FROM messages),
		(SELECT COUNT(*) FROM reports WHERE status = 'Created')`).Scan(
		&c.Accounts, &c.Users, &c.Bots, &c.Servers, &c.Channels, &c.Messages, &c.Reports)
	return c, err
}

// maxRelayEvents bounds relay_events: inserting beyond it drops the
// oldest frames (no node has taken them; clients recover with a fresh
// Ready when they connect).
const maxRelayEvents = 10000

// InsertRelayEvent keeps a frame for a running node, dropping the oldest
// beyond maxRelayEvents.
func (s *DB) InsertRelayEvent(ctx context.Context, topic string, frame []byte) error {
	return s.within(ctx, func(tx *DB) error {
		if _, err := tx.exec(ctx, `INSERT INTO relay_events (topic, frame, created_at) VALUES (?, ?, ?)`, topic, frame, time.Now().UnixMilli()); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `DELETE FROM relay_events WHERE id <= (SELECT MAX(id) FROM relay_events) - ?`, maxRelayEvents)
		return err
	})
}

// TakeRelayEvents removes and returns the oldest kept frames, dropping
// those kept before since. With none kept it only reads: an idle node
// asking twice a second never takes the database's write lock.
func (s *DB) TakeRelayEvents(ctx context.Context, limit int, since time.Time) ([]store.RelayEvent, error) {
	if s.tx == nil {
		var n int
		err := s.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM relay_events LIMIT 1) AS x`).Scan(&n)
		if err != nil || n == 0 {
			return nil, err
		}
	}
	var out []store.RelayEvent
	err := s.within(ctx, func(tx *DB) error {
		out = nil
		if _, err := tx.exec(ctx, `DELETE FROM relay_events WHERE created_at < ?`, since.UnixMilli()); err != nil {
			return err
		}
		rows, err := tx.query(ctx, `SELECT id, topic, frame FROM relay_events ORDER BY id LIMIT ?`, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			var e store.RelayEvent
			if err := rows.Scan(&id, &e.Topic, &e.Frame); err != nil {
				return err
			}
			ids, out = append(ids, id), append(out, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for _, id := range ids {
			if _, err := tx.exec(ctx, `DELETE FROM relay_events WHERE id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// InsertAdminAction adds an entry to the instance's audit log.
func (s *DB) InsertAdminAction(ctx context.Context, e *chat.AdminAction) error {
	data, err := encode(e)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO admin_actions (id, target, data) VALUES (?, ?, ?)`, e.ID, e.Target, data)
	return err
}

// FetchAdminActions lists the instance's audit log, newest first.
func (s *DB) FetchAdminActions(ctx context.Context, q store.AdminActionQuery) ([]*chat.AdminAction, error) {
	where, args := []string{"1 = 1"}, []any{}
	if q.Target != "" {
		where, args = append(where, "target = ?"), append(args, q.Target)
	}
	if q.Before != "" {
		where, args = append(where, "id < ?"), append(args, q.Before)
	}
	return many[chat.AdminAction](ctx, s, `SELECT data FROM admin_actions WHERE `+strings.Join(where, " AND ")+
		` ORDER BY id DESC LIMIT ?`, append(args, q.Limit)...)
}
