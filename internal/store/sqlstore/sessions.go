package sqlstore

import (
	"context"
	"fmt"

	json "github.com/goccy/go-json"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// InsertSession adds a session.
func (s *DB) InsertSession(ctx context.Context, se *chat.Session) error {
	data, err := encode(se)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO sessions (id, user_id, token, data) VALUES (?, ?, ?, ?)`,
		se.ID, se.UserID, se.Token, data)
	return err
}

// FetchSession returns a session by id.
func (s *DB) FetchSession(ctx context.Context, id chat.ID) (*chat.Session, error) {
	return one[chat.Session](ctx, s, `SELECT data FROM sessions WHERE id = ?`+s.lock, id)
}

// FetchSessionByToken returns a session by token.
func (s *DB) FetchSessionByToken(ctx context.Context, token string) (*chat.Session, error) {
	return one[chat.Session](ctx, s, `SELECT data FROM sessions WHERE token = ?`+s.lock, token)
}

// querySessionUser reads a session and its user by the session's token:
// authentication, on nearly every request.
const querySessionUser = `SELECT se.data, u.data FROM sessions se LEFT JOIN users u ON u.id = se.user_id WHERE se.token = ?`

// querySessionChannelAccess reads what a send needs (see
// FetchSessionChannelAccess); its arguments are the channel, then the
// token.
const querySessionChannelAccess = `SELECT se.data, u.data, c.data, sv.data, m.data FROM sessions se
		LEFT JOIN users u ON u.id = se.user_id
		LEFT JOIN channels c ON c.id = ?
		LEFT JOIN servers sv ON sv.id = c.server_id
		LEFT JOIN members m ON m.server_id = c.server_id AND m.user_id = se.user_id
		WHERE se.token = ?`

// FetchSessionUser finds a session and its user with one query.
func (s *DB) FetchSessionUser(ctx context.Context, token string) (*chat.Session, *chat.User, error) {
	var sd string
	var ud *string
	err := s.queryRow(ctx, querySessionUser, token).Scan(&sd, &ud)
	if isNoRows(err) {
		return nil, nil, store.ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	se := new(chat.Session)
	if err := json.Unmarshal([]byte(sd), se); err != nil {
		return nil, nil, fmt.Errorf("decode document: %w", err)
	}
	if ud == nil {
		return se, nil, nil
	}
	d := new(chat.UserDoc)
	if err := json.Unmarshal([]byte(*ud), d); err != nil {
		return nil, nil, fmt.Errorf("decode document: %w", err)
	}
	return se, d.User(), nil
}

// FetchSessionChannelAccess finds a session, its user and a channel with
// its server and the user's membership with one query: sending a message
// needs all of them, and two dependent round trips cost PostgreSQL twice
// the latency and the CPU of their protocol exchanges.
func (s *DB) FetchSessionChannelAccess(ctx context.Context, token string, channel chat.ID) (*store.SessionChannel, error) {
	var sd string
	var ud, cd, svd, md *string
	err := s.queryRow(ctx, querySessionChannelAccess, channel, token).Scan(&sd, &ud, &cd, &svd, &md)
	if isNoRows(err) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	out := &store.SessionChannel{Session: new(chat.Session)}
	if err := json.Unmarshal([]byte(sd), out.Session); err != nil {
		return nil, fmt.Errorf("decode document: %w", err)
	}
	if ud != nil {
		d := new(chat.UserDoc)
		if err := json.Unmarshal([]byte(*ud), d); err != nil {
			return nil, fmt.Errorf("decode document: %w", err)
		}
		out.User = d.User()
	}
	if err := decodeOptional(cd, &out.Channel); err != nil {
		return nil, err
	}
	if err := decodeOptional(svd, &out.Server); err != nil {
		return nil, err
	}
	if err := decodeOptional(md, &out.Member); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeOptional decodes the document data, when there is one, into a
// new *T stored in dst.
func decodeOptional[T any](data *string, dst **T) error {
	if data == nil {
		return nil
	}
	v := new(T)
	if err := json.Unmarshal([]byte(*data), v); err != nil {
		return fmt.Errorf("decode document: %w", err)
	}
	*dst = v
	return nil
}

// FetchSessions lists a user's sessions.
func (s *DB) FetchSessions(ctx context.Context, userID chat.ID) ([]*chat.Session, error) {
	return many[chat.Session](ctx, s, `SELECT data FROM sessions WHERE user_id = ? ORDER BY id`, userID)
}

// UpdateSession replaces a session.
func (s *DB) UpdateSession(ctx context.Context, se *chat.Session) error {
	data, err := encode(se)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE sessions SET token = ?, data = ? WHERE id = ?`, se.Token, data, se.ID)
}

// TouchSessions sets the sessions' last_seen inside their documents, in
// one statement whose IN list always has store.TouchSessionsMax
// placeholders (the last id repeated), so that it is prepared once.
func (s *DB) TouchSessions(ctx context.Context, ids []chat.ID, seen chat.Time) error {
	if len(ids) == 0 {
		return nil
	}
	if len(ids) > store.TouchSessionsMax {
		return fmt.Errorf("touch sessions: %d sessions, at most %d", len(ids), store.TouchSessionsMax)
	}
	v, err := json.Marshal(seen)
	if err != nil {
		return err
	}
	args := make([]any, 0, 1+store.TouchSessionsMax)
	args = append(args, string(v))
	for i := range store.TouchSessionsMax {
		args = append(args, string(ids[min(i, len(ids)-1)]))
	}
	_, err = s.exec(ctx, touchSessionsQuery(s.d), args...)
	return err
}

// touchSessionsQuery is TouchSessions' statement in d's dialect.
func touchSessionsQuery(d *Dialect) string {
	return `UPDATE sessions SET data = ` + d.SetField("data", "last_seen") +
		` WHERE id IN (` + placeholders(store.TouchSessionsMax) + `)`
}

// DeleteSession removes a session.
func (s *DB) DeleteSession(ctx context.Context, id chat.ID) error {
	return s.execOne(ctx, `DELETE FROM sessions WHERE id = ?`, id)
}

// DeleteSessions removes a user's sessions but one.
func (s *DB) DeleteSessions(ctx context.Context, userID chat.ID, except chat.ID) ([]chat.ID, error) {
	var ids []chat.ID
	err := s.within(ctx, func(tx *DB) error {
		var err error
		ids, err = tx.ids(ctx, `SELECT id FROM sessions WHERE user_id = ? AND id <> ? ORDER BY id`, userID, except)
		if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `DELETE FROM sessions WHERE user_id = ? AND id <> ?`, userID, except)
		return err
	})
	return ids, err
}
