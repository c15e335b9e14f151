package sqlstore

import (
	"context"

	"ermine/internal/chat"
)

// SetVoiceParticipant inserts or replaces a participant.
func (s *DB) SetVoiceParticipant(ctx context.Context, p *chat.VoiceParticipant) error {
	data, err := encode(p)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO voice_participants (channel_id, user_id, server_id, data) VALUES (?, ?, ?, ?)
		ON CONFLICT (channel_id, user_id) DO UPDATE SET server_id = excluded.server_id, data = excluded.data`,
		p.Channel, p.State.ID, nullable(string(p.Server)), data)
	return err
}

// FetchVoiceParticipant returns user's participation in channel.
func (s *DB) FetchVoiceParticipant(ctx context.Context, channel, user chat.ID) (*chat.VoiceParticipant, error) {
	return one[chat.VoiceParticipant](ctx, s,
		`SELECT data FROM voice_participants WHERE channel_id = ? AND user_id = ?`+s.lock, channel, user)
}

// FetchVoiceParticipants lists the participants of channels.
func (s *DB) FetchVoiceParticipants(ctx context.Context, channels []chat.ID) ([]*chat.VoiceParticipant, error) {
	return manyIn[chat.VoiceParticipant](ctx, s,
		`SELECT data FROM voice_participants WHERE channel_id IN (%s) ORDER BY channel_id, user_id`, channels)
}

// FetchServerVoiceParticipants lists the participants of a server's channels.
func (s *DB) FetchServerVoiceParticipants(ctx context.Context, server chat.ID) ([]*chat.VoiceParticipant, error) {
	return many[chat.VoiceParticipant](ctx, s,
		`SELECT data FROM voice_participants WHERE server_id = ? ORDER BY channel_id, user_id`, server)
}

// FetchUserVoiceParticipants lists where user is connected.
func (s *DB) FetchUserVoiceParticipants(ctx context.Context, user chat.ID) ([]*chat.VoiceParticipant, error) {
	return many[chat.VoiceParticipant](ctx, s,
		`SELECT data FROM voice_participants WHERE user_id = ? ORDER BY channel_id`, user)
}

// DeleteVoiceParticipant removes user from channel.
func (s *DB) DeleteVoiceParticipant(ctx context.Context, channel, user chat.ID) error {
	return s.execOne(ctx, `DELETE FROM voice_participants WHERE channel_id = ? AND user_id = ?`, channel, user)
}

// SetVoiceCall inserts or replaces a channel's call.
func (s *DB) SetVoiceCall(ctx context.Context, c *chat.VoiceCall) error {
	data, err := encode(c)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO voice_calls (channel_id, data) VALUES (?, ?)
		ON CONFLICT (channel_id) DO UPDATE SET data = excluded.data`, c.Channel, data)
	return err
}

// FetchVoiceCall returns a channel's call.
func (s *DB) FetchVoiceCall(ctx context.Context, channel chat.ID) (*chat.VoiceCall, error) {
	return one[chat.VoiceCall](ctx, s, `SELECT data FROM voice_calls WHERE channel_id = ?`+s.lock, channel)
}

// DeleteVoiceCall removes a channel's call and its participants.
func (s *DB) DeleteVoiceCall(ctx context.Context, channel chat.ID) error {
	return s.within(ctx, func(tx *DB) error {
		if _, err := tx.exec(ctx, `DELETE FROM voice_participants WHERE channel_id = ?`, channel); err != nil {
			return err
		}
		return tx.execOne(ctx, `DELETE FROM voice_calls WHERE channel_id = ?`, channel)
	})
}
