package perm

import (
	"fmt"
	"math/bits"
	"strings"

	"ermine/internal/chat"
)

// Set is a set of server and channel permissions, one flag per bit. On
// the wire it is a JSON number; bits above GrantAllSafe are never granted.
type Set uint64

// Server and channel permission flags. Each is 1 shifted left by the bit
// the interface contract gives it, or for Listen, BypassSlowmode,
// ViewAuditLogs and UseExternalEmojis the bit later reference versions
// gave it; bits 5 and 14–19 are unused.
const (
	ManageChannel       Set = 1 << 0  // manage the channel or the server's channels
	ManageServer        Set = 1 << 1  // manage the server
	ManagePermissions   Set = 1 << 2  // manage permissions on servers or channels
	ManageRole          Set = 1 << 3  // manage roles on the server
	ManageCustomisation Set = 1 << 4  // manage the server's emoji
	KickMembers         Set = 1 << 6  // kick members ranked below
	BanMembers          Set = 1 << 7  // ban members ranked below
	TimeoutMembers      Set = 1 << 8  // time out members ranked below
	AssignRoles         Set = 1 << 9  // assign roles to members ranked below
	ChangeNickname      Set = 1 << 10 // change one's own nickname
	ManageNicknames     Set = 1 << 11 // change or remove nicknames of members ranked below
	ChangeAvatar        Set = 1 << 12 // change one's own server avatar
	RemoveAvatars       Set = 1 << 13 // remove avatars of members ranked below
	ViewChannel         Set = 1 << 20 // view a channel
	ReadMessageHistory  Set = 1 << 21 // read past messages of a channel
	SendMessage         Set = 1 << 22 // send a message in a channel
	ManageMessages      Set = 1 << 23 // delete others' messages, pin, clear reactions
	ManageWebhooks      Set = 1 << 24 // manage webhooks on a channel
	InviteOthers        Set = 1 << 25 // create invites to the channel
	SendEmbeds          Set = 1 << 26 // send embedded content
	UploadFiles         Set = 1 << 27 // send attachments and media
	Masquerade          Set = 1 << 28 // masquerade messages with a custom name and avatar
	React               Set = 1 << 29 // react to messages with emoji
	Connect             Set = 1 << 30 // connect to a voice channel
	Speak               Set = 1 << 31 // speak in a voice call
	Video               Set = 1 << 32 // share video in a voice call
	MuteMembers         Set = 1 << 33 // mute members of lower rank in a voice call
	DeafenMembers       Set = 1 << 34 // deafen members of lower rank in a voice call
	MoveMembers         Set = 1 << 35 // move members between voice channels
	Listen              Set = 1 << 36 // hear others in a voice call (reference 0.10.0)
	MentionEveryone     Set = 1 << 37 // mention @everyone and @online
	MentionRoles        Set = 1 << 38 // mention roles
	BypassSlowmode      Set = 1 << 39 // send without waiting out a channel's slowmode (reference 0.12.0)
	ViewAuditLogs       Set = 1 << 40 // read the server's audit log (reference 0.14.0)
	UseExternalEmojis   Set = 1 << 41 // use another server's custom emoji in messages and reactions (reference branch feat/block-emojis)
)

// Composite sets.
const (
	// GrantAllSafe is every bit a permission value may carry (2^52−1, the
	// largest integer a JavaScript client holds exactly). Owners and
	// privileged users hold it.
	GrantAllSafe Set = 1<<52 - 1

	// ViewOnly lets a user see a channel and read its history.
	ViewOnly = ViewChannel | ReadMessageHistory

	// Default is the base set for ordinary participation. Video and
	// Listen joined it in later reference versions (upstream.md §1.4).
	Default = ViewOnly | SendMessage | InviteOthers | SendEmbeds | UploadFiles | Connect | Speak | Video | Listen

	// DefaultDirectMessage is what both sides of a writable DM hold.
	DefaultDirectMessage = Default | ManageChannel | React

	// DefaultGroup is what group recipients hold when the group sets no
	// permissions: the DM set plus Masquerade (upstream.md §1.4).
	DefaultGroup = DefaultDirectMessage | Masquerade

	// DefaultServer is the default_permissions of a new server.
	// UseExternalEmojis is in it as in the reference's branch that adds
	// the flag (feat/block-emojis), which also grants it to every server
	// that exists (migration 0012 does the same here).
	DefaultServer = Default | React | ChangeNickname | ChangeAvatar | UseExternalEmojis

	// DefaultWebhook is what a new webhook may do.
	DefaultWebhook = SendMessage | SendEmbeds | Masquerade | React

	// AllowedInTimeout is all a timed-out member keeps.
	AllowedInTimeout = ViewChannel | ReadMessageHistory
)

// flagNames lists the named flags in bit order.
var flagNames = [...]struct {
	flag Set
	name string
}{
	{ManageChannel, "ManageChannel"},
	{ManageServer, "ManageServer"},
	{ManagePermissions, "ManagePermissions"},
	{ManageRole, "ManageRole"},
	{ManageCustomisation, "ManageCustomisation"},
	{KickMembers, "KickMembers"},
	{BanMembers, "BanMembers"},
	{TimeoutMembers, "TimeoutMembers"},
	{AssignRoles, "AssignRoles"},
	{ChangeNickname, "ChangeNickname"},
	{ManageNicknames, "ManageNicknames"},
	{ChangeAvatar, "ChangeAvatar"},
	{RemoveAvatars, "RemoveAvatars"},
	{ViewChannel, "ViewChannel"},
	{ReadMessageHistory, "ReadMessageHistory"},
	{SendMessage, "SendMessage"},
	{ManageMessages, "ManageMessages"},
	{ManageWebhooks, "ManageWebhooks"},
	{InviteOthers, "InviteOthers"},
	{SendEmbeds, "SendEmbeds"},
	{UploadFiles, "UploadFiles"},
	{Masquerade, "Masquerade"},
	{React, "React"},
	{Connect, "Connect"},
	{Speak, "Speak"},
	{Video, "Video"},
	{MuteMembers, "MuteMembers"},
	{DeafenMembers, "DeafenMembers"},
	{MoveMembers, "MoveMembers"},
	{Listen, "Listen"},
	{MentionEveryone, "MentionEveryone"},
	{MentionRoles, "MentionRoles"},
	{BypassSlowmode, "BypassSlowmode"},
	{ViewAuditLogs, "ViewAuditLogs"},
	{UseExternalEmojis, "UseExternalEmojis"},
}

// Has reports whether s holds every flag of want.
func (s Set) Has(want Set) bool { return s&want == want }

// Apply returns s with the override applied: allows first, then denies.
func (s Set) Apply(o chat.Override) Set { return (s | Set(o.A)) &^ Set(o.D) }

// Int64 returns s as the wire carries it.
func (s Set) Int64() int64 { return int64(s) }

// Names returns the names of the named flags in s, in bit order. Bits
// without a name are left out.
func (s Set) Names() []string {
	var out []string
	for _, f := range flagNames {
		if s&f.flag != 0 {
			out = append(out, f.name)
		}
	}
	return out
}

// String lists the flags of s joined by "|", e.g. "ViewChannel|SendMessage".
// Unnamed bits follow as one hexadecimal number; the empty set is "0".
func (s Set) String() string {
	if s == 0 {
		return "0"
	}
	var b strings.Builder
	rest := s
	for _, f := range flagNames {
		if s&f.flag == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(f.name)
		rest &^= f.flag
	}
	if rest != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		fmt.Fprintf(&b, "%#x", uint64(rest))
	}
	return b.String()
}

// Name returns the enum name of a single flag, as MissingPermission
// errors carry it ("SendMessage"). A value that is not exactly one named
// flag gets its String form.
func Name(flag Set) string {
	for _, f := range flagNames {
		if f.flag == flag {
			return f.name
		}
	}
	return flag.String()
}

// Require returns nil when held has every flag of needed, and otherwise
// MissingPermission naming the lowest missing flag.
func Require(held, needed Set) error {
	missing := needed &^ held
	if missing == 0 {
		return nil
	}
	return chat.ErrMissingPermission(Name(lowest(missing)))
}

// lowest returns the lowest set bit of s, which must not be empty.
func lowest(s Set) Set { return 1 << bits.TrailingZeros64(uint64(s)) }

// CheckOverride enforces the grant rule for changing an override from
// old (nil when there was none) to next: the actor, holding held, must
// have every bit the change newly allows and every bit whose deny it
// lifts. It returns CannotGiveMissingPermissions otherwise.
func CheckOverride(held Set, old *chat.Override, next chat.Override) error {
	var gives Set
	if old == nil {
		gives = Set(next.A)
	} else {
		gives = Set(next.A)&^Set(old.A) | Set(old.D)&^Set(next.D)
	}
	if !held.Has(gives) {
		return chat.ErrCannotGiveMissingPermissions
	}
	return nil
}

// CheckDefault enforces the grant rule for a new server default
// permission value: the actor must hold every one of its bits.
func CheckDefault(held, value Set) error {
	if !held.Has(value) {
		return chat.ErrCannotGiveMissingPermissions
	}
	return nil
}
