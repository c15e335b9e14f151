package app

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// exportPage is how many messages an export reads at a time.
const exportPage = 1000

// ExportUser gathers everything stored about a user (id or
// "name#discriminator"), for the operator's `ermine admin export`.
func (a *App) ExportUser(ctx context.Context, c *Caller, ref string) (*chat.UserExport, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	u, err := a.resolveUser(ctx, ref)
	if err != nil {
		return nil, err
	}
	id := u.ID
	doc := u.Doc()
	x := &chat.UserExport{ExportedAt: chat.TimeOf(a.now()), User: &doc, Sessions: []chat.ExportSession{}, Bots: []chat.ExportBot{}}
	acc, err := a.store.FetchAccount(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound): // a bot
	case err != nil:
		return nil, dbError("fetch account", err)
	default:
		x.Account = &chat.ExportAccount{ID: acc.ID, Email: acc.Email, Verified: acc.Verified, Disabled: acc.Disabled,
			DeleteAfter: acc.DeleteAfter, TOTPEnabled: acc.MFA.TOTPSecret != "", RecoveryCodes: len(acc.MFA.RecoveryCodes),
			PolicyAcknowledged: acc.PolicyAcknowledged}
	}
	sessions, err := a.store.FetchSessions(ctx, id)
	if err != nil {
		return nil, dbError("fetch sessions", err)
	}
	for _, s := range sessions {
		x.Sessions = append(x.Sessions, chat.ExportSession{ID: s.ID, Name: s.Name, LastSeen: s.LastSeen, Subscribed: s.Subscription != nil})
	}
	if x.Relationships, err = a.store.FetchRelationships(ctx, id); err != nil {
		return nil, dbError("fetch relationships", err)
	}
	if x.Memberships, err = a.store.FetchMemberships(ctx, id); err != nil {
		return nil, dbError("fetch memberships", err)
	}
	if x.Channels, err = a.store.FetchPrivateChannels(ctx, id); err != nil {
		return nil, dbError("fetch channels", err)
	}
	if x.Settings, err = a.store.FetchSettings(ctx, id, nil); err != nil {
		return nil, dbError("fetch settings", err)
	}
	bots, err := a.store.FetchBotsByOwner(ctx, id)
	if err != nil {
		return nil, dbError("fetch bots", err)
	}
	for _, b := range bots {
		x.Bots = append(x.Bots, chat.ExportBot{ID: b.ID, Public: b.Public, Analytics: b.Analytics, Discoverable: b.Discoverable})
	}
	if x.Reports, err = a.store.FetchReports(ctx, store.ReportQuery{Author: id, Limit: 1000}); err != nil {
		return nil, dbError("fetch reports", err)
	}
	if x.Unreads, err = a.store.FetchUnreads(ctx, id); err != nil {
		return nil, dbError("fetch unreads", err)
	}
	var after chat.ID
	for {
		page, err := a.store.FetchMessagesByAuthor(ctx, id, after, exportPage)
		if err != nil {
			return nil, dbError("fetch messages", err)
		}
		x.Messages = append(x.Messages, page...)
		if len(page) < exportPage {
			break
		}
		after = page[len(page)-1].ID
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	var afterFile string
	for {
		page, err := a.store.FetchFilesByUploader(ctx, id, afterFile, exportPage)
		if err != nil {
			return nil, dbError("fetch uploads", err)
		}
		x.Uploads = append(x.Uploads, page...)
		if len(page) < exportPage {
			break
		}
		afterFile = page[len(page)-1].ID
	}
	if x.Uploads == nil {
		x.Uploads = []*chat.FileRecord{}
	}
	if x.Relationships == nil {
		x.Relationships = []chat.Relationship{}
	}
	if x.Memberships == nil {
		x.Memberships = []*chat.Member{}
	}
	if x.Channels == nil {
		x.Channels = []*chat.Channel{}
	}
	if x.Reports == nil {
		x.Reports = []*chat.Report{}
	}
	if x.Messages == nil {
		x.Messages = []*chat.Message{}
	}
	if x.Unreads == nil {
		x.Unreads = []*chat.ChannelUnread{}
	}
	a.recordAdmin(ctx, c, AdminExportUser, string(id), nil)
	return x, nil
}
