package app

import (
	"context"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
)

// checkSlowmode opens the caller's slowmode window in a text channel with
// slowmode, or refuses the send with InSlowmode while one is open, after
// telling the caller's connections which windows they have open
// (UserSlowmodes). Holders of BypassSlowmode (owners among them) are not
// held. When the window store fails the send goes ahead, as in the
// reference: slowmode is a courtesy, not a guarantee.
func (a *App) checkSlowmode(ctx context.Context, user chat.ID, ch *chat.Channel, held perm.Set) error {
	if ch.ChannelType != chat.ChannelText || ch.Slowmode == nil || *ch.Slowmode <= 0 || held.Has(perm.BypassSlowmode) {
		return nil
	}
	d := time.Duration(*ch.Slowmode) * time.Second
	w, err := a.sends.slowmodes.Start(ctx, user, ch.ID, d)
	if err != nil {
		a.log.WarnContext(ctx, "slowmode: sending without it", "channel", ch.ID, "err", err)
		return nil
	}
	if w == nil {
		return nil
	}
	if ev, err := a.UserSlowmodes(ctx, user); err == nil && ev != nil {
		a.publish(ctx, ev, event.Private(user))
	}
	return chat.ErrInSlowmode(seconds(w.Left))
}

// UserSlowmodes returns the UserSlowmodes event of user's open windows,
// or nil when none is open. The gateway sends it right after Ready.
func (a *App) UserSlowmodes(ctx context.Context, user chat.ID) (*chat.UserSlowmodesEvent, error) {
	open, err := a.sends.slowmodes.Open(ctx, user)
	if err != nil || len(open) == 0 {
		return nil, err
	}
	ev := &chat.UserSlowmodesEvent{Type: chat.EvUserSlowmodes, Slowmodes: make([]chat.Slowmode, 0, len(open))}
	for _, w := range open {
		ev.Slowmodes = append(ev.Slowmodes, chat.Slowmode{ChannelID: w.Channel,
			Duration: seconds(w.Duration), RetryAfter: seconds(w.Left)})
	}
	return ev, nil
}

// seconds rounds d up to whole seconds, so a client that waits that long
// is let through.
func seconds(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return uint64((d + time.Second - 1) / time.Second)
}
