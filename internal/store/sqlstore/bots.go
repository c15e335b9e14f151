package sqlstore

import (
	"context"

	"ermine/internal/chat"
)

// InsertBot adds a bot.
func (s *DB) InsertBot(ctx context.Context, b *chat.Bot) error {
	data, err := encode(b)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO bots (id, owner_id, token, data) VALUES (?, ?, ?, ?)`, b.ID, b.Owner, b.Token, data)
	return err
}

// FetchBot returns a bot by id.
func (s *DB) FetchBot(ctx context.Context, id chat.ID) (*chat.Bot, error) {
	return one[chat.Bot](ctx, s, `SELECT data FROM bots WHERE id = ?`+s.lock, id)
}

// FetchBotByToken returns a bot by token.
func (s *DB) FetchBotByToken(ctx context.Context, token string) (*chat.Bot, error) {
	return one[chat.Bot](ctx, s, `SELECT data FROM bots WHERE token = ?`, token)
}

// FetchBotsByOwner lists a user's bots.
func (s *DB) FetchBotsByOwner(ctx context.Context, owner chat.ID) ([]*chat.Bot, error) {
	return many[chat.Bot](ctx, s, `SELECT data FROM bots WHERE owner_id = ? ORDER BY id`, owner)
}

// UpdateBot replaces a bot.
func (s *DB) UpdateBot(ctx context.Context, b *chat.Bot) error {
	data, err := encode(b)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE bots SET owner_id = ?, token = ?, data = ? WHERE id = ?`, b.Owner, b.Token, data, b.ID)
}

// DeleteBot removes a bot.
func (s *DB) DeleteBot(ctx context.Context, id chat.ID) error {
	return s.execOne(ctx, `DELETE FROM bots WHERE id = ?`, id)
}
