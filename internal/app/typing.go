package app

import (
	"context"

	"ermine/internal/chat"
	"ermine/internal/event"
)

// Typing tells the subscribers of a channel, the typist included, that
// user started (typing true) or stopped typing there. The gateway calls it
// for BeginTyping and EndTyping after checking that the user sees the
// channel; like the reference there is no rate limit and no automatic
// stop, clients expire indicators themselves.
func (a *App) Typing(ctx context.Context, user, channel chat.ID, typing bool) {
	typ := chat.EvChannelStopTyping
	if typing {
		typ = chat.EvChannelStartTyping
	}
	a.publish(ctx, chat.ChannelUserEvent{Type: typ, ID: channel, User: user}, event.Of(channel))
}
