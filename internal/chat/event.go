package chat

import "github.com/vmihailenco/msgpack/v5"

// Events sent to clients over the events connection. Every event is an
// object with a type field; the structs below set Type through their
// constructors (NewEvent) or by the caller, and carry the exact wire
// field names of the interface.
//
// Partial objects in *Update events are maps from wire field name to value
// so that only changed fields travel; values keep their Go types (Time,
// Override, File ...) so each encoding can render them in its own form.

// Partial is a partial object: wire field name → new value.
type Partial map[string]any

// Event types the server sends.
const (
	EvError                 = "Error"
	EvAuthenticated         = "Authenticated"
	EvLogout                = "Logout"
	EvBulk                  = "Bulk"
	EvPong                  = "Pong"
	EvReady                 = "Ready"
	EvMessage               = "Message"
	EvMessageUpdate         = "MessageUpdate"
	EvMessageAppend         = "MessageAppend"
	EvMessageDelete         = "MessageDelete"
	EvBulkMessageDelete     = "BulkMessageDelete"
	EvMessageReact          = "MessageReact"
	EvMessageUnreact        = "MessageUnreact"
	EvMessageRemoveReaction = "MessageRemoveReaction"
	EvChannelCreate         = "ChannelCreate"
	EvChannelUpdate         = "ChannelUpdate"
	EvChannelDelete         = "ChannelDelete"
	EvChannelGroupJoin      = "ChannelGroupJoin"
	EvChannelGroupLeave     = "ChannelGroupLeave"
	EvChannelStartTyping    = "ChannelStartTyping"
	EvChannelStopTyping     = "ChannelStopTyping"
	EvChannelAck            = "ChannelAck"
	EvServerCreate          = "ServerCreate"
	EvServerUpdate          = "ServerUpdate"
	EvServerDelete          = "ServerDelete"
	EvServerMemberUpdate    = "ServerMemberUpdate"
	EvServerMemberJoin      = "ServerMemberJoin"
	EvServerMemberLeave     = "ServerMemberLeave"
	EvServerRoleUpdate      = "ServerRoleUpdate"
	EvServerRoleDelete      = "ServerRoleDelete"
	EvServerRoleRanksUpdate = "ServerRoleRanksUpdate"
	EvUserUpdate            = "UserUpdate"
	EvUserRelationship      = "UserRelationship"
	EvUserSettingsUpdate    = "UserSettingsUpdate"
	EvUserPlatformWipe      = "UserPlatformWipe"
	EvEmojiCreate           = "EmojiCreate"
	EvEmojiDelete           = "EmojiDelete"
	EvEmojiUpdate           = "EmojiUpdate"   // reference 0.13.0
	EvUserSlowmodes         = "UserSlowmodes" // reference 0.12.0
	EvAuth                  = "Auth"
	EvWebhookCreate         = "WebhookCreate"
	EvWebhookUpdate         = "WebhookUpdate"
	EvWebhookDelete         = "WebhookDelete"
)

// ErrorEvent reports an authentication or connection problem.
type ErrorEvent struct {
	Type string `json:"type"`
	Data *Error `json:"data"`
}

// TypeOnly is an event with no fields: Authenticated, Logout.
type TypeOnly struct {
	Type string `json:"type"`
}

// BulkEvent carries several events to process in order.
type BulkEvent struct {
	Type string `json:"type"`
	V    []any  `json:"v"`
}

// PongEvent answers a Ping with the same data.
type PongEvent struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// VoiceState lists who is in a voice channel.
type VoiceState struct {
	ID           ID               `json:"id"`
	Participants []UserVoiceState `json:"participants"`
}

// ReadyEvent is the initial state of a connection. A section is sent when
// it is not nil, so the app sets the requested arrays to empty slices
// (sent as []) and leaves the others nil (absent); clients iterate the
// arrays and must always find them when they did not choose sections.
type ReadyEvent struct {
	Type           string             `json:"type"`
	Users          []*User            `json:"users,omitzero"`
	Servers        []*Server          `json:"servers,omitzero"`
	Channels       []*Channel         `json:"channels,omitzero"`
	Members        []*Member          `json:"members,omitzero"`
	Emojis         []*Emoji           `json:"emojis,omitzero"`
	VoiceStates    []VoiceState       `json:"voice_states,omitzero"`
	UserSettings   map[string]Setting `json:"user_settings,omitzero"`
	ChannelUnreads []*ChannelUnread   `json:"channel_unreads,omitzero"`
	PolicyChanges  []PolicyChange     `json:"policy_changes,omitzero"`
}

// EncodeMsgpack writes the event as a map with the same keys as its JSON
// form: the msgpack encoder Ermine uses omits every empty field, which
// would drop the empty arrays clients rely on.
func (r ReadyEvent) EncodeMsgpack(enc *msgpack.Encoder) error {
	type section struct {
		key     string
		present bool
		value   any
	}
	sections := [...]section{
		{"users", r.Users != nil, r.Users},
		{"servers", r.Servers != nil, r.Servers},
		{"channels", r.Channels != nil, r.Channels},
		{"members", r.Members != nil, r.Members},
		{"emojis", r.Emojis != nil, r.Emojis},
		{"voice_states", r.VoiceStates != nil, r.VoiceStates},
		{"user_settings", r.UserSettings != nil, r.UserSettings},
		{"channel_unreads", r.ChannelUnreads != nil, r.ChannelUnreads},
		{"policy_changes", r.PolicyChanges != nil, r.PolicyChanges},
	}
	n := 1
	for _, s := range sections {
		if s.present {
			n++
		}
	}
	if err := enc.EncodeMapLen(n); err != nil {
		return err
	}
	if err := enc.EncodeString("type"); err != nil {
		return err
	}
	if err := enc.EncodeString(r.Type); err != nil {
		return err
	}
	for _, s := range sections {
		if !s.present {
			continue
		}
		if err := enc.EncodeString(s.key); err != nil {
			return err
		}
		if err := enc.Encode(s.value); err != nil {
			return err
		}
	}
	return nil
}

// MessageEvent is a new message, with its author's user and member.
type MessageEvent struct {
	Type string `json:"type"`
	*Message
}

// MessageUpdateEvent carries changed fields of a message.
type MessageUpdateEvent struct {
	Type    string   `json:"type"`
	ID      ID       `json:"id"`
	Channel ID       `json:"channel"`
	Data    Partial  `json:"data"`
	Clear   []string `json:"clear"`
}

// MessageAppendEvent appends embeds to a message.
type MessageAppendEvent struct {
	Type    string        `json:"type"`
	ID      ID            `json:"id"`
	Channel ID            `json:"channel"`
	Append  MessageAppend `json:"append"`
}

// MessageAppend is the data appended to a message.
type MessageAppend struct {
	Embeds []Embed `json:"embeds,omitempty"`
}

// MessageDeleteEvent says a message was deleted.
type MessageDeleteEvent struct {
	Type    string `json:"type"`
	ID      ID     `json:"id"`
	Channel ID     `json:"channel"`
}

// BulkMessageDeleteEvent says several messages were deleted.
type BulkMessageDeleteEvent struct {
	Type    string `json:"type"`
	Channel ID     `json:"channel"`
	IDs     []ID   `json:"ids"`
}

// MessageReactEvent is used for MessageReact and MessageUnreact.
type MessageReactEvent struct {
	Type      string `json:"type"`
	ID        ID     `json:"id"`
	ChannelID ID     `json:"channel_id"`
	UserID    ID     `json:"user_id"`
	EmojiID   string `json:"emoji_id"`
}

// MessageRemoveReactionEvent removes every reaction of one emoji.
type MessageRemoveReactionEvent struct {
	Type      string `json:"type"`
	ID        ID     `json:"id"`
	ChannelID ID     `json:"channel_id"`
	EmojiID   string `json:"emoji_id"`
}

// ChannelCreateEvent carries a whole channel.
type ChannelCreateEvent struct {
	Type string `json:"type"`
	*Channel
}

// ChannelUpdateEvent carries changed fields of a channel.
type ChannelUpdateEvent struct {
	Type  string   `json:"type"`
	ID    ID       `json:"id"`
	Data  Partial  `json:"data"`
	Clear []string `json:"clear"`
}

// IDEvent is an event with only an id: ChannelDelete, ServerDelete,
// EmojiDelete, WebhookDelete.
type IDEvent struct {
	Type string `json:"type"`
	ID   ID     `json:"id"`
}

// ChannelUserEvent is used for ChannelGroupJoin, ChannelGroupLeave,
// ChannelStartTyping and ChannelStopTyping.
type ChannelUserEvent struct {
	Type string `json:"type"`
	ID   ID     `json:"id"`
	User ID     `json:"user"`
}

// ChannelAckEvent says a user read a channel up to a message.
type ChannelAckEvent struct {
	Type      string `json:"type"`
	ID        ID     `json:"id"`
	User      ID     `json:"user"`
	MessageID ID     `json:"message_id"`
}

// ServerCreateEvent gives a joining user a server with the channels they
// can see and its emoji.
type ServerCreateEvent struct {
	Type     string     `json:"type"`
	ID       ID         `json:"id"`
	Server   *Server    `json:"server"`
	Channels []*Channel `json:"channels"`
	Emojis   []*Emoji   `json:"emojis"`
	// VoiceStates lists who is in the server's voice channels the
	// joiner can see.
	VoiceStates []VoiceState `json:"voice_states"`
}

// ServerUpdateEvent carries changed fields of a server.
type ServerUpdateEvent struct {
	Type  string   `json:"type"`
	ID    ID       `json:"id"`
	Data  Partial  `json:"data"`
	Clear []string `json:"clear"`
}

// ServerMemberUpdateEvent carries changed fields of a member.
type ServerMemberUpdateEvent struct {
	Type  string   `json:"type"`
	ID    MemberID `json:"id"`
	Data  Partial  `json:"data"`
	Clear []string `json:"clear"`
}

// ServerMemberJoinEvent says a user joined a server.
type ServerMemberJoinEvent struct {
	Type   string  `json:"type"`
	ID     ID      `json:"id"`
	User   ID      `json:"user"`
	Member *Member `json:"member,omitempty"`
}

// Reasons a member left a server.
const (
	LeaveReasonLeave = "Leave"
	LeaveReasonKick  = "Kick"
	LeaveReasonBan   = "Ban"
)

// ServerMemberLeaveEvent says a user left a server.
type ServerMemberLeaveEvent struct {
	Type   string `json:"type"`
	ID     ID     `json:"id"`
	User   ID     `json:"user"`
	Reason string `json:"reason"`
}

// ServerRoleUpdateEvent carries a created role or changed role fields.
type ServerRoleUpdateEvent struct {
	Type   string   `json:"type"`
	ID     ID       `json:"id"`
	RoleID ID       `json:"role_id"`
	Data   Partial  `json:"data"`
	Clear  []string `json:"clear"`
}

// ServerRoleDeleteEvent says a role was deleted.
type ServerRoleDeleteEvent struct {
	Type   string `json:"type"`
	ID     ID     `json:"id"`
	RoleID ID     `json:"role_id"`
}

// ServerRoleRanksUpdateEvent gives the new role order, highest first.
type ServerRoleRanksUpdateEvent struct {
	Type  string `json:"type"`
	ID    ID     `json:"id"`
	Ranks []ID   `json:"ranks"`
}

// UserUpdateEvent carries changed fields of a user.
type UserUpdateEvent struct {
	Type    string   `json:"type"`
	ID      ID       `json:"id"`
	Data    Partial  `json:"data"`
	Clear   []string `json:"clear"`
	EventID *string  `json:"event_id"` // always null on the wire
}

// UserRelationshipEvent tells id's connections about their relationship
// with user (the other user as id sees them).
type UserRelationshipEvent struct {
	Type   string             `json:"type"`
	ID     ID                 `json:"id"`
	User   *User              `json:"user"`
	Status RelationshipStatus `json:"status"`
}

// UserSettingsUpdateEvent tells a user's connections of changed settings.
type UserSettingsUpdateEvent struct {
	Type   string             `json:"type"`
	ID     ID                 `json:"id"`
	Update map[string]Setting `json:"update"`
}

// UserPlatformWipeEvent says a user was removed from the platform.
type UserPlatformWipeEvent struct {
	Type   string `json:"type"`
	UserID ID     `json:"user_id"`
	Flags  uint32 `json:"flags"`
	// EventID lets a connection that follows several of the topics the
	// event goes out on take it once; the gateway drops it.
	EventID *string `json:"event_id,omitempty"`
}

// EmojiUpdateEvent carries an emoji's changed fields (its name).
type EmojiUpdateEvent struct {
	Type string  `json:"type"`
	ID   ID      `json:"id"`
	Data Partial `json:"data"`
}

// Slowmode is one open slowmode window of the receiving user.
type Slowmode struct {
	ChannelID  ID     `json:"channel_id"`
	Duration   uint64 `json:"duration"`    // the channel's slowmode, seconds
	RetryAfter uint64 `json:"retry_after"` // seconds until the user may send there
}

// UserSlowmodesEvent lists the receiving user's open slowmode windows;
// it goes to that user only.
type UserSlowmodesEvent struct {
	Type      string     `json:"type"`
	Slowmodes []Slowmode `json:"slowmodes"`
}

// EmojiCreateEvent carries a whole emoji.
type EmojiCreateEvent struct {
	Type string `json:"type"`
	*Emoji
}

// Auth event types.
const (
	AuthDeleteSession     = "DeleteSession"
	AuthDeleteAllSessions = "DeleteAllSessions"
)

// AuthEvent forwards an event of the authentication component.
type AuthEvent struct {
	Type             string `json:"type"`
	EventType        string `json:"event_type"`
	UserID           ID     `json:"user_id"`
	SessionID        ID     `json:"session_id,omitempty"`
	ExcludeSessionID *ID    `json:"exclude_session_id,omitempty"`
}

// WebhookCreateEvent carries a whole webhook (token null).
type WebhookCreateEvent struct {
	Type string `json:"type"`
	*Webhook
}

// WebhookUpdateEvent carries changed webhook fields.
type WebhookUpdateEvent struct {
	Type   string   `json:"type"`
	ID     ID       `json:"id"`
	Data   Partial  `json:"data"`
	Remove []string `json:"remove"`
}
