package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

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

// readyFacts returns the statement reading the Ready facts of the user
// who names (a placeholder or a subquery): their relationships, private
// channels, memberships with their servers (and each server's
// channels_version), their servers' emoji and the policy changes newer
// than since (a placeholder, or "0" for all) in one statement: a connect
// pays one read (one round trip, one read lock on SQLite) where it paid
// seven. Columns: kind, id, sort key, status, document, server
// document, channels version. The rows come in no order: scanReadyFacts
// sorts each list as the separate methods order it, for less than the
// database's sort of them all costs.
func readyFacts(who, since string) string {
	return `SELECT 0, other_id, 0, status, NULL, NULL, 0 FROM relationships WHERE user_id = ` + who + `
	UNION ALL SELECT 1, c.id, 0, NULL, c.data, NULL, 0 FROM channel_participants p JOIN channels c ON c.id = p.channel_id WHERE p.user_id = ` + who + `
	UNION ALL SELECT 2, m.server_id, m.joined_at, NULL, m.data, sv.data, COALESCE(sv.channels_version, 0) FROM members m LEFT JOIN servers sv ON sv.id = m.server_id WHERE m.user_id = ` + who + `
	UNION ALL SELECT 3, e.id, 0, NULL, e.data, NULL, 0 FROM members m JOIN emojis e ON e.server_id = m.server_id WHERE m.user_id = ` + who + `
	UNION ALL SELECT 4, '', created_at, NULL, data, NULL, 0 FROM policy_changes WHERE created_at > ` + since
}

// readyFactsQuery reads the facts of the user its first four arguments
// name, with the policy changes after its fifth.
var readyFactsQuery = readyFacts("?", "?")

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

// sessionReadyQuery is the session with a token and its user's
// document (a row of kind -1), then the Ready facts of the session's
// user with every policy change: the user is not known before the read,
// and scanReadyFacts drops the changes from before their sign-up. The
// session is looked up once, into the materialised "me", for every
// part of the statement. Its argument is the token.
var sessionReadyQuery = `WITH me AS MATERIALIZED (SELECT user_id, data FROM sessions WHERE token = ?)
	SELECT -1, '', 0, NULL, me.data, u.data, 0 FROM me LEFT JOIN users u ON u.id = me.user_id
	UNION ALL ` + readyFacts("(SELECT user_id FROM me)", "0")

// FetchSessionReadyFacts reads a session with its user and that user's
// Ready facts with one query: a connect pays one read where it paid two.
func (s *DB) FetchSessionReadyFacts(ctx context.Context, token string) (*store.SessionReady, error) {
	rows, err := s.query(ctx, sessionReadyQuery, token)
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
	var since int64
	var members []membership
	var policies []policyRow
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
			since = chat.TimeOf(se.UserID.Time()).Millis()
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
			ms := membership{member: m, joined: sort, server: id}
			if serverData.Valid { // else a membership of a server that is gone
				if ms.in, err = decodeFact[chat.Server](serverData); err != nil {
					return nil, nil, err
				}
				versions[ms.in.ID] = version
			}
			members = append(members, ms)
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
			policies = append(policies, policyRow{change: *p, created: sort})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows.Close()
	slices.SortFunc(f.Relationships, func(a, b chat.Relationship) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(f.Private, func(a, b *chat.Channel) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(f.Emojis, func(a, b *chat.Emoji) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(members, func(a, b membership) int {
		return cmp.Or(cmp.Compare(a.joined, b.joined), cmp.Compare(a.server, b.server))
	})
	for _, m := range members {
		f.Memberships = append(f.Memberships, m.member)
		if m.in != nil {
			f.Servers = append(f.Servers, m.in)
		}
	}
	// The policy changes of a session's read are all of them; those up
	// to since, the sign-up of the session's user, are not theirs.
	slices.SortStableFunc(policies, func(a, b policyRow) int { return cmp.Compare(a.created, b.created) })
	for _, p := range policies {
		if p.created > since {
			f.PolicyChanges = append(f.PolicyChanges, p.change)
		}
	}
	var err error
	if f.Channels, err = s.channelListsAt(ctx, versions); err != nil {
		return nil, nil, err
	}
	return f, sr, nil
}

// membership is a membership row of readyFacts: the member, the time
// and server it sorts by, and the server unless it is gone.
type membership struct {
	member *chat.Member
	joined int64
	server string
	in     *chat.Server
}

// policyRow is a policy change row of readyFacts.
type policyRow struct {
	change  chat.PolicyChange
	created int64
}

// decodeFact decodes a document column.
func decodeFact[T any](data sql.NullString) (*T, error) {
	v := new(T)
	if err := json.Unmarshal([]byte(data.String), v); err != nil {
		return nil, fmt.Errorf("decode document: %w", err)
	}
	return v, nil
}
