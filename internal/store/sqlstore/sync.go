package sqlstore

import (
	"context"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// FetchUnreads lists a user's unread entries with their mentions.
func (s *DB) FetchUnreads(ctx context.Context, user chat.ID) ([]*chat.ChannelUnread, error) {
	rows, err := s.query(ctx, `SELECT channel_id, last_id FROM unreads WHERE user_id = ?
		UNION SELECT DISTINCT channel_id, NULL FROM unread_mentions
		WHERE user_id = ? AND channel_id NOT IN (SELECT channel_id FROM unreads WHERE user_id = ?)
		ORDER BY 1`, user, user, user)
	if err != nil {
		return nil, err
	}
	byChannel := map[chat.ID]*chat.ChannelUnread{}
	var out []*chat.ChannelUnread
	err = func() error {
		defer rows.Close()
		for rows.Next() {
			var ch chat.ID
			var last *string
			if err := rows.Scan(&ch, &last); err != nil {
				return err
			}
			u := &chat.ChannelUnread{ID: chat.ChannelUnreadID{Channel: ch, User: user}}
			if last != nil {
				id := chat.ID(*last)
				u.LastID = &id
			}
			byChannel[ch] = u
			out = append(out, u)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, err
	}
	mrows, err := s.query(ctx, `SELECT channel_id, message_id FROM unread_mentions WHERE user_id = ? ORDER BY channel_id, message_id`, user)
	if err != nil {
		return nil, err
	}
	defer mrows.Close()
	for mrows.Next() {
		var ch, msg chat.ID
		if err := mrows.Scan(&ch, &msg); err != nil {
			return nil, err
		}
		if u := byChannel[ch]; u != nil {
			u.Mentions = append(u.Mentions, msg)
		}
	}
	return out, mrows.Err()
}

// AckChannel marks a channel read up to message.
func (s *DB) AckChannel(ctx context.Context, user, channel, message chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		if _, err := tx.exec(ctx, `INSERT INTO unreads (user_id, channel_id, last_id) VALUES (?, ?, ?)
			ON CONFLICT (user_id, channel_id) DO UPDATE SET last_id = excluded.last_id`, user, channel, message); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `DELETE FROM unread_mentions WHERE user_id = ? AND channel_id = ? AND message_id <= ?`,
			user, channel, message)
		return err
	})
}

// AckChannels marks several channels read up to message.
func (s *DB) AckChannels(ctx context.Context, user chat.ID, channels []chat.ID, message chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		for _, c := range channels {
			if err := tx.AckChannel(ctx, user, c, message); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddMentions records mentions of users by message.
func (s *DB) AddMentions(ctx context.Context, channel, message chat.ID, users []chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		for _, u := range users {
			if _, err := tx.exec(ctx, `INSERT INTO unread_mentions (user_id, channel_id, message_id) VALUES (?, ?, ?)
				ON CONFLICT (user_id, channel_id, message_id) DO NOTHING`, u, channel, message); err != nil {
				return err
			}
		}
		return nil
	})
}

// FetchSettings returns some or all of a user's settings.
func (s *DB) FetchSettings(ctx context.Context, user chat.ID, keys []string) (map[string]chat.Setting, error) {
	q, args := `SELECT key, ts, value FROM settings WHERE user_id = ?`, []any{user}
	if len(keys) > 0 {
		q += ` AND key IN (` + placeholders(len(keys)) + `)`
		for _, k := range keys {
			args = append(args, k)
		}
	}
	rows, err := s.r().QueryContext(ctx, s.bind(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]chat.Setting{}
	for rows.Next() {
		var k string
		var v chat.Setting
		if err := rows.Scan(&k, &v.Timestamp, &v.Value); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// SetSettings stores settings.
func (s *DB) SetSettings(ctx context.Context, user chat.ID, settings map[string]chat.Setting) error {
	return s.within(ctx, func(tx *DB) error {
		for k, v := range settings {
			if _, err := tx.exec(ctx, `INSERT INTO settings (user_id, key, ts, value) VALUES (?, ?, ?, ?)
				ON CONFLICT (user_id, key) DO UPDATE SET ts = excluded.ts, value = excluded.value`,
				user, k, v.Timestamp, v.Value); err != nil {
				return err
			}
		}
		return nil
	})
}

// InsertReport adds a report.
func (s *DB) InsertReport(ctx context.Context, r *chat.Report) error {
	data, err := encode(r)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO reports (id, author_id, content_id, status, data) VALUES (?, ?, ?, ?, ?)`,
		r.ID, r.AuthorID, r.Content.ID, r.Status, data)
	return err
}

// FetchReport returns a report by id.
func (s *DB) FetchReport(ctx context.Context, id chat.ID) (*chat.Report, error) {
	return one[chat.Report](ctx, s, `SELECT data FROM reports WHERE id = ?`+s.lock, id)
}

// FetchReports lists reports, newest first.
func (s *DB) FetchReports(ctx context.Context, q store.ReportQuery) ([]*chat.Report, error) {
	where, args := []string{"1 = 1"}, []any{}
	if q.Status != "" {
		where, args = append(where, "status = ?"), append(args, q.Status)
	}
	if q.Author != "" {
		where, args = append(where, "author_id = ?"), append(args, q.Author)
	}
	if q.Content != "" {
		where, args = append(where, "content_id = ?"), append(args, q.Content)
	}
	if q.Before != "" {
		where, args = append(where, "id < ?"), append(args, q.Before)
	}
	return many[chat.Report](ctx, s, `SELECT data FROM reports WHERE `+strings.Join(where, " AND ")+
		` ORDER BY id DESC LIMIT ?`, append(args, q.Limit)...)
}

// UpdateReport replaces a report.
func (s *DB) UpdateReport(ctx context.Context, r *chat.Report) error {
	data, err := encode(r)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE reports SET status = ?, data = ? WHERE id = ?`, r.Status, data, r.ID)
}

// InsertPolicyChange adds a policy change.
func (s *DB) InsertPolicyChange(ctx context.Context, p *chat.PolicyChange) error {
	data, err := encode(p)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO policy_changes (created_at, data) VALUES (?, ?)`, p.CreatedTime.Millis(), data)
	return err
}

// FetchPolicyChanges lists policy changes after a time.
func (s *DB) FetchPolicyChanges(ctx context.Context, after chat.Time) ([]chat.PolicyChange, error) {
	list, err := many[chat.PolicyChange](ctx, s, `SELECT data FROM policy_changes WHERE created_at > ? ORDER BY created_at`, after.Millis())
	if err != nil {
		return nil, err
	}
	out := make([]chat.PolicyChange, len(list))
	for i, p := range list {
		out[i] = *p
	}
	return out, nil
}
