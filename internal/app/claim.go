package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
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
			res.Reactions += claimReactions(m, imp.ID, real.ID)
			if claimMentions(m, imp.ID, real.ID) {
				res.Mentions++
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
					if n > 0 || mentioned {
						res.Reactions += n
						if mentioned {
							res.Mentions++
						}
						changed = append(changed, msg)
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

	err = a.store.InTx(ctx, func(tx store.Store) error {
		u, err := tx.FetchUser(ctx, imp.ID)
		if err != nil {
			return dbError("fetch user", err)
		}
		u.Flags |= chat.UserFlagDeleted
		return dbError("update user", tx.UpdateUser(ctx, u))
	})
	if err != nil {
		return nil, err
	}
	return res, nil
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
