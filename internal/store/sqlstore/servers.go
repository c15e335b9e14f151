package sqlstore

import (
	"context"

	"ermine/internal/chat"
)

// InsertServer adds a server.
func (s *DB) InsertServer(ctx context.Context, sv *chat.Server) error {
	data, err := encode(sv)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO servers (id, owner_id, data) VALUES (?, ?, ?)`, sv.ID, sv.Owner, data)
	return err
}

// FetchServer returns a server by id.
func (s *DB) FetchServer(ctx context.Context, id chat.ID) (*chat.Server, error) {
	return one[chat.Server](ctx, s, `SELECT data FROM servers WHERE id = ?`+s.lock, id)
}

// FetchServers returns the servers among ids.
func (s *DB) FetchServers(ctx context.Context, ids []chat.ID) ([]*chat.Server, error) {
	return manyIn[chat.Server](ctx, s, `SELECT data FROM servers WHERE id IN (%s)`, ids)
}

// UpdateServer replaces a server.
func (s *DB) UpdateServer(ctx context.Context, sv *chat.Server) error {
	data, err := encode(sv)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE servers SET owner_id = ?, data = ? WHERE id = ?`, sv.Owner, data, sv.ID)
}

// DeleteServer removes a server with its channels, members, bans,
// invites and audit log.
func (s *DB) DeleteServer(ctx context.Context, id chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		channels, err := tx.ids(ctx, `SELECT id FROM channels WHERE server_id = ?`, id)
		if err != nil {
			return err
		}
		for _, c := range channels {
			if err := tx.deleteChannelContents(ctx, c); err != nil {
				return err
			}
		}
		for _, q := range []string{
			`DELETE FROM channels WHERE server_id = ?`,
			`DELETE FROM members WHERE server_id = ?`,
			`DELETE FROM bans WHERE server_id = ?`,
			`DELETE FROM member_timeouts WHERE server_id = ?`,
			`DELETE FROM invites WHERE server_id = ?`,
			`DELETE FROM audit_logs WHERE server_id = ?`,
		} {
			if _, err := tx.exec(ctx, q, id); err != nil {
				return err
			}
		}
		return tx.execOne(ctx, `DELETE FROM servers WHERE id = ?`, id)
	})
}

// InsertMember adds a membership.
func (s *DB) InsertMember(ctx context.Context, m *chat.Member) error {
	data, err := encode(m)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO members (server_id, user_id, joined_at, data) VALUES (?, ?, ?, ?)`,
		m.ID.Server, m.ID.User, m.JoinedAt.Millis(), data)
	return err
}

// FetchMember returns a membership.
func (s *DB) FetchMember(ctx context.Context, server, user chat.ID) (*chat.Member, error) {
	return one[chat.Member](ctx, s, `SELECT data FROM members WHERE server_id = ? AND user_id = ?`+s.lock, server, user)
}

// FetchMembers lists a server's members.
func (s *DB) FetchMembers(ctx context.Context, server chat.ID) ([]*chat.Member, error) {
	return many[chat.Member](ctx, s, `SELECT data FROM members WHERE server_id = ? ORDER BY user_id`, server)
}

// FetchMemberships lists a user's memberships.
func (s *DB) FetchMemberships(ctx context.Context, user chat.ID) ([]*chat.Member, error) {
	return many[chat.Member](ctx, s, `SELECT data FROM members WHERE user_id = ? ORDER BY joined_at, server_id`, user)
}

// CountMembers counts a server's members.
func (s *DB) CountMembers(ctx context.Context, server chat.ID) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT COUNT(*) FROM members WHERE server_id = ?`, server).Scan(&n)
	return n, err
}

// UpdateMember replaces a membership.
func (s *DB) UpdateMember(ctx context.Context, m *chat.Member) error {
	data, err := encode(m)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE members SET data = ? WHERE server_id = ? AND user_id = ?`, data, m.ID.Server, m.ID.User)
}

// DeleteMember removes a membership.
func (s *DB) DeleteMember(ctx context.Context, server, user chat.ID) error {
	return s.execOne(ctx, `DELETE FROM members WHERE server_id = ? AND user_id = ?`, server, user)
}

// KeepTimeout remembers a departing member's timeout.
func (s *DB) KeepTimeout(ctx context.Context, server, user chat.ID, until chat.Time) error {
	_, err := s.exec(ctx, `INSERT INTO member_timeouts (server_id, user_id, until) VALUES (?, ?, ?)
		ON CONFLICT (server_id, user_id) DO UPDATE SET until = excluded.until`, server, user, until.Millis())
	return err
}

// TakeTimeout returns and forgets a kept timeout.
func (s *DB) TakeTimeout(ctx context.Context, server, user chat.ID) (*chat.Time, error) {
	var until *chat.Time
	err := s.within(ctx, func(tx *DB) error {
		var ms int64
		err := tx.queryRow(ctx, `SELECT until FROM member_timeouts WHERE server_id = ? AND user_id = ?`,
			server, user).Scan(&ms)
		if isNoRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		t := chat.TimeFromMillis(ms)
		until = &t
		_, err = tx.exec(ctx, `DELETE FROM member_timeouts WHERE server_id = ? AND user_id = ?`, server, user)
		return err
	})
	return until, err
}

// InsertBan adds or replaces a ban.
func (s *DB) InsertBan(ctx context.Context, b *chat.ServerBan) error {
	data, err := encode(b)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO bans (server_id, user_id, data) VALUES (?, ?, ?)
		ON CONFLICT (server_id, user_id) DO UPDATE SET data = excluded.data`, b.ID.Server, b.ID.User, data)
	return err
}

// FetchBan returns a ban.
func (s *DB) FetchBan(ctx context.Context, server, user chat.ID) (*chat.ServerBan, error) {
	return one[chat.ServerBan](ctx, s, `SELECT data FROM bans WHERE server_id = ? AND user_id = ?`, server, user)
}

// FetchBans lists a server's bans.
func (s *DB) FetchBans(ctx context.Context, server chat.ID) ([]*chat.ServerBan, error) {
	return many[chat.ServerBan](ctx, s, `SELECT data FROM bans WHERE server_id = ? ORDER BY user_id`, server)
}

// DeleteBan removes a ban.
func (s *DB) DeleteBan(ctx context.Context, server, user chat.ID) error {
	return s.execOne(ctx, `DELETE FROM bans WHERE server_id = ? AND user_id = ?`, server, user)
}
