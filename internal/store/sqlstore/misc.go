package sqlstore

import (
	"context"

	"ermine/internal/chat"
)

func emojiServer(e *chat.Emoji) any {
	if e.Parent.Type == "Server" {
		return string(e.Parent.ID)
	}
	return nil
}

// InsertEmoji adds an emoji.
func (s *DB) InsertEmoji(ctx context.Context, e *chat.Emoji) error {
	data, err := encode(e)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO emojis (id, server_id, data) VALUES (?, ?, ?)`, e.ID, emojiServer(e), data)
	return err
}

// FetchEmoji returns an emoji by id.
func (s *DB) FetchEmoji(ctx context.Context, id chat.ID) (*chat.Emoji, error) {
	return one[chat.Emoji](ctx, s, `SELECT data FROM emojis WHERE id = ?`+s.lock, id)
}

// FetchServerEmojis lists the emoji of servers.
func (s *DB) FetchServerEmojis(ctx context.Context, servers []chat.ID) ([]*chat.Emoji, error) {
	return manyIn[chat.Emoji](ctx, s, `SELECT data FROM emojis WHERE server_id IN (%s) ORDER BY id`, servers)
}

// FetchDetachedEmojis lists the emoji whose server was deleted.
func (s *DB) FetchDetachedEmojis(ctx context.Context) ([]*chat.Emoji, error) {
	return many[chat.Emoji](ctx, s, `SELECT data FROM emojis WHERE server_id IS NULL ORDER BY id`)
}

// UpdateEmoji replaces an emoji.
func (s *DB) UpdateEmoji(ctx context.Context, e *chat.Emoji) error {
	data, err := encode(e)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE emojis SET server_id = ?, data = ? WHERE id = ?`, emojiServer(e), data, e.ID)
}

// DetachEmojis detaches every emoji of a server.
func (s *DB) DetachEmojis(ctx context.Context, server chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		list, err := many[chat.Emoji](ctx, tx, `SELECT data FROM emojis WHERE server_id = ?`, server)
		if err != nil {
			return err
		}
		for _, e := range list {
			e.Parent = chat.EmojiParent{Type: "Detached"}
			if err := tx.UpdateEmoji(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteEmoji removes an emoji.
func (s *DB) DeleteEmoji(ctx context.Context, id chat.ID) error {
	return s.execOne(ctx, `DELETE FROM emojis WHERE id = ?`, id)
}

// InsertInvite adds an invite.
func (s *DB) InsertInvite(ctx context.Context, inv *chat.Invite) error {
	data, err := encode(inv)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO invites (code, server_id, channel_id, data) VALUES (?, ?, ?, ?)`,
		inv.Code, nullable(string(inv.Server)), inv.Channel, data)
	return err
}

// FetchInvite returns an invite by code.
func (s *DB) FetchInvite(ctx context.Context, code string) (*chat.Invite, error) {
	return one[chat.Invite](ctx, s, `SELECT data FROM invites WHERE code = ?`, code)
}

// FetchServerInvites lists a server's invites.
func (s *DB) FetchServerInvites(ctx context.Context, server chat.ID) ([]*chat.Invite, error) {
	return many[chat.Invite](ctx, s, `SELECT data FROM invites WHERE server_id = ? ORDER BY code`, server)
}

// FetchChannelInvites lists a channel's invites.
func (s *DB) FetchChannelInvites(ctx context.Context, channel chat.ID) ([]*chat.Invite, error) {
	return many[chat.Invite](ctx, s, `SELECT data FROM invites WHERE channel_id = ? ORDER BY code`, channel)
}

// DeleteInvite removes an invite.
func (s *DB) DeleteInvite(ctx context.Context, code string) error {
	return s.execOne(ctx, `DELETE FROM invites WHERE code = ?`, code)
}

// InsertWebhook adds a webhook.
func (s *DB) InsertWebhook(ctx context.Context, w *chat.Webhook) error {
	data, err := encode(w)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO webhooks (id, channel_id, data) VALUES (?, ?, ?)`, w.ID, w.ChannelID, data)
	return err
}

// FetchWebhook returns a webhook by id.
func (s *DB) FetchWebhook(ctx context.Context, id chat.ID) (*chat.Webhook, error) {
	return one[chat.Webhook](ctx, s, `SELECT data FROM webhooks WHERE id = ?`+s.lock, id)
}

// FetchChannelWebhooks lists a channel's webhooks.
func (s *DB) FetchChannelWebhooks(ctx context.Context, channel chat.ID) ([]*chat.Webhook, error) {
	return many[chat.Webhook](ctx, s, `SELECT data FROM webhooks WHERE channel_id = ? ORDER BY id`, channel)
}

// UpdateWebhook replaces a webhook.
func (s *DB) UpdateWebhook(ctx context.Context, w *chat.Webhook) error {
	data, err := encode(w)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE webhooks SET channel_id = ?, data = ? WHERE id = ?`, w.ChannelID, data, w.ID)
}

// DeleteWebhook removes a webhook.
func (s *DB) DeleteWebhook(ctx context.Context, id chat.ID) error {
	return s.execOne(ctx, `DELETE FROM webhooks WHERE id = ?`, id)
}
