package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// claimBatch is how many messages a claim reads and rewrites at a time.
const claimBatch = 500

// claimLiveWindow is how many of a channel's newest messages a claim
// tells connected clients about when it changes them: the pages a client
// has loaded of a channel it shows (the API's largest page is 100). A
// claim may move millions of messages, and one event each would flood
// every client and the relay that carries an admin command's events to
// the servers (it keeps at most 10,000 frames); changes to older messages
// are seen after a reload, as clients fetch history again.
const claimLiveWindow = 100

// AdminClaimUser hands an imported author (a user with
// UserFlagImported, made by an import for someone who had no account)
// to a real account: every message they wrote becomes the real user's,
// and so does every reaction and mention of theirs in the servers they
// belonged to; the real user takes their place in those servers (keeping
// the imported member's nickname, roles and join date unless already a
// member), and the imported user, left with nothing, is marked deleted.
// Both refs are ids or "name#discriminator". Claiming again finds
// nothing more to move.
func (a *App) AdminClaimUser(ctx context.Context, c *Caller, importedRef, realRef string) (*chat.ClaimResult, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	imp, err := a.resolveUser(ctx, importedRef)
	if err != nil {
		return nil, fmt.Errorf("imported user %q: %w", importedRef, err)
	}
	real, err := a.resolveUser(ctx, realRef)
	if err != nil {
		return nil, fmt.Errorf("real user %q: %w", realRef, err)
	}
	switch {
	case imp.Flags&chat.UserFlagImported == 0:
		return nil, chat.ErrFailedValidation(fmt.Sprintf("%s#%s was not made by an import: only imported authors can be claimed", imp.Username, imp.Discriminator))
	case real.Flags&chat.UserFlagImported != 0:
		return nil, chat.ErrFailedValidation(fmt.Sprintf("%s#%s is itself an imported author: claim with a real account", real.Username, real.Discriminator))
	case real.Flags&(chat.UserFlagDeleted|chat.UserFlagBanned|chat.UserFlagSpam) != 0:
		return nil, chat.ErrFailedValidation(fmt.Sprintf("%s#%s is deleted or banned", real.Username, real.Discriminator))
	}
	res := &chat.ClaimResult{Imported: imp.ID, Real: real.ID}
	ms, err := a.store.FetchMemberships(ctx, imp.ID)
	if err != nil {
		return nil, dbError("fetch memberships", err)
	}
	live := &claimNotices{a: a, floor: map[chat.ID]chat.ID{}, updates: map[chat.ID][]chat.MessageUpdateEvent{}, at: map[chat.ID]int{}}

	// Authorship: the messages leave the author's index as they are
	// rewritten, so the first page is always the next one.
	for {
		msgs, err := a.store.FetchMessagesByAuthor(ctx, imp.ID, "", claimBatch)
		if err != nil {
			return nil, dbError("fetch messages", err)
		}
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			m.Author = real.ID
			data := chat.Partial{"author": real.ID}
			if n := claimReactions(m, imp.ID, real.ID); n > 0 {
				res.Reactions += n
				data["reactions"] = m.Reactions
			}
			if claimMentions(m, imp.ID, real.ID) {
				res.Mentions++
				data["mentions"] = m.Mentions
			}
			if err := live.add(ctx, m, data); err != nil {
				return nil, err
			}
		}
		if err := a.updateMessages(ctx, msgs); err != nil {
			return nil, err
		}
		res.Messages += len(msgs)
	}

	// Reactions and mentions on other people's messages, in the servers
	// the imported user belonged to (an import puts them nowhere else).
	for _, m := range ms {
		chans, err := a.store.FetchServerChannels(ctx, m.ID.Server)
		if err != nil {
			return nil, dbError("fetch channels", err)
		}
		for _, ch := range chans {
			var after chat.ID
			for {
				page, err := a.store.FetchMessages(ctx, store.MessageQuery{Channel: ch.ID, After: after, Sort: store.SortOldest, Limit: claimBatch})
				if err != nil {
					return nil, dbError("fetch messages", err)
				}
				var changed []*chat.Message
				for _, msg := range page {
					n := claimReactions(msg, imp.ID, real.ID)
					mentioned := claimMentions(msg, imp.ID, real.ID)
					if n == 0 && !mentioned {
						continue
					}
					data := chat.Partial{}
					if n > 0 {
						res.Reactions += n
						data["reactions"] = msg.Reactions
					}
					if mentioned {
						res.Mentions++
						data["mentions"] = msg.Mentions
					}
					changed = append(changed, msg)
					if err := live.add(ctx, msg, data); err != nil {
						return nil, err
					}
				}
				if err := a.updateMessages(ctx, changed); err != nil {
					return nil, err
				}
				if len(page) < claimBatch {
					break
				}
				after = page[len(page)-1].ID
			}
		}
	}

	// Memberships: the real user takes the imported member's place.
	for _, m := range ms {
		var joined *chat.Member
		err := a.store.InTx(ctx, func(tx store.Store) error {
			s, err := tx.FetchServer(ctx, m.ID.Server)
			if err != nil {
				return dbError("fetch server", err)
			}
			if _, err := tx.FetchMember(ctx, s.ID, real.ID); errors.Is(err, store.ErrNotFound) {
				nm := *m
				nm.ID.User = real.ID
				if err := tx.InsertMember(ctx, &nm); err != nil {
					return dbError("insert member", err)
				}
				joined = &nm
			} else if err != nil {
				return dbError("fetch member", err)
			}
			if s.Owner == imp.ID {
				s.Owner = real.ID
				if err := tx.UpdateServer(ctx, s); err != nil {
					return dbError("update server", err)
				}
			}
			return lookupError("delete member", tx.DeleteMember(ctx, s.ID, imp.ID))
		})
		if err != nil {
			return nil, err
		}
		res.Memberships++
		if joined != nil {
			a.publish(ctx, chat.ServerMemberJoinEvent{Type: chat.EvServerMemberJoin,
				ID: m.ID.Server, User: real.ID, Member: joined}, event.Of(m.ID.Server))
		}
		a.publish(ctx, chat.ServerMemberLeaveEvent{Type: chat.EvServerMemberLeave,
			ID: m.ID.Server, User: imp.ID, Reason: chat.LeaveReasonLeave}, event.Of(m.ID.Server))
	}

	var flags uint32
	err = a.store.InTx(ctx, func(tx store.Store) error {
		u, err := tx.FetchUser(ctx, imp.ID)
		if err != nil {
			return dbError("fetch user", err)
		}
		u.Flags |= chat.UserFlagDeleted
		flags = u.Flags
		return dbError("update user", tx.UpdateUser(ctx, u))
	})
	if err != nil {
		return nil, err
	}
	res.Notified = live.publish(ctx)
	// Those who saw the imported user (its servers' members, through the
	// topics it had before it left them) learn it is gone.
	topics := []string{event.Of(imp.ID)}
	for _, m := range ms {
		topics = append(topics, event.Members(m.ID.Server))
	}
	eventID := string(chat.NewID())
	a.publish(ctx, chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: imp.ID,
		Data: chat.Partial{"flags": flags}, Clear: []string{}, EventID: &eventID}, topics...)
	return res, nil
}

// claimNotices gathers what a claim tells connected clients: a
// MessageUpdate for each message it changed among its channel's newest
// claimLiveWindow, sent once the claim is done (after the real user
// joined the servers, so clients know the new author), one Bulk frame per
// channel.
type claimNotices struct {
	a *App
	// floor is each channel's oldest message id within the window ("" when
	// the channel holds fewer messages than that).
	floor   map[chat.ID]chat.ID
	updates map[chat.ID][]chat.MessageUpdateEvent // by channel
	at      map[chat.ID]int                       // message id → its place in updates
}

// add notes that m changed by data, if m is in its channel's window.
func (n *claimNotices) add(ctx context.Context, m *chat.Message, data chat.Partial) error {
	floor, ok := n.floor[m.Channel]
	if !ok {
		page, err := n.a.store.FetchMessages(ctx, store.MessageQuery{Channel: m.Channel, Sort: store.SortLatest, Limit: claimLiveWindow})
		if err != nil {
			return dbError("fetch messages", err)
		}
		if len(page) == claimLiveWindow {
			floor = page[len(page)-1].ID
		}
		n.floor[m.Channel] = floor
	}
	if m.ID < floor {
		return nil
	}
	if i, ok := n.at[m.ID]; ok {
		maps.Copy(n.updates[m.Channel][i].Data, data)
		return nil
	}
	n.at[m.ID] = len(n.updates[m.Channel])
	n.updates[m.Channel] = append(n.updates[m.Channel], chat.MessageUpdateEvent{Type: chat.EvMessageUpdate, ID: m.ID,
		Channel: m.Channel, Data: data, Clear: []string{}})
	return nil
}

// publish sends the updates, oldest message first in each channel, and
// returns how many there were.
func (n *claimNotices) publish(ctx context.Context) int {
	total := 0
	for _, ch := range slices.Sorted(maps.Keys(n.updates)) {
		evs := n.updates[ch]
		slices.SortFunc(evs, func(x, y chat.MessageUpdateEvent) int { return strings.Compare(string(x.ID), string(y.ID)) })
		total += len(evs)
		if len(evs) == 1 {
			n.a.publish(ctx, evs[0], event.Of(ch))
			continue
		}
		items := make([]any, len(evs))
		for i := range evs {
			items[i] = evs[i]
		}
		n.a.publish(ctx, chat.BulkEvent{Type: chat.EvBulk, V: items}, event.Of(ch))
	}
	return total
}

// updateMessages writes rewritten messages in one transaction.
func (a *App) updateMessages(ctx context.Context, msgs []*chat.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	return a.store.InTx(ctx, func(tx store.Store) error {
		for _, m := range msgs {
			if err := tx.UpdateMessage(ctx, m); err != nil && !errors.Is(err, store.ErrNotFound) {
				return dbError("update message", err)
			}
		}
		return nil
	})
}

// claimReactions replaces from by to among m's reactions and reports how
// many emoji it changed; where to had reacted too, from is dropped.
func claimReactions(m *chat.Message, from, to chat.ID) int {
	n := 0
	for emoji, users := range m.Reactions {
		i := slices.Index(users, from)
		if i < 0 {
			continue
		}
		if slices.Contains(users, to) {
			users = slices.Delete(users, i, i+1)
		} else {
			users[i] = to
		}
		m.Reactions[emoji] = users
		n++
	}
	return n
}

// claimMentions replaces from by to among m's mentions.
func claimMentions(m *chat.Message, from, to chat.ID) bool {
	i := slices.Index(m.Mentions, from)
	if i < 0 {
		return false
	}
	if slices.Contains(m.Mentions, to) {
		m.Mentions = slices.Delete(m.Mentions, i, i+1)
	} else {
		m.Mentions[i] = to
	}
	return true
}

// ImportName gives an author brought in by an import (a Discord export)
// a username and discriminator as a new account would get them: the
// author's name when Ermine accepts it, else the letters, digits and
// "_.-" in it, else fallback; and a random free discriminator, one also
// not in taken (the names the running import has handed out but not yet
// written).
func (a *App) ImportName(ctx context.Context, name, fallback string, taken map[string]bool) (string, string, error) {
	username := name
	if validUsername(username) != nil {
		var b strings.Builder
		for _, r := range name {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.-", r) {
				b.WriteRune(r)
			}
		}
		username = b.String()
		if utf8.RuneCountInString(username) > 32 {
			username = string([]rune(username)[:32])
		}
		if validUsername(username) != nil {
			username = fallback
		}
	}
	used, err := a.store.FetchDiscriminators(ctx, username)
	if err != nil {
		return "", "", dbError("fetch discriminators", err)
	}
	busy := make(map[string]bool, len(used))
	for _, d := range used {
		busy[d] = true
	}
	var free []int
	for n := 2; n <= 9998; n++ {
		d := fmt.Sprintf("%04d", n)
		if discriminatorAllowed(n) && !busy[d] && !taken[strings.ToLower(username)+"#"+d] {
			free = append(free, n)
		}
	}
	if len(free) == 0 {
		return "", "", chat.ErrUsernameTaken
	}
	i, err := rand.Int(rand.Reader, big.NewInt(int64(len(free))))
	if err != nil {
		return "", "", fmt.Errorf("pick discriminator: %w", err)
	}
	return username, fmt.Sprintf("%04d", free[i.Int64()]), nil
}
