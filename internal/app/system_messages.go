package app

import (
	"context"

	"ermine/internal/chat"
	"ermine/internal/event"
)

// systemMessage posts a message written by the server itself (author
// chat.SystemID) to a channel and publishes it: pins, group membership
// and server joins and leaves are told this way.
func (a *App) systemMessage(ctx context.Context, channel chat.ID, sys chat.SystemMessage) error {
	id := chat.NewIDAt(a.now())
	nonce := string(id)
	m := &chat.Message{ID: id, Nonce: &nonce, Channel: channel, Author: chat.SystemID, System: &sys}
	if err := a.writer.insert(ctx, m); err != nil {
		return dbError("insert system message", err)
	}
	a.lastMessages.record(channel, m.ID)
	a.publish(ctx, chat.EvMessage, chat.MessageEvent{Type: chat.EvMessage, Message: m}, event.Of(channel))
	return nil
}
