package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// Me is the path alias of the caller's own user id.
const Me chat.ID = "@me"

// discriminatorChangeInterval is how often a username change may force a
// new discriminator.
const discriminatorChangeInterval = 24 * time.Hour

// self resolves the alias @me to the caller's id.
func self(c *Caller, id chat.ID) chat.ID {
	if id == Me {
		return c.ID()
	}
	return id
}

// fetchUser loads a user by id, NotFound when missing.
func (a *App) fetchUser(ctx context.Context, id chat.ID) (*chat.User, error) {
	u, err := a.store.FetchUser(ctx, id)
	if err != nil {
		return nil, dbError("fetch user", notFound(err))
	}
	return u, nil
}

// userTopics are where changes to a user's public face go: the user's own
// topic and the member-updates topic of every server they belong to.
func (a *App) userTopics(ctx context.Context, user chat.ID) ([]string, error) {
	ms, err := a.store.FetchMemberships(ctx, user)
	if err != nil {
		return nil, dbError("fetch memberships", err)
	}
	topics := make([]string, 0, len(ms)+1)
	topics = append(topics, event.Of(user))
	for _, m := range ms {
		topics = append(topics, event.Members(m.ID.Server))
	}
	return topics, nil
}

// publishUserUpdate sends UserUpdate for a change to user.
func (a *App) publishUserUpdate(ctx context.Context, user chat.ID, data chat.Partial, clear []string) error {
	topics, err := a.userTopics(ctx, user)
	if err != nil {
		return err
	}
	if clear == nil {
		clear = []string{}
	}
	// One event goes out on several topics; its event_id lets a connection
	// that follows more than one of them take it once (the gateway then
	// sends event_id as null, as clients expect).
	eventID := string(chat.NewID())
	a.publish(ctx, chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: user, Data: data,
		Clear: clear, EventID: &eventID}, topics...)
	return nil
}

// FetchSelf returns the caller's own user, with their relations.
func (a *App) FetchSelf(ctx context.Context, c *Caller) (*chat.User, error) {
	return a.viewUser(ctx, c.User, c.User)
}

// FetchUser returns a user as the caller sees them; the caller needs the
// Access user permission.
func (a *App) FetchUser(ctx context.Context, c *Caller, id chat.ID) (*chat.User, error) {
	id = self(c, id)
	if id == c.ID() {
		return a.FetchSelf(ctx, c)
	}
	target, err := a.fetchUserWith(ctx, c, id, perm.UserAccess)
	if err != nil {
		return nil, err
	}
	return a.viewUser(ctx, c.User, target)
}

// FetchUserFlags returns a user's flags; unknown users have none.
func (a *App) FetchUserFlags(ctx context.Context, id chat.ID) (chat.FlagResponse, error) {
	u, err := a.store.FetchUser(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return chat.FlagResponse{}, nil
	}
	if err != nil {
		return chat.FlagResponse{}, dbError("fetch user", err)
	}
	return chat.FlagResponse{Flags: u.Flags}, nil
}

// FetchProfile returns a user's profile; the caller needs ViewProfile.
func (a *App) FetchProfile(ctx context.Context, c *Caller, id chat.ID) (*chat.UserProfile, error) {
	id = self(c, id)
	target, err := a.fetchUserWith(ctx, c, id, perm.UserViewProfile)
	if err != nil {
		return nil, err
	}
	if target.Profile == nil {
		return &chat.UserProfile{}, nil
	}
	return target.Profile, nil
}

// FindMutual lists the friends, servers, groups and direct messages the
// caller shares with a user; the caller needs ViewProfile and may not ask
// about themself.
func (a *App) FindMutual(ctx context.Context, c *Caller, id chat.ID) (*chat.MutualResponse, error) {
	id = self(c, id)
	if id == c.ID() {
		return nil, chat.ErrInvalidOperation
	}
	if _, err := a.fetchUserWith(ctx, c, id, perm.UserViewProfile); err != nil {
		return nil, err
	}
	out := &chat.MutualResponse{Users: []chat.ID{}, Servers: []chat.ID{}, Channels: []chat.ID{}}

	mine, err := a.store.FetchRelationships(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch relationships", err)
	}
	theirs, err := a.store.FetchRelationships(ctx, id)
	if err != nil {
		return nil, dbError("fetch relationships", err)
	}
	friends := make(map[chat.ID]bool)
	for _, r := range mine {
		if r.Status == chat.RelationFriend {
			friends[r.ID] = true
		}
	}
	for _, r := range theirs {
		if r.Status == chat.RelationFriend && friends[r.ID] {
			out.Users = append(out.Users, r.ID)
		}
	}

	myServers, err := a.store.FetchMemberships(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch memberships", err)
	}
	theirServers, err := a.store.FetchMemberships(ctx, id)
	if err != nil {
		return nil, dbError("fetch memberships", err)
	}
	in := make(map[chat.ID]bool, len(myServers))
	for _, m := range myServers {
		in[m.ID.Server] = true
	}
	for _, m := range theirServers {
		if in[m.ID.Server] {
			out.Servers = append(out.Servers, m.ID.Server)
		}
	}

	chans, err := a.store.FetchPrivateChannels(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch channels", err)
	}
	for _, ch := range chans {
		if ch.ChannelType != chat.ChannelSavedMessages && ch.HasRecipient(id) {
			out.Channels = append(out.Channels, ch.ID)
		}
	}
	slices.Sort(out.Users)
	slices.Sort(out.Servers)
	return out, nil
}

// editableUser returns the user an edit of id applies to: the caller, or
// a bot the caller owns. Anyone else who exists is NotPrivileged, as in
// the reference; an unknown id is NotFound.
func (a *App) editableUser(ctx context.Context, c *Caller, id chat.ID) (*chat.User, error) {
	id = self(c, id)
	if id == c.ID() {
		return a.fetchUser(ctx, id)
	}
	u, err := a.fetchUser(ctx, id)
	if err != nil {
		return nil, err
	}
	if u.Bot == nil || u.Bot.Owner != c.ID() {
		return nil, chat.ErrNotPrivileged
	}
	return u, nil
}

// EditUser changes the caller's user (or a bot's user the caller owns):
// display name, avatar, status, profile, and for privileged callers
// badges and flags. Fields named in Remove are cleared first. Everyone
// who may see the user gets UserUpdate with the changed fields; the
// profile is not part of the user object, so a profile-only edit sends
// empty data.
func (a *App) EditUser(ctx context.Context, c *Caller, id chat.ID, data chat.UserEdit) (*chat.User, error) {
	target, err := a.editableUser(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if (data.Badges != nil || data.Flags != nil) && !c.User.Privileged {
		return nil, chat.ErrNotPrivileged
	}
	empty := data.DisplayName == nil && data.Avatar == nil && data.Status == nil && data.Profile == nil &&
		data.Badges == nil && data.Flags == nil && data.Pronouns == nil && len(data.Remove) == 0
	if empty {
		return a.viewUser(ctx, c.User, target)
	}
	changed := chat.Partial{}
	var clear []string
	var updated *chat.User
	err = a.store.InTx(ctx, func(st store.Store) error {
		u, err := st.FetchUser(ctx, target.ID)
		if err != nil {
			return dbError("fetch user", notFound(err))
		}
		changed, clear, err = applyUserEdit(ctx, st, u, data)
		if err != nil {
			return err
		}
		if err := st.UpdateUser(ctx, u); err != nil {
			return dbError("update user", err)
		}
		updated = u
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := a.publishUserUpdate(ctx, updated.ID, changed, clear); err != nil {
		return nil, err
	}
	return a.viewUser(ctx, c.User, updated)
}

// applyUserEdit changes u as data asks, claiming new files and dropping
// replaced ones through st, and returns the changed wire fields and the
// cleared field names.
func applyUserEdit(ctx context.Context, st store.Store, u *chat.User, data chat.UserEdit) (chat.Partial, []string, error) {
	changed := chat.Partial{}
	clear := []string{}
	statusTouched := false
	for _, f := range data.Remove {
		switch f {
		case chat.UserFieldDisplayName:
			u.DisplayName = nil
		case chat.UserFieldPronouns:
			u.Pronouns = nil
		case chat.UserFieldAvatar:
			if err := dropFile(ctx, st, u.Avatar); err != nil {
				return nil, nil, err
			}
			u.Avatar = nil
		case chat.UserFieldStatusText:
			if u.Status != nil {
				s := *u.Status
				s.Text = nil
				u.Status = &s
			}
		case chat.UserFieldStatusPresence:
			if u.Status != nil {
				s := *u.Status
				s.Presence = nil
				u.Status = &s
			}
		case chat.UserFieldProfileContent:
			if u.Profile != nil {
				p := *u.Profile
				p.Content = nil
				u.Profile = &p
			}
		case chat.UserFieldProfileBackground:
			if u.Profile != nil {
				if err := dropFile(ctx, st, u.Profile.Background); err != nil {
					return nil, nil, err
				}
				p := *u.Profile
				p.Background = nil
				u.Profile = &p
			}
		case chat.UserFieldInternal:
			continue // reserved by the interface; nothing to clear
		}
		if !slices.Contains(clear, f) {
			clear = append(clear, f)
		}
	}
	if data.DisplayName != nil {
		name := *data.DisplayName
		u.DisplayName = &name
		changed["display_name"] = name
	}
	if data.Pronouns != nil {
		p := *data.Pronouns
		u.Pronouns = &p
		changed["pronouns"] = p
	}
	if data.Avatar != nil {
		f, err := replaceFile(ctx, st, *data.Avatar, chat.TagAvatars, fileUseAvatar, u.ID, u.Avatar)
		if err != nil {
			return nil, nil, err
		}
		u.Avatar = f
		changed["avatar"] = f
	}
	if data.Status != nil {
		s := chat.UserStatus{}
		if u.Status != nil {
			s = *u.Status
		}
		if data.Status.Text != nil {
			t := *data.Status.Text
			s.Text = &t
		}
		if data.Status.Presence != nil {
			p := *data.Status.Presence
			s.Presence = &p
		}
		u.Status = &s
		statusTouched = true
	}
	if u.Status != nil && u.Status.Text == nil && u.Status.Presence == nil {
		u.Status = nil
	}
	if statusTouched && u.Status != nil {
		changed["status"] = *u.Status
	}
	if data.Profile != nil {
		p := chat.UserProfile{}
		if u.Profile != nil {
			p = *u.Profile
		}
		if data.Profile.Content != nil {
			content := *data.Profile.Content
			p.Content = &content
		}
		if data.Profile.Background != nil {
			f, err := replaceFile(ctx, st, *data.Profile.Background, chat.TagBackgrounds, fileUseBackground, u.ID, p.Background)
			if err != nil {
				return nil, nil, err
			}
			p.Background = f
		}
		u.Profile = &p
	}
	if u.Profile != nil && u.Profile.Content == nil && u.Profile.Background == nil {
		u.Profile = nil
	}
	if data.Badges != nil {
		u.Badges = uint32(*data.Badges)
		changed["badges"] = u.Badges
	}
	if data.Flags != nil {
		u.Flags = uint32(*data.Flags)
		changed["flags"] = u.Flags
	}
	return changed, clear, nil
}

// ChangeUsername gives the caller a new username, checked against their
// account password. A change of case keeps the discriminator; otherwise
// the current one is kept when it is free with the new name, and a new
// one is drawn when not, which is allowed once a day. Everyone who may
// see the user gets UserUpdate.
func (a *App) ChangeUsername(ctx context.Context, c *Caller, data chat.UsernameChange) (*chat.User, error) {
	if c.IsBot() {
		return nil, chat.ErrIsBot
	}
	if err := validUsername(data.Username); err != nil {
		return nil, err
	}
	acc, err := a.store.FetchAccount(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch account", notFound(err))
	}
	if err := a.requirePassword(ctx, acc, data.Password); err != nil {
		return nil, err
	}
	current, err := a.fetchUser(ctx, c.ID())
	if err != nil {
		return nil, err
	}
	disc := current.Discriminator
	if !strings.EqualFold(current.Username, data.Username) {
		if disc, err = a.pickDiscriminator(ctx, data.Username, current.Discriminator); err != nil {
			return nil, err
		}
	}
	now := a.now()
	var updated *chat.User
	err = a.store.InTx(ctx, func(st store.Store) error {
		u, err := st.FetchUser(ctx, c.ID())
		if err != nil {
			return dbError("fetch user", notFound(err))
		}
		if disc != u.Discriminator {
			if last := u.LastDiscriminatorChange; last != nil && now.Sub(last.Time) < discriminatorChangeInterval {
				return chat.ErrDiscriminatorChangeRatelimited
			}
			t := chat.TimeOf(now)
			u.LastDiscriminatorChange = &t
		}
		u.Username, u.Discriminator = data.Username, disc
		if err := st.UpdateUser(ctx, u); err != nil {
			return conflictAsTaken("update user", err)
		}
		updated = u
		return nil
	})
	if err != nil {
		return nil, err
	}
	changed := chat.Partial{"username": updated.Username}
	if updated.Discriminator != current.Discriminator {
		changed["discriminator"] = updated.Discriminator
	}
	if err := a.publishUserUpdate(ctx, updated.ID, changed, nil); err != nil {
		return nil, err
	}
	return a.viewUser(ctx, c.User, updated)
}

// fetchUserWith returns the user id when the caller holds the user
// permission need towards them (MissingPermission naming it otherwise).
func (a *App) fetchUserWith(ctx context.Context, c *Caller, id chat.ID, need perm.UserSet) (*chat.User, error) {
	target, err := a.fetchUser(ctx, id)
	if err != nil {
		return nil, err
	}
	p, err := a.userPermissions(ctx, c.User, target)
	if err != nil {
		return nil, err
	}
	if err := perm.RequireUser(p, need); err != nil {
		return nil, err
	}
	return target, nil
}

// DefaultAvatar returns the PNG picture of a user without an avatar. It
// needs no user to exist: the picture depends on the id alone.
func (a *App) DefaultAvatar(id string) ([]byte, error) {
	return a.files.avatars.PNG(id)
}
