package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// CreateBot makes a bot owned by the caller (POST /bots/create): a bot
// user named like any user, with bot.owner set, and a bot token. Bots
// cannot make bots, and each user may own only so many.
func (a *App) CreateBot(ctx context.Context, c *Caller, data chat.BotCreate) (*chat.BotWithUser, error) {
	if c.IsBot() {
		return nil, chat.ErrIsBot
	}
	owned, err := a.store.FetchBotsByOwner(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch bots", err)
	}
	if len(owned) >= a.settings.Limits.For(c.ID(), a.now()).Bots {
		return nil, chat.ErrReachedMaximumBots
	}
	if err := validUsername(data.Name); err != nil {
		return nil, err
	}
	disc, err := a.pickDiscriminator(ctx, data.Name, "")
	if err != nil {
		return nil, err
	}
	id := chat.NewID()
	u := &chat.User{ID: id, Username: data.Name, Discriminator: disc, Bot: &chat.BotInformation{Owner: c.ID()}}
	bot := &chat.Bot{ID: id, Owner: c.ID(), Token: chat.NewToken(tokenLength)}
	err = a.store.InTx(ctx, func(st store.Store) error {
		if err := st.InsertUser(ctx, u); err != nil {
			return conflictAsTaken("insert user", err)
		}
		return dbError("insert bot", st.InsertBot(ctx, bot))
	})
	if err != nil {
		return nil, err
	}
	seen, err := a.viewUser(ctx, c.User, u)
	if err != nil {
		return nil, err
	}
	return &chat.BotWithUser{Bot: *bot, User: seen}, nil
}

// ownedBot loads a bot the caller owns; anyone else's is NotFound.
func (a *App) ownedBot(ctx context.Context, c *Caller, id chat.ID) (*chat.Bot, error) {
	bot, err := a.store.FetchBot(ctx, id)
	if err != nil {
		return nil, dbError("fetch bot", notFound(err))
	}
	if bot.Owner != c.ID() {
		return nil, chat.ErrNotFound
	}
	return bot, nil
}

// FetchBot returns a bot the caller owns with its user (GET /bots/{id}).
func (a *App) FetchBot(ctx context.Context, c *Caller, id chat.ID) (*chat.BotResponse, error) {
	bot, err := a.ownedBot(ctx, c, id)
	if err != nil {
		return nil, err
	}
	u, err := a.fetchUser(ctx, bot.ID)
	if err != nil {
		return nil, err
	}
	seen, err := a.viewUser(ctx, c.User, u)
	if err != nil {
		return nil, err
	}
	return &chat.BotResponse{Bot: bot, User: seen}, nil
}

// FetchOwnedBots lists the caller's bots and their users, both by id
// (GET /bots/@me).
func (a *App) FetchOwnedBots(ctx context.Context, c *Caller) (*chat.OwnedBots, error) {
	bots, err := a.store.FetchBotsByOwner(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch bots", err)
	}
	slices.SortFunc(bots, func(x, y *chat.Bot) int { return strings.Compare(string(x.ID), string(y.ID)) })
	ids := make([]chat.ID, len(bots))
	for i, b := range bots {
		ids[i] = b.ID
	}
	users, err := a.viewUsers(ctx, c.User, ids)
	if err != nil {
		return nil, err
	}
	if bots == nil {
		bots = []*chat.Bot{}
	}
	return &chat.OwnedBots{Bots: bots, Users: users}, nil
}

// EditBot changes a bot the caller owns (PATCH /bots/{id}): its name
// (the bot user's username), whether it is public, analytics and its
// interactions URL. Removing Token issues a new token and logs out every
// events connection of the bot.
func (a *App) EditBot(ctx context.Context, c *Caller, id chat.ID, data chat.BotEdit) (*chat.BotWithUser, error) {
	bot, err := a.ownedBot(ctx, c, id)
	if err != nil {
		return nil, err
	}
	current, err := a.fetchUser(ctx, bot.ID)
	if err != nil {
		return nil, err
	}
	disc := current.Discriminator
	renamed := data.Name != nil && *data.Name != current.Username
	if renamed {
		if err := validUsername(*data.Name); err != nil {
			return nil, err
		}
		if !strings.EqualFold(*data.Name, current.Username) {
			if disc, err = a.pickDiscriminator(ctx, *data.Name, current.Discriminator); err != nil {
				return nil, err
			}
		}
	}
	resetToken := slices.Contains(data.Remove, chat.BotFieldToken)
	var u *chat.User
	err = a.store.InTx(ctx, func(st store.Store) error {
		var err error
		if bot, err = st.FetchBot(ctx, id); err != nil {
			return dbError("fetch bot", notFound(err))
		}
		if u, err = st.FetchUser(ctx, id); err != nil {
			return dbError("fetch user", notFound(err))
		}
		for _, f := range data.Remove {
			switch f {
			case chat.BotFieldToken:
				bot.Token = chat.NewToken(tokenLength)
			case chat.BotFieldInteractionsURL:
				bot.InteractionsURL = ""
			}
		}
		if data.Public != nil {
			bot.Public = *data.Public
		}
		if data.Analytics != nil {
			bot.Analytics = *data.Analytics
		}
		if data.InteractionsURL != nil {
			bot.InteractionsURL = *data.InteractionsURL
		}
		if err := st.UpdateBot(ctx, bot); err != nil {
			return dbError("update bot", err)
		}
		if !renamed {
			return nil
		}
		u.Username, u.Discriminator = *data.Name, disc
		return conflictAsTaken("update user", st.UpdateUser(ctx, u))
	})
	if err != nil {
		return nil, err
	}
	if renamed {
		changed := chat.Partial{"username": u.Username}
		if disc != current.Discriminator {
			changed["discriminator"] = disc
		}
		if err := a.publishUserUpdate(ctx, u.ID, changed, nil); err != nil {
			return nil, err
		}
	}
	if resetToken {
		a.publish(ctx, chat.TypeOnly{Type: chat.EvLogout}, event.Private(bot.ID))
	}
	seen, err := a.viewUser(ctx, c.User, u)
	if err != nil {
		return nil, err
	}
	return &chat.BotWithUser{Bot: *bot, User: seen}, nil
}

// deletedBotClear are the user fields a deleted bot loses.
var deletedBotClear = []string{chat.UserFieldAvatar, chat.UserFieldStatusText, chat.UserFieldStatusPresence,
	chat.UserFieldProfileContent, chat.UserFieldProfileBackground, chat.UserFieldDisplayName}

// DeleteBot deletes a bot the caller owns (DELETE /bots/{id}). Its token
// stops working and its connections are logged out; the bot user stays
// (its messages keep an author, and it stays in its servers and groups)
// but becomes "Deleted User <id>" with the Deleted flag and loses its
// avatar, status and profile.
func (a *App) DeleteBot(ctx context.Context, c *Caller, id chat.ID) error {
	if _, err := a.ownedBot(ctx, c, id); err != nil {
		return err
	}
	var u *chat.User
	err := a.store.InTx(ctx, func(st store.Store) error {
		var err error
		if u, err = st.FetchUser(ctx, id); err != nil {
			return dbError("fetch user", notFound(err))
		}
		if err := dropFile(ctx, st, u.Avatar); err != nil {
			return err
		}
		if u.Profile != nil {
			if err := dropFile(ctx, st, u.Profile.Background); err != nil {
				return err
			}
		}
		u.Username = fmt.Sprintf("Deleted User %s", u.ID)
		u.Flags = chat.UserFlagDeleted
		u.Avatar, u.Status, u.Profile, u.DisplayName = nil, nil, nil, nil
		if err := st.UpdateUser(ctx, u); err != nil {
			return dbError("update user", err)
		}
		return dbError("delete bot", notFound(st.DeleteBot(ctx, id)))
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.TypeOnly{Type: chat.EvLogout}, event.Private(id))
	a.disconnectUserEverywhere(ctx, id)
	return a.publishUserUpdate(ctx, id, chat.Partial{"username": u.Username, "flags": u.Flags}, slices.Clone(deletedBotClear))
}

// FetchPublicBot returns the public page of a bot (GET /bots/{id}/invite):
// anyone may see a public bot; a private one only its owner. c is nil
// for callers without a token.
func (a *App) FetchPublicBot(ctx context.Context, c *Caller, id chat.ID) (*chat.PublicBot, error) {
	bot, err := a.store.FetchBot(ctx, id)
	if err != nil {
		return nil, dbError("fetch bot", notFound(err))
	}
	if !bot.Public && (c == nil || c.User == nil || bot.Owner != c.ID()) {
		return nil, chat.ErrNotFound
	}
	u, err := a.fetchUser(ctx, bot.ID)
	if err != nil {
		return nil, err
	}
	pb := &chat.PublicBot{ID: bot.ID, Username: u.Username}
	if u.Avatar != nil {
		pb.Avatar = u.Avatar.ID
	}
	if u.Profile != nil && u.Profile.Content != nil {
		pb.Description = *u.Profile.Content
	}
	return pb, nil
}

// InviteBot adds a bot to a server or a group (POST /bots/{id}/invite).
// The bot must be public or the caller's own; a server needs the
// caller's ManageServer, a group their InviteOthers.
func (a *App) InviteBot(ctx context.Context, c *Caller, id chat.ID, dest chat.BotInvite) error {
	if c.IsBot() {
		return chat.ErrIsBot
	}
	bot, err := a.store.FetchBot(ctx, id)
	if err != nil {
		return dbError("fetch bot", notFound(err))
	}
	if !bot.Public && bot.Owner != c.ID() {
		return chat.ErrBotIsPrivate
	}
	botUser, err := a.fetchUser(ctx, bot.ID)
	if err != nil {
		return err
	}
	if dest.Group != "" {
		g, p, err := a.requireGroup(ctx, c, dest.Group)
		if err != nil {
			return err
		}
		if err := perm.Require(p, perm.InviteOthers); err != nil {
			return err
		}
		_, err = a.addToGroup(ctx, g.ID, bot.ID, chat.SystemMessage{Type: sysUserAdded, ID: bot.ID, By: c.ID()})
		return err
	}
	sv, err := a.store.FetchServer(ctx, dest.Server)
	if err != nil {
		return dbError("fetch server", notFound(err))
	}
	p, m, err := a.serverPermissions(ctx, c.User, sv)
	if err != nil {
		return err
	}
	if m == nil && sv.Owner != c.ID() && !c.User.Privileged {
		return chat.ErrNotFound
	}
	if err := perm.Require(p, perm.ManageServer); err != nil {
		return err
	}
	_, err = a.joinServer(ctx, botUser, sv.ID)
	return err
}
