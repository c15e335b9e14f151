package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// ReadySections selects what a Ready event carries. The zero value asks
// for nothing; DefaultReadySections is what a client gets when it names no
// section.
type ReadySections struct {
	Users, Servers, Channels, Members, Emojis, VoiceStates, PolicyChanges bool
	ChannelUnreads                                                        bool
	// UserSettings asks for the synced settings with these keys, or all of
	// them when the slice is empty but not nil.
	UserSettings []string
}

// DefaultReadySections are the sections sent when the client named none:
// every array, without channel_unreads and user_settings.
func DefaultReadySections() ReadySections {
	return ReadySections{Users: true, Servers: true, Channels: true, Members: true,
		Emojis: true, VoiceStates: true, PolicyChanges: true}
}

// ReadyScope is what a connection follows after Ready, whatever sections
// the client asked for: the gateway subscribes to exactly this.
type ReadyScope struct {
	// Users are the other users followed: those in a relationship with the
	// caller and the recipients of their direct messages and groups.
	Users []chat.ID
	// Relations is the caller's relationship with each related user.
	Relations map[chat.ID]chat.RelationshipStatus
	// Servers maps each server the caller belongs to to the roles they hold.
	Servers map[chat.ID][]chat.ID
	// Channels maps each channel the caller sees to its server ("" for
	// SavedMessages, direct messages and groups).
	Channels map[chat.ID]chat.ID
}

// Ready builds the initial state of an events connection for caller,
// with the sections asked for (behaviour.md §1.3): the caller's related
// users and DM/group partners with the caller's own user last
// (relationship "User"), their servers, the channels they may view, their
// own memberships, their servers' emoji, who is in the voice
// channels they see, the policy changes they have not acknowledged and, when asked
// for, their unreads and settings. Requested arrays are never nil, so they
// travel as [] when empty. It also records the session as seen now.
func (a *App) Ready(ctx context.Context, caller *Caller, sections ReadySections) (*chat.ReadyEvent, *ReadyScope, error) {
	// One read for the relationships, private channels, memberships,
	// servers, channels and emoji: every connect pays it.
	facts, err := a.store.FetchReadyFacts(ctx, caller.User.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch ready facts: %w", err)
	}
	return a.readyFrom(ctx, caller, facts, sections)
}

// AuthenticateReady is Authenticate for a session token and Ready, with
// one store read where they make two, for an events connection. With
// user, the connection knows whose token it is given and already
// follows that user's topics, as a connection that authenticated first
// would before Ready reads; without, the token may be anyone's session
// (the connection checks afterwards that nothing changed for its user
// before it followed them). A token that is not a session (of user)
// yields chat.ErrInvalidSession (the caller then authenticates the
// ordinary way, which also tries bots); a session whose account has no
// user, ErrOnboardingNotFinished.
func (a *App) AuthenticateReady(ctx context.Context, token string, user chat.ID, sections ReadySections) (*Caller, *chat.ReadyEvent, *ReadyScope, error) {
	if !wellFormedToken(token) {
		return nil, nil, nil, chat.ErrInvalidSession
	}
	read, err := a.store.FetchSessionReadyFacts(ctx, token)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (!equalToken(read.Session.Token, token) || (user != "" && read.Session.UserID != user))) {
		return nil, nil, nil, chat.ErrInvalidSession
	}
	if err != nil {
		return nil, nil, nil, dbError("fetch session", err)
	}
	if read.User == nil {
		return &Caller{Session: read.Session}, nil, nil, ErrOnboardingNotFinished
	}
	caller := &Caller{User: read.User, Session: read.Session}
	ev, scope, err := a.readyFrom(ctx, caller, read.Facts, sections)
	if err != nil {
		return nil, nil, nil, err
	}
	return caller, ev, scope, nil
}

// readyFrom builds Ready for caller from the facts read for them.
func (a *App) readyFrom(ctx context.Context, caller *Caller, facts *store.ReadyFacts, sections ReadySections) (*chat.ReadyEvent, *ReadyScope, error) {
	me := caller.User
	scope := &ReadyScope{
		Relations: make(map[chat.ID]chat.RelationshipStatus),
		Servers:   make(map[chat.ID][]chat.ID),
		Channels:  make(map[chat.ID]chat.ID),
	}
	ev := &chat.ReadyEvent{Type: chat.EvReady}
	relations, private, members := facts.Relationships, facts.Private, facts.Memberships

	// Users: relations first, then DM and group partners, self last.
	var userIDs []chat.ID
	seen := map[chat.ID]bool{me.ID: true}
	for _, r := range relations {
		scope.Relations[r.ID] = r.Status
		if !seen[r.ID] {
			seen[r.ID] = true
			userIDs = append(userIDs, r.ID)
		}
	}
	channels := make([]*chat.Channel, 0, len(private))
	for _, c := range private {
		scope.Channels[c.ID] = ""
		channels = append(channels, c)
		if c.ChannelType == chat.ChannelSavedMessages {
			continue
		}
		for _, r := range c.Recipients {
			if !seen[r] {
				seen[r] = true
				userIDs = append(userIDs, r)
			}
		}
	}
	scope.Users = userIDs

	// Servers and the channels the caller may view in them, computed
	// whatever was asked for since subscriptions follow them.
	memberOf := make(map[chat.ID]*chat.Member, len(members))
	for _, m := range members {
		memberOf[m.ID.Server] = m
	}
	servers, lists := facts.Servers, facts.Channels
	ownMembers := make([]*chat.Member, 0, len(servers))
	for _, s := range servers {
		m := memberOf[s.ID]
		ownMembers = append(ownMembers, m)
		scope.Servers[s.ID] = slices.Clone(m.Roles)
		for _, c := range a.viewableOf(me, s, m, lists[s.ID]) {
			scope.Channels[c.ID] = s.ID
			channels = append(channels, c)
		}
	}

	if sections.Users {
		users, err := a.readyUsers(ctx, me, relations, userIDs)
		if err != nil {
			return nil, nil, err
		}
		ev.Users = users
	}
	if sections.Servers {
		ev.Servers = readyArray(servers)
	}
	if sections.Channels {
		ev.Channels = channels
	}
	if sections.Members {
		ev.Members = ownMembers
	}
	if sections.Emojis {
		ev.Emojis = readyArray(facts.Emojis)
	}
	if sections.VoiceStates {
		// Only channels that can hold a call can have anyone in one.
		var ids []chat.ID
		for _, c := range channels {
			if voiceCapable(c) {
				ids = append(ids, c.ID)
			}
		}
		slices.Sort(ids)
		states, err := a.voiceStates(ctx, ids)
		if err != nil {
			return nil, nil, err
		}
		ev.VoiceStates = states
	}
	if sections.PolicyChanges {
		changes, err := a.readyPolicyChanges(ctx, caller, facts.PolicyChanges)
		if err != nil {
			return nil, nil, err
		}
		ev.PolicyChanges = changes
	}
	if sections.ChannelUnreads {
		unreads, err := a.store.FetchUnreads(ctx, me.ID)
		if err != nil {
			return nil, nil, fmt.Errorf("fetch unreads: %w", err)
		}
		ev.ChannelUnreads = readyArray(unreads)
	}
	if sections.UserSettings != nil {
		settings, err := a.store.FetchSettings(ctx, me.ID, sections.UserSettings)
		if err != nil {
			return nil, nil, fmt.Errorf("fetch settings: %w", err)
		}
		if settings == nil {
			settings = map[string]chat.Setting{}
		}
		ev.UserSettings = settings
	}

	// A session's last sighting is kept to the nearest lastSeenStep and
	// written in batches: a write on every connect would cost more than
	// the rest of Ready, and a crowd reconnecting after a restart would
	// queue behind SQLite's single writer.
	if se := caller.Session; se != nil && (se.LastSeen == nil || a.now().Sub(se.LastSeen.Time) >= lastSeenStep) {
		now := chat.TimeOf(a.now())
		se.LastSeen = &now
		a.login.lastSeen.Record(se.ID, now)
	}
	return ev, scope, nil
}

// lastSeenStep is how stale a session's recorded last sighting may be.
const lastSeenStep = 10 * time.Minute

// readyUsers renders the related users as the caller sees them, then the
// caller's own user with relationship "User" and their relations.
func (a *App) readyUsers(ctx context.Context, me *chat.User, relations []chat.Relationship, ids []chat.ID) ([]*chat.User, error) {
	others, err := a.store.FetchUsers(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("fetch users: %w", err)
	}
	byID := make(map[chat.ID]*chat.User, len(others))
	for _, u := range others {
		byID[u.ID] = u
	}
	viewer := *me
	viewer.Relations = relations
	out := make([]*chat.User, 0, len(ids)+1)
	for _, id := range ids {
		u, ok := byID[id]
		if !ok {
			continue
		}
		out = append(out, a.userSeenBy(&viewer, u))
	}
	self := viewer
	self.Relationship = chat.RelationUser
	self.Online = !isInvisible(me)
	self.Status = withoutInvisible(me.Status)
	out = append(out, &self)
	return out, nil
}

// userSeenBy renders another user for viewer (whose Relations are
// loaded): no relations, the viewer's relationship, online when they are
// connected and not Invisible, and nothing of their status or presence
// when they blocked the viewer.
func (a *App) userSeenBy(viewer, u *chat.User) *chat.User {
	c := *u
	c.Relations = nil
	c.Relationship = perm.RelationshipOf(viewer, u)
	c.Online = a.looksOnline(u)
	c.Status = withoutInvisible(u.Status)
	if c.Relationship == chat.RelationBlockedOther {
		c.Status = nil
		c.Online = false
	}
	return &c
}

// withoutInvisible returns s without an Invisible presence, which full
// user objects never show (not even to the user themself).
func withoutInvisible(s *chat.UserStatus) *chat.UserStatus {
	if s == nil || s.Presence == nil || *s.Presence != chat.PresenceInvisible {
		return s
	}
	c := *s
	c.Presence = nil
	if c.Text == nil {
		return nil
	}
	return &c
}

// readyPolicyChanges lists the policy changes a user has not acknowledged:
// those created after their last acknowledgement, or after their account
// was made when they never acknowledged one. Bots have none to acknowledge.
//
// An acknowledgement is never older than the account, so the changes
// made since the account was created (read with the Ready facts) come
// first; most users have none, and only when some exist is the account
// read to drop those already acknowledged.
func (a *App) readyPolicyChanges(ctx context.Context, caller *Caller, changes []chat.PolicyChange) ([]chat.PolicyChange, error) {
	if caller.IsBot() {
		return []chat.PolicyChange{}, nil
	}
	if len(changes) == 0 {
		return []chat.PolicyChange{}, nil
	}
	acc, err := a.store.FetchAccount(ctx, caller.ID())
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("fetch account: %w", err)
	case acc.PolicyAcknowledged != nil:
		after := acc.PolicyAcknowledged.Millis()
		changes = slices.DeleteFunc(changes, func(p chat.PolicyChange) bool { return p.CreatedTime.Millis() <= after })
	}
	return readyArray(changes), nil
}

// readyArray returns s, or an empty slice when s is nil, so it encodes as [].
func readyArray[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
