package app

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// AckChannel marks a channel read up to message for the caller
// (PUT /channels/{target}/ack/{message}) and tells their own connections
// with ChannelAck, and their Apple devices with a badge update. The
// message need not exist: clients ack fresh ids.
func (a *App) AckChannel(ctx context.Context, c *Caller, channel, message chat.ID) error {
	if c.IsBot() {
		return chat.ErrIsBot
	}
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return err
	}
	if !message.Valid() {
		return chat.ErrInvalidBody("message: not a valid id")
	}
	if err := a.store.AckChannel(ctx, c.ID(), acc.ch.ID, message); err != nil {
		return dbError("ack channel", err)
	}
	a.publish(ctx, chat.ChannelAckEvent{Type: chat.EvChannelAck, ID: acc.ch.ID, User: c.ID(),
		MessageID: message}, event.Private(c.ID()))
	a.pushBadge(ctx, c.ID())
	return nil
}

// FetchUnreads lists the caller's read state of every channel they have
// read or been mentioned in (GET /sync/unreads).
func (a *App) FetchUnreads(ctx context.Context, c *Caller) ([]*chat.ChannelUnread, error) {
	list, err := a.store.FetchUnreads(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch unreads", err)
	}
	if list == nil {
		list = []*chat.ChannelUnread{}
	}
	return list, nil
}

// AcknowledgePolicyChanges records that the caller has seen the policy
// changes published so far (POST /policy/acknowledge).
func (a *App) AcknowledgePolicyChanges(ctx context.Context, c *Caller) error {
	if c.IsBot() {
		return chat.ErrIsBot
	}
	return a.store.InTx(ctx, func(tx store.Store) error {
		acct, err := tx.FetchAccount(ctx, c.ID())
		if errors.Is(err, store.ErrNotFound) {
			return chat.ErrNotFound
		}
		if err != nil {
			return dbError("fetch account", err)
		}
		now := chat.TimeOf(a.now())
		acct.PolicyAcknowledged = &now
		return dbError("update account", tx.UpdateAccount(ctx, acct))
	})
}
