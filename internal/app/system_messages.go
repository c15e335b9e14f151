package app

import (
	"context"

	"ermine/internal/chat"
	"ermine/internal/event"
)

// System message types written by the server (chat.SystemMessage.Type).
const (
	sysUserAdded                 = "user_added"
	sysUserRemove                = "user_remove"
	sysUserJoined                = "user_joined"
	sysUserLeft                  = "user_left"
	sysChannelRenamed            = "channel_renamed"
	sysChannelDescriptionChanged = "channel_description_changed"
	sysChannelIconChanged        = "channel_icon_changed"
	sysChannelOwnershipChanged   = "channel_ownership_changed"
)

// systemMessage writes a message authored by the server itself into a
// channel and sends it to the channel's subscribers.
func (a *App) systemMessage(ctx context.Context, channelID chat.ID, sys chat.SystemMessage) error {
	m := &chat.Message{ID: chat.NewID(), Channel: channelID, Author: chat.SystemID, System: &sys}
	if err := a.store.InsertMessage(ctx, m); err != nil {
		return dbError("insert system message", err)
	}
	if err := a.store.SetLastMessage(ctx, channelID, m.ID); err != nil {
		return dbError("set last message", err)
	}
	a.publish(ctx, chat.EvMessage, chat.MessageEvent{Type: chat.EvMessage, Message: m}, event.Of(channelID))
	return nil
}
