package sqlstore

import (
	"context"
	"strings"

	"ermine/internal/chat"
)

// InsertUser adds a user.
func (s *DB) InsertUser(ctx context.Context, u *chat.User) error {
	data, err := encode(u.Doc())
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO users (id, username_lower, discriminator, data) VALUES (?, ?, ?, ?)`,
		u.ID, strings.ToLower(u.Username), u.Discriminator, data)
	return err
}

func users(docs []*chat.UserDoc) []*chat.User {
	out := make([]*chat.User, len(docs))
	for i, d := range docs {
		out[i] = d.User()
	}
	return out
}

// FetchUser returns a user by id.
func (s *DB) FetchUser(ctx context.Context, id chat.ID) (*chat.User, error) {
	d, err := one[chat.UserDoc](ctx, s, `SELECT data FROM users WHERE id = ?`+s.lock, id)
	if err != nil {
		return nil, err
	}
	return d.User(), nil
}

// FetchUsers returns the users among ids.
func (s *DB) FetchUsers(ctx context.Context, ids []chat.ID) ([]*chat.User, error) {
	docs, err := manyIn[chat.UserDoc](ctx, s, `SELECT data FROM users WHERE id IN (%s)`, ids)
	if err != nil {
		return nil, err
	}
	return users(docs), nil
}

// FetchUserByUsername finds a user by username and discriminator.
func (s *DB) FetchUserByUsername(ctx context.Context, username, discriminator string) (*chat.User, error) {
	d, err := one[chat.UserDoc](ctx, s, `SELECT data FROM users WHERE username_lower = ? AND discriminator = ?`,
		strings.ToLower(username), discriminator)
	if err != nil {
		return nil, err
	}
	return d.User(), nil
}

// FetchDiscriminators lists discriminators in use with a username.
func (s *DB) FetchDiscriminators(ctx context.Context, username string) ([]string, error) {
	rows, err := s.query(ctx, `SELECT discriminator FROM users WHERE username_lower = ? ORDER BY discriminator`,
		strings.ToLower(username))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// UpdateUser replaces a user.
func (s *DB) UpdateUser(ctx context.Context, u *chat.User) error {
	data, err := encode(u.Doc())
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE users SET username_lower = ?, discriminator = ?, data = ? WHERE id = ?`,
		strings.ToLower(u.Username), u.Discriminator, data, u.ID)
}

// DeleteUser removes a user and the relationships that name them.
func (s *DB) DeleteUser(ctx context.Context, id chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		if _, err := tx.exec(ctx, `DELETE FROM relationships WHERE user_id = ? OR other_id = ?`, id, id); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `DELETE FROM settings WHERE user_id = ?`, id); err != nil {
			return err
		}
		return tx.execOne(ctx, `DELETE FROM users WHERE id = ?`, id)
	})
}

// FetchRelationships lists a user's relations.
func (s *DB) FetchRelationships(ctx context.Context, user chat.ID) ([]chat.Relationship, error) {
	rows, err := s.query(ctx, `SELECT other_id, status FROM relationships WHERE user_id = ? ORDER BY other_id`, user)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []chat.Relationship
	for rows.Next() {
		var r chat.Relationship
		if err := rows.Scan(&r.ID, &r.Status); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// FetchRelationship returns one side of a relationship.
func (s *DB) FetchRelationship(ctx context.Context, user, other chat.ID) (chat.RelationshipStatus, error) {
	var st chat.RelationshipStatus
	err := s.queryRow(ctx, `SELECT status FROM relationships WHERE user_id = ? AND other_id = ?`, user, other).Scan(&st)
	if isNoRows(err) {
		return chat.RelationNone, nil
	}
	return st, err
}

// SetRelationship sets or removes one side of a relationship.
func (s *DB) SetRelationship(ctx context.Context, user, other chat.ID, status chat.RelationshipStatus) error {
	if status == chat.RelationNone || status == "" {
		_, err := s.exec(ctx, `DELETE FROM relationships WHERE user_id = ? AND other_id = ?`, user, other)
		return err
	}
	_, err := s.exec(ctx, `INSERT INTO relationships (user_id, other_id, status) VALUES (?, ?, ?)
		ON CONFLICT (user_id, other_id) DO UPDATE SET status = excluded.status`, user, other, status)
	return err
}
