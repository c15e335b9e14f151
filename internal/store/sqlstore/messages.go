package sqlstore

import (
	"context"
	"slices"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/store"
)

func pinnedFlag(m *chat.Message) int {
	if m.Pinned != nil && *m.Pinned {
		return 1
	}
	return 0
}

func content(m *chat.Message) any {
	if m.Content == nil {
		return nil
	}
	return *m.Content
}

// stored strips the per-delivery fields a message never keeps.
func stored(m *chat.Message) chat.Message {
	c := *m
	c.User, c.Member = nil, nil
	return c
}

// InsertMessage adds a message.
func (s *DB) InsertMessage(ctx context.Context, m *chat.Message) error {
	data, err := messageData(m)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO messages (id, channel_id, author_id, content, pinned, data, tags, ephemeral) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Channel, m.Author, content(m), pinnedFlag(m), data, messageTags(m), ephemeralOf(m))
	return err
}

// insertBatch is how many messages one INSERT statement carries: eight
// parameters each stays far below both engines' parameter limits.
const insertBatch = 200

// InsertMessages adds many messages at once, several rows per statement.
// Up to insertBatch messages are one statement, atomic by itself: one
// round trip to PostgreSQL instead of three with BEGIN and COMMIT. More
// take a transaction.
func (s *DB) InsertMessages(ctx context.Context, ms []*chat.Message) error {
	if len(ms) <= insertBatch || s.tx != nil {
		return s.insertMessages(ctx, ms)
	}
	return s.within(ctx, func(tx *DB) error { return tx.insertMessages(ctx, ms) })
}

// insertMessages inserts ms with a statement per insertBatch of them.
func (s *DB) insertMessages(ctx context.Context, ms []*chat.Message) error {
	args := make([]any, 0, 8*min(len(ms), insertBatch))
	for len(ms) > 0 {
		n := min(len(ms), insertBatch)
		args = args[:0]
		for _, m := range ms[:n] {
			data, err := messageData(m)
			if err != nil {
				return err
			}
			args = append(args, m.ID, m.Channel, m.Author, content(m), pinnedFlag(m), data, messageTags(m), ephemeralOf(m))
		}
		q := `INSERT INTO messages (id, channel_id, author_id, content, pinned, data, tags, ephemeral) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?),", n), ",")
		if _, err := s.exec(ctx, q, args...); err != nil {
			return err
		}
		ms = ms[n:]
	}
	return nil
}

// FetchMessage returns a message by id.
func (s *DB) FetchMessage(ctx context.Context, id chat.ID) (*chat.Message, error) {
	return oneMessage(ctx, s, `SELECT `+messageCols+` FROM messages WHERE id = ?`+s.lock, id)
}

// FetchMessagesByID returns the messages among ids in a channel.
func (s *DB) FetchMessagesByID(ctx context.Context, channel chat.ID, ids []chat.ID) ([]*chat.Message, error) {
	return messagesIn(ctx, s, `SELECT `+messageCols+` FROM messages WHERE channel_id = ? AND id IN (%s) ORDER BY id`, ids, channel)
}

// FetchMessages returns a page of history.
func (s *DB) FetchMessages(ctx context.Context, q store.MessageQuery) ([]*chat.Message, error) {
	limit := q.Limit
	if q.Nearby != "" {
		half := limit/2 + 1
		newer, err := manyMessages(ctx, s, `SELECT `+messageCols+` FROM messages WHERE channel_id = ? AND id >= ?`+visibleTo+`
			ORDER BY id ASC LIMIT ?`, q.Channel, q.Nearby, q.Viewer, q.Viewer, half)
		if err != nil {
			return nil, err
		}
		older, err := manyMessages(ctx, s, `SELECT `+messageCols+` FROM messages WHERE channel_id = ? AND id < ?`+visibleTo+`
			ORDER BY id DESC LIMIT ?`, q.Channel, q.Nearby, q.Viewer, q.Viewer, half)
		if err != nil {
			return nil, err
		}
		return append(newer, older...), nil
	}
	where, args := rangeWhere(q.Channel, q.Before, q.After, q.Viewer)
	order := " ORDER BY id DESC"
	if q.Sort == store.SortOldest {
		order = " ORDER BY id ASC"
	}
	return manyMessages(ctx, s, `SELECT `+messageCols+` FROM messages WHERE `+where+order+` LIMIT ?`, append(args, limit)...)
}

// visibleTo is the condition leaving out the ephemeral messages neither
// for nor from a viewer; its two arguments are the viewer.
const visibleTo = ` AND (ephemeral IS NULL OR ephemeral = ? OR author_id = ?)`

func rangeWhere(channel, before, after, viewer chat.ID) (string, []any) {
	where, args := "channel_id = ?"+visibleTo, []any{channel, viewer, viewer}
	if before != "" {
		where += " AND id < ?"
		args = append(args, before)
	}
	if after != "" {
		where += " AND id > ?"
		args = append(args, after)
	}
	return where, args
}

// SearchMessages finds messages by full-text match or pinned state.
func (s *DB) SearchMessages(ctx context.Context, q store.MessageSearch) ([]*chat.Message, error) {
	if q.Pinned && q.Query == "" {
		where, args := rangeWhere(q.Channel, q.Before, q.After, q.Viewer)
		order := " ORDER BY id DESC"
		if q.Sort == store.SortOldest {
			order = " ORDER BY id ASC"
		}
		return manyMessages(ctx, s, `SELECT `+messageCols+` FROM messages WHERE `+where+` AND pinned = 1`+order+` LIMIT ?`,
			append(args, q.Limit)...)
	}
	return s.searchText(ctx, q)
}

// UpdateMessage replaces a message.
func (s *DB) UpdateMessage(ctx context.Context, m *chat.Message) error {
	data, err := messageData(m)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE messages SET author_id = ?, content = ?, pinned = ?, data = ?, tags = ?, ephemeral = ? WHERE id = ?`,
		m.Author, content(m), pinnedFlag(m), data, messageTags(m), ephemeralOf(m), m.ID)
}

// DeleteMessage removes a message.
func (s *DB) DeleteMessage(ctx context.Context, id chat.ID) error {
	return s.execOne(ctx, `DELETE FROM messages WHERE id = ?`, id)
}

// DeleteMessages removes the messages among ids in a channel.
func (s *DB) DeleteMessages(ctx context.Context, channel chat.ID, ids []chat.ID) ([]chat.ID, error) {
	var deleted []chat.ID
	err := s.within(ctx, func(tx *DB) error {
		for len(ids) > 0 {
			n := min(len(ids), maxIn)
			chunk := ids[:n]
			ids = ids[n:]
			args := []any{channel}
			for _, id := range chunk {
				args = append(args, id)
			}
			found, err := tx.ids(ctx, `SELECT id FROM messages WHERE channel_id = ? AND id IN (`+placeholders(n)+`)`, args...)
			if err != nil {
				return err
			}
			if _, err := tx.exec(ctx, `DELETE FROM messages WHERE channel_id = ? AND id IN (`+placeholders(n)+`)`, args...); err != nil {
				return err
			}
			deleted = append(deleted, found...)
		}
		return nil
	})
	slices.Sort(deleted)
	return deleted, err
}
