package sqlstore

import (
	"context"
	"fmt"

	json "github.com/goccy/go-json"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// uniqueKey is the key that keeps one direct message per pair of users
// and one SavedMessages channel per user.
func uniqueKey(c *chat.Channel) any {
	switch c.ChannelType {
	case chat.ChannelDirectMessage:
		if len(c.Recipients) == 2 {
			a, b := c.Recipients[0], c.Recipients[1]
			if b < a {
				a, b = b, a
			}
			return "dm:" + string(a) + ":" + string(b)
		}
	case chat.ChannelSavedMessages:
		return "saved:" + string(c.User)
	}
	return nil
}

// participants are the users a private channel belongs to.
func participants(c *chat.Channel) []chat.ID {
	if c.ChannelType == chat.ChannelSavedMessages {
		return []chat.ID{c.User}
	}
	return c.Recipients
}

func (s *DB) writeParticipants(ctx context.Context, c *chat.Channel) error {
	if _, err := s.exec(ctx, `DELETE FROM channel_participants WHERE channel_id = ?`, c.ID); err != nil {
		return err
	}
	for _, u := range participants(c) {
		if _, err := s.exec(ctx, `INSERT INTO channel_participants (channel_id, user_id) VALUES (?, ?)
			ON CONFLICT (channel_id, user_id) DO NOTHING`, c.ID, u); err != nil {
			return err
		}
	}
	return nil
}

// InsertChannel adds a channel.
func (s *DB) InsertChannel(ctx context.Context, c *chat.Channel) error {
	data, err := encode(c)
	if err != nil {
		return err
	}
	return s.within(ctx, func(tx *DB) error {
		if _, err := tx.exec(ctx, `INSERT INTO channels (id, channel_type, server_id, unique_key, data) VALUES (?, ?, ?, ?, ?)`,
			c.ID, c.ChannelType, nullable(string(c.Server)), uniqueKey(c), data); err != nil {
			return err
		}
		if err := tx.bumpChannels(ctx, c.Server); err != nil {
			return err
		}
		return tx.writeParticipants(ctx, c)
	})
}

// FetchChannel returns a channel by id.
func (s *DB) FetchChannel(ctx context.Context, id chat.ID) (*chat.Channel, error) {
	return one[chat.Channel](ctx, s, `SELECT data FROM channels WHERE id = ?`+s.lock, id)
}

// FetchChannelAccess returns a channel with its server and the user's
// membership in one query, the busiest lookup of the message routes.
func (s *DB) FetchChannelAccess(ctx context.Context, channel, user chat.ID) (*chat.Channel, *chat.Server, *chat.Member, error) {
	var cd string
	var sd, md *string
	err := s.queryRow(ctx, `SELECT c.data, sv.data, m.data FROM channels c
		LEFT JOIN servers sv ON sv.id = c.server_id
		LEFT JOIN members m ON m.server_id = c.server_id AND m.user_id = ?
		WHERE c.id = ?`, user, channel).Scan(&cd, &sd, &md)
	if isNoRows(err) {
		return nil, nil, nil, store.ErrNotFound
	}
	if err != nil {
		return nil, nil, nil, err
	}
	ch := new(chat.Channel)
	if err := json.Unmarshal([]byte(cd), ch); err != nil {
		return nil, nil, nil, fmt.Errorf("decode document: %w", err)
	}
	var sv *chat.Server
	if sd != nil {
		sv = new(chat.Server)
		if err := json.Unmarshal([]byte(*sd), sv); err != nil {
			return nil, nil, nil, fmt.Errorf("decode document: %w", err)
		}
	}
	var m *chat.Member
	if md != nil {
		m = new(chat.Member)
		if err := json.Unmarshal([]byte(*md), m); err != nil {
			return nil, nil, nil, fmt.Errorf("decode document: %w", err)
		}
	}
	return ch, sv, m, nil
}

// FetchChannels returns the channels among ids.
func (s *DB) FetchChannels(ctx context.Context, ids []chat.ID) ([]*chat.Channel, error) {
	return manyIn[chat.Channel](ctx, s, `SELECT data FROM channels WHERE id IN (%s)`, ids)
}

// FetchServerChannels lists a server's channels.
func (s *DB) FetchServerChannels(ctx context.Context, server chat.ID) ([]*chat.Channel, error) {
	return many[chat.Channel](ctx, s, `SELECT data FROM channels WHERE server_id = ? ORDER BY id`, server)
}

// FetchPrivateChannels lists a user's saved, direct and group channels.
func (s *DB) FetchPrivateChannels(ctx context.Context, user chat.ID) ([]*chat.Channel, error) {
	return many[chat.Channel](ctx, s, `SELECT c.data FROM channels c
		JOIN channel_participants p ON p.channel_id = c.id
		WHERE p.user_id = ? ORDER BY c.id`, user)
}

// FetchDirectMessage returns the direct message between two users.
func (s *DB) FetchDirectMessage(ctx context.Context, a, b chat.ID) (*chat.Channel, error) {
	key := uniqueKey(&chat.Channel{ChannelType: chat.ChannelDirectMessage, Recipients: []chat.ID{a, b}})
	return one[chat.Channel](ctx, s, `SELECT data FROM channels WHERE unique_key = ?`+s.lock, key)
}

// FetchSavedMessages returns a user's SavedMessages channel.
func (s *DB) FetchSavedMessages(ctx context.Context, user chat.ID) (*chat.Channel, error) {
	key := uniqueKey(&chat.Channel{ChannelType: chat.ChannelSavedMessages, User: user})
	return one[chat.Channel](ctx, s, `SELECT data FROM channels WHERE unique_key = ?`+s.lock, key)
}

// UpdateChannel replaces a channel.
func (s *DB) UpdateChannel(ctx context.Context, c *chat.Channel) error {
	data, err := encode(c)
	if err != nil {
		return err
	}
	return s.within(ctx, func(tx *DB) error {
		// The server's row before the channel's (see bumpChannels).
		if err := tx.bumpChannels(ctx, c.Server); err != nil {
			return err
		}
		if err := tx.execOne(ctx, `UPDATE channels SET channel_type = ?, server_id = ?, unique_key = ?, data = ? WHERE id = ?`,
			c.ChannelType, nullable(string(c.Server)), uniqueKey(c), data, c.ID); err != nil {
			return err
		}
		return tx.writeParticipants(ctx, c)
	})
}

// SetLastMessage records a channel's last message.
func (s *DB) SetLastMessage(ctx context.Context, channel, message chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		// The server's row before the channel's (see bumpChannels); a
		// record older than the channel's bumps the version for nothing,
		// which costs a reread of the list.
		if _, err := tx.exec(ctx, `UPDATE servers SET channels_version = channels_version + 1
			WHERE id = (SELECT server_id FROM channels WHERE id = ?)`, channel); err != nil {
			return err
		}
		c, err := one[chat.Channel](ctx, tx, `SELECT data FROM channels WHERE id = ?`+tx.lock, channel)
		if err != nil {
			return err
		}
		if c.LastMessageID != nil && *c.LastMessageID >= message {
			return nil
		}
		c.LastMessageID = &message
		data, err := encode(c)
		if err != nil {
			return err
		}
		return tx.execOne(ctx, `UPDATE channels SET data = ? WHERE id = ?`, data, channel)
	})
}

// deleteChannelContents removes what hangs off a channel.
func (s *DB) deleteChannelContents(ctx context.Context, id chat.ID) error {
	for _, q := range []string{
		`DELETE FROM messages WHERE channel_id = ?`,
		`DELETE FROM invites WHERE channel_id = ?`,
		`DELETE FROM unreads WHERE channel_id = ?`,
		`DELETE FROM unread_mentions WHERE channel_id = ?`,
		`DELETE FROM webhooks WHERE channel_id = ?`,
		`DELETE FROM channel_participants WHERE channel_id = ?`,
	} {
		if _, err := s.exec(ctx, q, id); err != nil {
			return err
		}
	}
	return nil
}

// DeleteChannel removes a channel and what hangs off it.
func (s *DB) DeleteChannel(ctx context.Context, id chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		if err := tx.deleteChannelContents(ctx, id); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `UPDATE servers SET channels_version = channels_version + 1
			WHERE id = (SELECT server_id FROM channels WHERE id = ?)`, id); err != nil {
			return err
		}
		return tx.execOne(ctx, `DELETE FROM channels WHERE id = ?`, id)
	})
}
