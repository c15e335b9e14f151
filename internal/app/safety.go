package app

import (
	"context"
	"encoding/json"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// reportContext is how many messages before and after a reported one
// its snapshot keeps.
const reportContext = 15

// contentReasons and userReasons are the report reasons of the contract.
var (
	contentReasons = set("NoneSpecified", "Illegal", "IllegalGoods", "IllegalExtortion", "IllegalPornography",
		"IllegalHacking", "ExtremeViolence", "PromotesHarm", "UnsolicitedSpam", "Raid", "SpamAbuse", "ScamsFraud",
		"Malware", "Harassment")
	userReasons = set("NoneSpecified", "UnsolicitedSpam", "SpamAbuse", "InappropriateProfile", "Impersonation",
		"BanEvasion", "Underage")
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// ReportContent handles POST /safety/report: the report is stored with
// a snapshot of the reported item, whose files are marked reported, so
// that deleting the item later does not destroy the evidence. A second
// report of the same item while the first is open changes nothing.
func (a *App) ReportContent(ctx context.Context, c *Caller, d chat.ReportContent) error {
	if c.IsBot() {
		return chat.ErrIsBot
	}
	rc := d.Content
	if len([]rune(d.Additional)) > 1000 {
		return chat.ErrFailedValidation("additional_context: at most 1000 characters")
	}
	switch rc.Type {
	case chat.ReportMessage, chat.ReportServer:
		if !contentReasons[rc.Reason] {
			return chat.ErrFailedValidation("content.report_reason: unknown reason")
		}
	case chat.ReportUser:
		if !userReasons[rc.Reason] {
			return chat.ErrFailedValidation("content.report_reason: unknown reason")
		}
	default:
		return chat.ErrFailedValidation("content.type: want Message, Server or User")
	}
	if rc.Type != chat.ReportUser {
		rc.MessageID = nil
	}
	snapshot, files, err := a.snapshot(ctx, c, rc)
	if err != nil {
		return err
	}
	r := &chat.Report{ID: chat.NewIDAt(a.now()), AuthorID: c.ID(), Content: rc, Snapshot: snapshot,
		Additional: d.Additional, Status: chat.ReportCreated, CreatedAt: chat.TimeOf(a.now())}
	err = a.store.InTx(ctx, func(tx store.Store) error {
		if err := tx.InsertReport(ctx, r); err != nil {
			return err
		}
		for _, id := range files {
			f, err := tx.FetchFile(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return dbError("fetch file", err)
			}
			yes := true
			f.Reported = &yes
			if err := tx.UpdateFile(ctx, f); err != nil {
				return dbError("mark file reported", err)
			}
		}
		return nil
	})
	if errors.Is(err, store.ErrConflict) {
		return nil // already reported and still open
	}
	return dbError("insert report", err)
}

// snapshot copies the reported item as the reporter sees it now, and
// lists the ids of its files.
func (a *App) snapshot(ctx context.Context, c *Caller, rc chat.ReportedContent) (map[string]any, []string, error) {
	switch rc.Type {
	case chat.ReportMessage:
		m, err := a.store.FetchMessage(ctx, rc.ID)
		if err != nil {
			return nil, nil, notFound(err)
		}
		if m.Author == c.ID() {
			return nil, nil, chat.ErrCannotReportYourself
		}
		if _, err := a.openChannel(ctx, c.User, m.Channel); err != nil {
			return nil, nil, err
		}
		prior, err := a.store.FetchMessages(ctx, store.MessageQuery{Channel: m.Channel, Before: m.ID, Limit: reportContext, Sort: store.SortLatest})
		if err != nil {
			return nil, nil, dbError("fetch context", err)
		}
		leading, err := a.store.FetchMessages(ctx, store.MessageQuery{Channel: m.Channel, After: m.ID, Limit: reportContext, Sort: store.SortOldest})
		if err != nil {
			return nil, nil, dbError("fetch context", err)
		}
		var files []string
		for _, f := range m.Attachments {
			files = append(files, f.ID)
		}
		return map[string]any{"_type": chat.ReportMessage, "_message": toMap(m), "_prior_context": toMap(prior),
			"_leading_context": toMap(leading)}, files, nil
	case chat.ReportServer:
		s, err := a.store.FetchServer(ctx, rc.ID)
		if err != nil {
			return nil, nil, notFound(err)
		}
		if s.Owner == c.ID() {
			return nil, nil, chat.ErrCannotReportYourself
		}
		var files []string
		for _, f := range []*chat.File{s.Icon, s.Banner} {
			if f != nil {
				files = append(files, f.ID)
			}
		}
		return map[string]any{"_type": chat.ReportServer, "_server": toMap(s)}, files, nil
	default:
		if rc.ID == c.ID() {
			return nil, nil, chat.ErrCannotReportYourself
		}
		u, err := a.store.FetchUser(ctx, rc.ID)
		if err != nil {
			return nil, nil, notFound(err)
		}
		snap := map[string]any{"_type": chat.ReportUser, "_user": toMap(u.Doc())}
		if rc.MessageID != nil {
			if m, err := a.store.FetchMessage(ctx, *rc.MessageID); err == nil && m.Author == u.ID {
				if _, err := a.openChannel(ctx, c.User, m.Channel); err == nil {
					snap["_message"] = toMap(m)
				}
			}
		}
		var files []string
		if u.Avatar != nil {
			files = append(files, u.Avatar.ID)
		}
		if u.Profile != nil && u.Profile.Background != nil {
			files = append(files, u.Profile.Background.ID)
		}
		return snap, files, nil
	}
}

// toMap turns v into its JSON form, for snapshots kept as documents.
func toMap(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
