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
	sysChannelRenamed            = "channel_renamed"
	sysChannelDescriptionChanged = "channel_description_changed"
	sysChannelIconChanged        = "channel_icon_changed"
	sysChannelOwnershipChanged   = "channel_ownership_changed"
)

// systemMessage posts a message written by the server itself (author
// chat.SystemID) to a channel and publishes it: pins, group membership
// and server joins and leaves are told this way.
func (a *App) systemMessage(ctx context.Context, channel chat.ID, sys chat.SystemMessage) (*chat.Message, error) {
	id := chat.NewIDAt(a.now())
	nonce := string(id)
	m := &chat.Message{ID: id, Nonce: &nonce, Channel: channel, Author: chat.SystemID, System: &sys}
	if err := a.sends.writer.Write(m); err != nil {
		return nil, dbError("insert system message", err)
	}
	a.sends.lastMessages.Record(channel, m.ID)
	a.publish(ctx, chat.MessageEvent{Type: chat.EvMessage, Message: m}, event.Of(channel))
	return m, nil
}

// serverSystemMessage posts sys in the server's channel for that kind of
// message (slot picks it from the server's settings), when one is set and
// still exists. A failure is logged: the change the message reports has
// already happened.
func (a *App) serverSystemMessage(ctx context.Context, s *chat.Server, slot func(*chat.SystemMessageChannels) *chat.ID, sys chat.SystemMessage) {
	if s.SystemMessages == nil {
		return
	}
	id := slot(s.SystemMessages)
	if id == nil || *id == "" {
		return
	}
	for _, c := range s.Channels {
		if c == *id {
			if _, err := a.systemMessage(ctx, c, sys); err != nil {
				a.log.ErrorContext(ctx, "system message", "server", s.ID, "channel", c, "type", sys.Type, "err", err)
			}
			return
		}
	}
}

// System message types of servers.
const (
	sysUserJoined = "user_joined"
	sysUserLeft   = "user_left"
	sysUserKicked = "user_kicked"
	sysUserBanned = "user_banned"
)

func slotJoined(c *chat.SystemMessageChannels) *chat.ID { return c.UserJoined }
func slotLeft(c *chat.SystemMessageChannels) *chat.ID   { return c.UserLeft }
func slotKicked(c *chat.SystemMessageChannels) *chat.ID { return c.UserKicked }
func slotBanned(c *chat.SystemMessageChannels) *chat.ID { return c.UserBanned }
