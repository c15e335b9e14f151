package app

import (
	"context"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// A relationship change sets both sides at once: the caller's status
// toward the target and the target's toward the caller (behaviour.md
// §2.1). Every change is told to both users through UserRelationship on
// their private topics, each carrying the other user as they now see
// them.

// relationChange is the outcome of a transition: the new status of each
// side.
type relationChange struct {
	mine, theirs chat.RelationshipStatus
}

// transition decides a relationship change from both current statuses;
// it returns the new statuses or the error the client is told.
type transition func(mine, theirs chat.RelationshipStatus) (relationChange, error)

// relationshipTarget loads the user a relationship route names. Acting on
// oneself has no effect.
func (a *App) relationshipTarget(ctx context.Context, c *Caller, id chat.ID) (*chat.User, error) {
	id = self(c, id)
	if id == c.ID() {
		return nil, chat.ErrNoEffect
	}
	return a.fetchUser(ctx, id)
}

// changeRelationship runs a transition between the caller and target
// atomically, stores both sides, tells both users and returns the target
// as the caller now sees them.
func (a *App) changeRelationship(ctx context.Context, c *Caller, target *chat.User, decide transition) (*chat.User, error) {
	me := c.ID()
	var change relationChange
	err := a.store.InTx(ctx, func(st store.Store) error {
		mine, err := st.FetchRelationship(ctx, me, target.ID)
		if err != nil {
			return dbError("fetch relationship", err)
		}
		theirs, err := st.FetchRelationship(ctx, target.ID, me)
		if err != nil {
			return dbError("fetch relationship", err)
		}
		if change, err = decide(mine, theirs); err != nil {
			return err
		}
		if change.mine == chat.RelationOutgoing && mine != chat.RelationOutgoing {
			if err := a.checkOutgoingLimit(ctx, st, me); err != nil {
				return err
			}
		}
		if err := st.SetRelationship(ctx, me, target.ID, change.mine); err != nil {
			return dbError("set relationship", err)
		}
		return dbError("set relationship", st.SetRelationship(ctx, target.ID, me, change.theirs))
	})
	if err != nil {
		return nil, err
	}
	caller, err := a.fetchUser(ctx, me)
	if err != nil {
		return nil, err
	}
	caller.Relations = nil
	other := *target
	other.Relations = nil
	seenByMe, err := a.viewUser(ctx, caller, &other)
	if err != nil {
		return nil, err
	}
	seenByThem, err := a.viewUser(ctx, &other, caller)
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.UserRelationshipEvent{Type: chat.EvUserRelationship,
		ID: me, User: seenByMe, Status: change.mine}, event.Private(me))
	a.publish(ctx, chat.UserRelationshipEvent{Type: chat.EvUserRelationship,
		ID: target.ID, User: seenByThem, Status: change.theirs}, event.Private(target.ID))
	switch {
	case change.theirs == chat.RelationIncoming:
		a.notifyFriendRequest(ctx, caller, target.ID, false)
	case change.theirs == chat.RelationFriend && change.mine == chat.RelationFriend:
		a.notifyFriendRequest(ctx, caller, target.ID, true)
	}
	return seenByMe, nil
}

// checkOutgoingLimit refuses a new friend request when the user already
// has as many pending outgoing requests as their limits allow.
func (a *App) checkOutgoingLimit(ctx context.Context, st store.Store, user chat.ID) error {
	rel, err := st.FetchRelationships(ctx, user)
	if err != nil {
		return dbError("fetch relationships", err)
	}
	n := 0
	for _, r := range rel {
		if r.Status == chat.RelationOutgoing {
			n++
		}
	}
	if max := a.settings.Limits.For(user, a.now()).OutgoingFriendRequests; n >= max {
		return chat.ErrTooManyPendingFriendRequests(max)
	}
	return nil
}

// befriend is the transition of a friend request or its acceptance.
func befriend(mine, _ chat.RelationshipStatus) (relationChange, error) {
	switch mine {
	case chat.RelationNone:
		return relationChange{chat.RelationOutgoing, chat.RelationIncoming}, nil
	case chat.RelationIncoming:
		return relationChange{chat.RelationFriend, chat.RelationFriend}, nil
	case chat.RelationFriend:
		return relationChange{}, chat.ErrAlreadyFriends
	case chat.RelationOutgoing:
		return relationChange{}, chat.ErrAlreadySentRequest
	case chat.RelationBlocked:
		return relationChange{}, chat.ErrBlocked
	case chat.RelationBlockedOther:
		return relationChange{}, chat.ErrBlockedByOther
	}
	return relationChange{}, chat.ErrNoEffect
}

// unfriend removes a friendship or cancels or declines a request.
func unfriend(mine, _ chat.RelationshipStatus) (relationChange, error) {
	switch mine {
	case chat.RelationFriend, chat.RelationOutgoing, chat.RelationIncoming:
		return relationChange{chat.RelationNone, chat.RelationNone}, nil
	}
	return relationChange{}, chat.ErrNoEffect
}

// block blocks the other user, whatever the relationship was.
func block(mine, _ chat.RelationshipStatus) (relationChange, error) {
	switch mine {
	case chat.RelationNone, chat.RelationFriend, chat.RelationIncoming, chat.RelationOutgoing:
		return relationChange{chat.RelationBlocked, chat.RelationBlockedOther}, nil
	case chat.RelationBlockedOther:
		return relationChange{chat.RelationBlocked, chat.RelationBlocked}, nil
	}
	return relationChange{}, chat.ErrNoEffect
}

// unblock lifts the caller's block; a block the other user holds stays.
func unblock(mine, theirs chat.RelationshipStatus) (relationChange, error) {
	if mine != chat.RelationBlocked {
		return relationChange{}, chat.ErrNoEffect
	}
	switch theirs {
	case chat.RelationBlocked:
		return relationChange{chat.RelationBlockedOther, chat.RelationBlocked}, nil
	case chat.RelationBlockedOther:
		return relationChange{chat.RelationNone, chat.RelationNone}, nil
	}
	return relationChange{}, chat.ErrNoEffect
}

// friendship checks the parties of a friend route: bots neither send nor
// receive friend requests.
func friendship(c *Caller, target *chat.User) error {
	if c.IsBot() || c.User.IsBot() || target.IsBot() {
		return chat.ErrIsBot
	}
	return nil
}

// AddFriend sends a friend request to a user by id, or accepts theirs
// (PUT /users/{target}/friend). Usernames are not accepted here.
func (a *App) AddFriend(ctx context.Context, c *Caller, id chat.ID) (*chat.User, error) {
	target, err := a.relationshipTarget(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if err := friendship(c, target); err != nil {
		return nil, err
	}
	return a.changeRelationship(ctx, c, target, befriend)
}

// SendFriendRequest sends a friend request to "name#discriminator"
// (POST /users/friend); the name is matched without regard to case.
func (a *App) SendFriendRequest(ctx context.Context, c *Caller, data chat.FriendRequest) (*chat.User, error) {
	name, disc, ok := strings.Cut(data.Username, "#")
	if !ok || name == "" || disc == "" {
		return nil, chat.ErrInvalidProperty
	}
	target, err := a.store.FetchUserByUsername(ctx, name, disc)
	if err != nil {
		return nil, dbError("fetch user", notFound(err))
	}
	if target.ID == c.ID() {
		return nil, chat.ErrNoEffect
	}
	if err := friendship(c, target); err != nil {
		return nil, err
	}
	return a.changeRelationship(ctx, c, target, befriend)
}

// RemoveFriend ends a friendship, or cancels or declines a request.
func (a *App) RemoveFriend(ctx context.Context, c *Caller, id chat.ID) (*chat.User, error) {
	target, err := a.relationshipTarget(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if err := friendship(c, target); err != nil {
		return nil, err
	}
	return a.changeRelationship(ctx, c, target, unfriend)
}

// BlockUser blocks a user.
func (a *App) BlockUser(ctx context.Context, c *Caller, id chat.ID) (*chat.User, error) {
	target, err := a.relationshipTarget(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return a.changeRelationship(ctx, c, target, block)
}

// UnblockUser lifts the caller's block of a user.
func (a *App) UnblockUser(ctx context.Context, c *Caller, id chat.ID) (*chat.User, error) {
	target, err := a.relationshipTarget(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return a.changeRelationship(ctx, c, target, unblock)
}
