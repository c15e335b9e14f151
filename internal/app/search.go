package app

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// Search finds messages of a server's channels, or of one channel, by the
// filters of the reference's search branch (POST /search, branch
// feat/elasticsearch), answered from the store's own index. A server
// search covers the channels where the caller holds ReadMessageHistory;
// a channel search needs it in that channel. Bots may not search
// (IsBot). The answer holds the messages, their authors and, in a
// server, the authors' memberships.
func (a *App) Search(ctx context.Context, c *Caller, q chat.Search) (*chat.BulkMessages, error) {
	if c.IsBot() {
		return nil, chat.ErrIsBot
	}
	if (q.Channel == nil) == (q.Server == nil) {
		return nil, chat.ErrInvalidOperation
	}
	f := store.MessageFilter{Viewer: c.ID(), Limit: chat.MaxSearchLimit, Ascending: q.Ascending()}
	if q.Limit != nil {
		f.Limit = int(min(*q.Limit, chat.MaxSearchLimit))
	}
	if q.Offset != nil {
		f.Offset = int(*q.Offset)
	}
	if q.Filters != nil {
		setFilters(&f, q.Filters)
	}
	var acc *channelAccess
	if q.Channel != nil {
		ch, err := a.openChannel(ctx, c.User, *q.Channel)
		if err != nil {
			return nil, err
		}
		if err := perm.Require(ch.perms, perm.ReadMessageHistory); err != nil {
			return nil, err
		}
		acc = ch
		f.Channels = []chat.ID{ch.ch.ID}
	} else {
		x, err := a.serverAccess(ctx, a.store, c.User, *q.Server)
		if err != nil {
			return nil, err
		}
		channels, err := a.store.FetchServerChannels(ctx, x.server.ID)
		if err != nil {
			return nil, dbError("fetch server channels", err)
		}
		for _, ch := range channels {
			if x.channel(ch).Has(perm.ReadMessageHistory) {
				f.Channels = append(f.Channels, ch.ID)
			}
		}
		acc = &channelAccess{server: x.server, member: x.member}
	}
	var msgs []*chat.Message
	if len(f.Channels) > 0 && f.Limit > 0 {
		var err error
		if msgs, err = a.store.FilterMessages(ctx, f); err != nil {
			return nil, dbError("filter messages", err)
		}
	}
	return a.bulkMessages(ctx, c, acc, msgs, true)
}

// setFilters copies a search's filters into a store filter.
func setFilters(f *store.MessageFilter, in *chat.SearchFilters) {
	if in.Content != nil {
		f.Words = *in.Content
	}
	f.Authors, f.Mentions, f.RoleMentions = in.Author, in.Mentions, in.RoleMentions
	if in.BeforeDate != nil {
		f.Before = chat.FirstIDAt(in.BeforeDate.Time)
	}
	if in.AfterDate != nil {
		f.After = chat.LastIDAt(in.AfterDate.Time)
	}
	f.AuthorTypes, f.Components, f.Pinned = in.AuthorType, in.Components, in.Pinned
}

// Notification inbox bounds: the answer's size, as in the reference, and
// how many mentions are looked through for those still readable.
const (
	notificationsLimit = 50
	notificationsPage  = 100
	notificationsPages = 5
)

// FetchNotifications returns the newest messages mentioning the caller,
// at most 50, among those they may still read: in channels where they
// hold ReadMessageHistory (GET /users/@me/notifications, reference pull
// request #715). The answer carries the messages' authors.
func (a *App) FetchNotifications(ctx context.Context, c *Caller) (*chat.BulkMessages, error) {
	readable := map[chat.ID]bool{}
	var out []*chat.Message
	f := store.MessageFilter{Mentions: []chat.ID{c.ID()}, Viewer: c.ID(), Limit: notificationsPage}
	for range notificationsPages {
		page, err := a.store.FilterMessages(ctx, f)
		if err != nil {
			return nil, dbError("filter messages", err)
		}
		for _, m := range page {
			ok, seen := readable[m.Channel]
			if !seen {
				acc, err := a.openChannel(ctx, c.User, m.Channel)
				switch {
				case errors.Is(err, chat.ErrNotFound):
				case err != nil:
					return nil, err
				default:
					ok = acc.perms.Has(perm.ReadMessageHistory)
				}
				readable[m.Channel] = ok
			}
			if ok && len(out) < notificationsLimit {
				out = append(out, m)
			}
		}
		if len(out) >= notificationsLimit || len(page) < notificationsPage {
			break
		}
		f.Before = page[len(page)-1].ID
	}
	return a.bulkMessages(ctx, c, &channelAccess{}, out, true)
}
