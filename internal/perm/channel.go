package perm

import (
	"time"

	"ermine/internal/chat"
)

// ChannelFacts is what ForChannel needs to know. Which fields matter
// depends on the channel type:
//
//   - SavedMessages: Channel, UserID.
//   - DirectMessage: Channel, UserID, Peer.
//   - Group: Channel, UserID.
//   - TextChannel, VoiceChannel: Channel, Server, Member, UserID, Now.
type ChannelFacts struct {
	// Channel is the channel; nil grants nothing.
	Channel *chat.Channel
	// Server is the channel's server, for server channels.
	Server *chat.Server
	// Member is the user's membership of Server, nil for non-members.
	Member *chat.Member
	// UserID is the user asking. Empty grants nothing.
	UserID chat.ID
	// Privileged is set when the user is platform staff.
	Privileged bool
	// Now decides whether the member's timeout is still running.
	Now time.Time
	// Peer describes the user and the other recipient of a direct
	// message. Mutual is implied by the direct message itself.
	Peer UserFacts
}

// ForChannel returns what the user holds in the channel. Privileged users
// hold GrantAllSafe everywhere; the rest depends on the channel type:
//
//   - SavedMessages: the owner holds GrantAllSafe, anyone else nothing.
//   - DirectMessage: a recipient holds DefaultDirectMessage when they may
//     send the other recipient messages (ForUser), else ViewOnly.
//   - Group: the owner holds GrantAllSafe; a recipient holds ViewOnly plus
//     the group's permissions (DefaultGroup when unset).
//   - Server channels: the owner holds GrantAllSafe, non-members nothing;
//     members start from the server default, then the channel default
//     override, then their roles' server overrides, then the channel
//     overrides of their roles (roles from the largest rank number
//     first), then the timeout cut. Without ViewChannel they hold nothing.
//     The channel default lies below the roles' server overrides, as in
//     the reference since 0.15.2 (#847).
//
// Unknown channel types, a nil channel and an empty UserID grant nothing.
func ForChannel(f ChannelFacts) Set {
	if f.Privileged {
		return GrantAllSafe
	}
	c := f.Channel
	if c == nil || f.UserID == "" {
		return 0
	}
	switch c.ChannelType {
	case chat.ChannelSavedMessages:
		if c.User == f.UserID {
			return GrantAllSafe
		}
		return 0
	case chat.ChannelDirectMessage:
		if !c.HasRecipient(f.UserID) {
			return 0
		}
		peer := f.Peer
		peer.Mutual = true
		if ForUser(peer).Has(UserSendMessage) {
			return DefaultDirectMessage
		}
		return ViewOnly
	case chat.ChannelGroup:
		if c.Owner == f.UserID {
			return GrantAllSafe
		}
		if !c.HasRecipient(f.UserID) {
			return 0
		}
		p := DefaultGroup
		if c.Permissions != nil {
			p = Set(*c.Permissions)
		}
		return (ViewOnly | p) & GrantAllSafe
	case chat.ChannelText, chat.ChannelVoice:
		return forServerChannel(f)
	}
	return 0
}

func forServerChannel(f ChannelFacts) Set {
	s, c := f.Server, f.Channel
	if s == nil || s.ID != c.Server {
		return 0
	}
	if s.Owner == f.UserID {
		return GrantAllSafe
	}
	if f.Member == nil {
		return 0
	}
	// The channel's default override sits below every role override
	// (reference 0.15.2, #847): a role's server permissions win over it.
	p := Set(s.DefaultPermissions)
	if c.DefaultPermissions != nil {
		p = p.Apply(*c.DefaultPermissions)
	}
	var buf [8]rankedOverride
	for _, r := range heldRoles(buf[:0], s, f.Member.Roles, nil) {
		p = p.Apply(r.o)
	}
	if len(c.RolePermissions) > 0 {
		for _, r := range heldRoles(buf[:0], s, f.Member.Roles, c.RolePermissions) {
			p = p.Apply(r.o)
		}
	}
	if TimedOut(f.Member, f.Now) {
		p &= AllowedInTimeout
	}
	if !p.Has(ViewChannel) {
		return 0
	}
	return p & GrantAllSafe
}
