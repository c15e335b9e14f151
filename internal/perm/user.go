package perm

import (
	"strings"

	"ermine/internal/chat"
)

// UserSet is a set of user permissions: what a viewer may do towards
// another user.
type UserSet uint8

// User permission flags.
const (
	UserAccess      UserSet = 1 << 0 // see the user (GET /users/{id})
	UserViewProfile UserSet = 1 << 1 // see the profile and mutual connections
	UserSendMessage UserSet = 1 << 2 // open and write in a direct message
	UserInvite      UserSet = 1 << 3 // invite the user

	// UserAll is every user permission.
	UserAll = UserAccess | UserViewProfile | UserSendMessage | UserInvite
)

var userFlagNames = [...]struct {
	flag UserSet
	name string
}{
	{UserAccess, "Access"},
	{UserViewProfile, "ViewProfile"},
	{UserSendMessage, "SendMessage"},
	{UserInvite, "Invite"},
}

// Has reports whether s holds every flag of want.
func (s UserSet) Has(want UserSet) bool { return s&want == want }

// Names returns the enum names of the flags in s, in bit order.
func (s UserSet) Names() []string {
	var out []string
	for _, f := range userFlagNames {
		if s&f.flag != 0 {
			out = append(out, f.name)
		}
	}
	return out
}

// String lists the flags of s joined by "|"; the empty set is "0".
func (s UserSet) String() string {
	if s == 0 {
		return "0"
	}
	return strings.Join(s.Names(), "|")
}

// UserName returns the enum name of a single user permission flag
// ("Access"), or the String form of anything else.
func UserName(flag UserSet) string {
	for _, f := range userFlagNames {
		if f.flag == flag {
			return f.name
		}
	}
	return flag.String()
}

// RequireUser returns nil when held has every flag of needed, and
// otherwise MissingPermission naming the lowest missing flag. (The
// interface reports user permissions through MissingPermission too.)
func RequireUser(held, needed UserSet) error {
	missing := needed &^ held
	if missing == 0 {
		return nil
	}
	return chat.ErrMissingPermission(UserName(missing & -missing))
}

// UserFacts is what ForUser needs to know about a viewer and a target
// user. The caller gathers them; UserFactsOf fills most from two users.
type UserFacts struct {
	// Privileged is set when the viewer is platform staff.
	Privileged bool
	// Self is set when viewer and target are the same user.
	Self bool
	// Relationship is the target's status from the viewer's side. A bot
	// owned by the viewer counts as RelationUser, which grants nothing.
	Relationship chat.RelationshipStatus
	// Mutual is set when the two share a server membership, a group or a
	// direct message channel.
	Mutual bool
	// Bot is set when the viewer or the target is a bot.
	Bot bool
}

// ForUser returns the viewer's permissions towards the target user.
func ForUser(f UserFacts) UserSet {
	if f.Privileged || f.Self {
		return UserAll
	}
	var p UserSet
	switch f.Relationship {
	case chat.RelationFriend:
		return UserAll
	case chat.RelationBlocked, chat.RelationBlockedOther:
		return UserAccess
	case chat.RelationIncoming, chat.RelationOutgoing:
		p = UserAccess
	}
	if f.Mutual {
		p |= UserAccess | UserViewProfile
		if f.Bot {
			p |= UserSendMessage
		}
	}
	return p
}

// UserFactsOf fills UserFacts from the viewer and the target (the
// viewer's Relations must be loaded). mutual says whether the two share a
// server, a group or a direct message channel.
func UserFactsOf(viewer, target *chat.User, mutual bool) UserFacts {
	return UserFacts{
		Privileged:   viewer.Privileged,
		Self:         viewer.ID == target.ID,
		Relationship: RelationshipOf(viewer, target),
		Mutual:       mutual,
		Bot:          viewer.IsBot() || target.IsBot(),
	}
}

// RelationshipOf returns the target's relationship status from the
// viewer's side: RelationUser for the viewer themself and for a bot the
// viewer owns, the status in the viewer's Relations, else RelationNone.
func RelationshipOf(viewer, target *chat.User) chat.RelationshipStatus {
	if viewer.ID == target.ID {
		return chat.RelationUser
	}
	if target.Bot != nil && target.Bot.Owner == viewer.ID {
		return chat.RelationUser
	}
	for _, r := range viewer.Relations {
		if r.ID == target.ID {
			return r.Status
		}
	}
	return chat.RelationNone
}
