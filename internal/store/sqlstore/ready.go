package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	json "github.com/goccy/go-json"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// Kinds of the rows of readyFactsQuery.
const (
	factRelationship = iota
	factPrivate
	factMembership
	factEmoji
	factPolicy
)

// readyFactsQuery reads a user's relationships, private channels,
// memberships with their servers (and each server's channels_version),
// their servers' emoji and the policy changes made since they signed up
// in one statement: a connect pays one read (one round trip, one read
// lock on SQLite) where it paid seven. Columns:
// kind, id, sort key, status, document, server document, channels
// version; ordered as the separate methods order them.
const readyFactsQuery = `SELECT 0, other_id, 0, status, NULL, NULL, 0 FROM relationships WHERE user_id = ?
	UNION ALL SELECT 1, c.id, 0, NULL, c.data, NULL, 0 FROM channel_participants p JOIN channels c ON c.id = p.channel_id WHERE p.user_id = ?
	UNION ALL SELECT 2, m.server_id, m.joined_at, NULL, m.data, sv.data, COALESCE(sv.channels_version, 0) FROM members m LEFT JOIN servers sv ON sv.id = m.server_id WHERE m.user_id = ?
	UNION ALL SELECT 3, e.id, 0, NULL, e.data, NULL, 0 FROM members m JOIN emojis e ON e.server_id = m.server_id WHERE m.user_id = ?
	UNION ALL SELECT 4, '', created_at, NULL, data, NULL, 0 FROM policy_changes WHERE created_at > ?
	ORDER BY 1, 3, 2`

// FetchReadyFacts reads a user's Ready facts with one query, and the
// channel lists of their servers from those kept at the versions it read
// (reading only the lists that changed).
func (s *DB) FetchReadyFacts(ctx context.Context, user chat.ID) (*store.ReadyFacts, error) {
	rows, err := s.query(ctx, readyFactsQuery, user, user, user, user, chat.TimeOf(user.Time()).Millis())
	if err != nil {
		return nil, err
	}
	f, _, err := s.scanReadyFacts(ctx, rows)
	return f, err
}

// sessionReadyQuery is readyFactsQuery after a first row (kind -1, so it
// sorts first) holding the session with a token and its user's document.
const sessionReadyQuery = `SELECT -1, '', 0, NULL, se.data, u.data, 0 FROM sessions se LEFT JOIN users u ON u.id = se.user_id WHERE se.token = ?
	UNION ALL ` + readyFactsQuery

// FetchSessionReadyFacts reads a session with its user and a user's Ready
// facts with one query: a connect pays one read where it paid two.
func (s *DB) FetchSessionReadyFacts(ctx context.Context, token string, user chat.ID) (*store.SessionReady, error) {
	rows, err := s.query(ctx, sessionReadyQuery, token, user, user, user, user, chat.TimeOf(user.Time()).Millis())
	if err != nil {
		return nil, err
	}
	f, sr, err := s.scanReadyFacts(ctx, rows)
	if err != nil {
		return nil, err
	}
	if sr == nil {
		return nil, store.ErrNotFound
	}
	sr.Facts = f
	return sr, nil
}

// factSession is the kind of sessionReadyQuery's session row.
const factSession = -1

// scanReadyFacts reads and closes the rows of readyFactsQuery or
// sessionReadyQuery, then the channel lists of the servers read; the
// session row, when there is one, is returned apart.
func (s *DB) scanReadyFacts(ctx context.Context, rows *sql.Rows) (*store.ReadyFacts, *store.SessionReady, error) {
	defer rows.Close()
	f := &store.ReadyFacts{}
	var sr *store.SessionReady
	versions := map[chat.ID]int64{}
	for rows.Next() {
		var kind int
		var id string
		var sort, version int64
		var status, data, serverData sql.NullString
		if err := rows.Scan(&kind, &id, &sort, &status, &data, &serverData, &version); err != nil {
			return nil, nil, err
		}
		switch kind {
		case factSession:
			se, err := decodeFact[chat.Session](data)
			if err != nil {
				return nil, nil, err
			}
			sr = &store.SessionReady{Session: se}
			if serverData.Valid {
				d, err := decodeFact[chat.UserDoc](serverData)
				if err != nil {
					return nil, nil, err
				}
				sr.User = d.User()
			}
		case factRelationship:
			f.Relationships = append(f.Relationships, chat.Relationship{ID: chat.ID(id), Status: chat.RelationshipStatus(status.String)})
		case factPrivate:
			c, err := decodeFact[chat.Channel](data)
			if err != nil {
				return nil, nil, err
			}
			f.Private = append(f.Private, c)
		case factMembership:
			m, err := decodeFact[chat.Member](data)
			if err != nil {
				return nil, nil, err
			}
			f.Memberships = append(f.Memberships, m)
			if !serverData.Valid {
				continue // a membership of a server that is gone
			}
			sv, err := decodeFact[chat.Server](serverData)
			if err != nil {
				return nil, nil, err
			}
			f.Servers = append(f.Servers, sv)
			versions[sv.ID] = version
		case factEmoji:
			e, err := decodeFact[chat.Emoji](data)
			if err != nil {
				return nil, nil, err
			}
			f.Emojis = append(f.Emojis, e)
		case factPolicy:
			p, err := decodeFact[chat.PolicyChange](data)
			if err != nil {
				return nil, nil, err
			}
			f.PolicyChanges = append(f.PolicyChanges, *p)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows.Close()
	var err error
	if f.Channels, err = s.channelListsAt(ctx, versions); err != nil {
		return nil, nil, err
	}
	return f, sr, nil
}

// decodeFact decodes a document column.
func decodeFact[T any](data sql.NullString) (*T, error) {
	v := new(T)
	if err := json.Unmarshal([]byte(data.String), v); err != nil {
		return nil, fmt.Errorf("decode document: %w", err)
	}
	return v, nil
}
