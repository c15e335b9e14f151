package chat

// Channel types as they appear in channel_type.
const (
	ChannelSavedMessages = "SavedMessages"
	ChannelDirectMessage = "DirectMessage"
	ChannelGroup         = "Group"
	ChannelText          = "TextChannel"
	ChannelVoice         = "VoiceChannel"
)

// VoiceInformation marks a server channel as a voice channel.
type VoiceInformation struct {
	MaxUsers *uint32 `json:"max_users,omitempty"`
}

// Channel is any channel: saved messages, a direct message, a group or a
// server channel. ChannelType says which fields apply; the others stay
// empty and are omitted on the wire.
type Channel struct {
	ChannelType string `json:"channel_type"`
	ID          ID     `json:"_id"`

	// SavedMessages
	User ID `json:"user,omitempty"`

	// DirectMessage. Active is always present for direct messages.
	Active *bool `json:"active,omitempty"`

	// DirectMessage, Group
	Recipients []ID `json:"recipients,omitempty"`

	// Group
	Owner       ID     `json:"owner,omitempty"`
	Permissions *int64 `json:"permissions,omitempty"`

	// Server channels
	Server             ID                `json:"server,omitempty"`
	DefaultPermissions *Override         `json:"default_permissions,omitempty"`
	RolePermissions    map[ID]Override   `json:"role_permissions,omitempty"`
	Voice              *VoiceInformation `json:"voice,omitempty"`
	// Slowmode is the seconds a member waits between two messages in a
	// text channel; absent or 0 means none (reference 0.12.0).
	Slowmode *int64 `json:"slowmode,omitempty"`

	// Group and server channels
	Name        string  `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
	Icon        *File   `json:"icon,omitempty"`
	NSFW        bool    `json:"nsfw,omitempty"`

	// DirectMessage, Group and server channels
	LastMessageID *ID `json:"last_message_id,omitempty"`
}

// IsServerChannel reports whether the channel belongs to a server.
func (c *Channel) IsServerChannel() bool {
	return c.ChannelType == ChannelText || c.ChannelType == ChannelVoice
}

// HasRecipient reports whether user is a recipient of a DM or group.
func (c *Channel) HasRecipient(user ID) bool {
	for _, r := range c.Recipients {
		if r == user {
			return true
		}
	}
	return false
}

// ChannelUnread is a user's read state of a channel.
type ChannelUnread struct {
	ID       ChannelUnreadID `json:"_id"`
	LastID   *ID             `json:"last_id,omitempty"`
	Mentions []ID            `json:"mentions,omitempty"`
}

// ChannelUnreadID is the composite key of an unread entry.
type ChannelUnreadID struct {
	Channel ID `json:"channel"`
	User    ID `json:"user"`
}
