package chat

import (
	gojson "github.com/goccy/go-json"
)

// Override is a permission override as stored and returned: bits allowed
// and bits denied.
type Override struct {
	A int64 `json:"a"`
	D int64 `json:"d"`
}

// OverrideData is an override as request bodies give it.
type OverrideData struct {
	Allow int64 `json:"allow"`
	Deny  int64 `json:"deny"`
}

// Override converts the request form to the stored form.
func (o OverrideData) Override() Override { return Override{A: o.Allow, D: o.Deny} }

// Category groups channels of a server.
type Category struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Channels []ID   `json:"channels"`
}

// SystemMessageChannels says where system messages of a server go.
type SystemMessageChannels struct {
	UserJoined *ID `json:"user_joined,omitempty"`
	UserLeft   *ID `json:"user_left,omitempty"`
	UserKicked *ID `json:"user_kicked,omitempty"`
	UserBanned *ID `json:"user_banned,omitempty"`
}

// Role is a server role. Rank 0 is the highest.
type Role struct {
	// ID repeats the role's key in its server's roles (reference 0.9.0).
	// Roles stored before it existed get it when their server is read.
	ID          ID       `json:"_id,omitempty"`
	Name        string   `json:"name"`
	Permissions Override `json:"permissions"`
	Colour      *string  `json:"colour,omitempty"`
	Hoist       bool     `json:"hoist,omitempty"`
	Rank        int64    `json:"rank"`
	Icon        *File    `json:"icon,omitempty"` // reference 0.12.0
}

// Server is a community with channels, roles and members.
type Server struct {
	ID                 ID                     `json:"_id"`
	Owner              ID                     `json:"owner"`
	Name               string                 `json:"name"`
	Description        *string                `json:"description,omitempty"`
	Channels           []ID                   `json:"channels"`
	Categories         []Category             `json:"categories,omitempty"`
	SystemMessages     *SystemMessageChannels `json:"system_messages,omitempty"`
	Roles              map[ID]Role            `json:"roles,omitempty"`
	DefaultPermissions int64                  `json:"default_permissions"`
	Icon               *File                  `json:"icon,omitempty"`
	Banner             *File                  `json:"banner,omitempty"`
	Flags              uint32                 `json:"flags,omitempty"`
	NSFW               bool                   `json:"nsfw,omitempty"`
	Analytics          bool                   `json:"analytics,omitempty"`
	Discoverable       bool                   `json:"discoverable,omitempty"`

	// ApproximateMemberCount is filled in when a server is sent, never
	// stored (reference 0.15.0).
	ApproximateMemberCount *int64 `json:"approximate_member_count,omitempty"`
}

// serverFields is Server without its methods, for UnmarshalJSON.
type serverFields Server

// UnmarshalJSON reads a server and gives each role its id from its key,
// for roles stored before roles carried their id. It decodes with
// go-json, as the store does its documents: every connect decodes its
// servers, and encoding/json took a twentieth of a connect's CPU.
func (s *Server) UnmarshalJSON(b []byte) error {
	if err := gojson.Unmarshal(b, (*serverFields)(s)); err != nil {
		return err
	}
	for id, r := range s.Roles {
		if r.ID != id {
			r.ID = id
			s.Roles[id] = r
		}
	}
	return nil
}

// MemberID is the composite key of a member.
type MemberID struct {
	Server ID `json:"server"`
	User   ID `json:"user"`
}

// Member is a user's membership of a server.
type Member struct {
	ID         MemberID `json:"_id"`
	JoinedAt   Time     `json:"joined_at"`
	Nickname   *string  `json:"nickname,omitempty"`
	Avatar     *File    `json:"avatar,omitempty"`
	Roles      []ID     `json:"roles,omitempty"`
	Timeout    *Time    `json:"timeout,omitempty"`
	CanPublish *bool    `json:"can_publish,omitempty"`
	CanReceive *bool    `json:"can_receive,omitempty"`
	Pronouns   *string  `json:"pronouns,omitempty"` // reference 0.14.0
}

// ServerBan records a user banned from a server.
type ServerBan struct {
	ID     MemberID `json:"_id"`
	Reason *string  `json:"reason,omitempty"`
}

// EmojiParent is what owns an emoji: {"type":"Server","id":...} or
// {"type":"Detached"} once its server is gone.
type EmojiParent struct {
	Type string `json:"type"`
	ID   ID     `json:"id,omitempty"`
}

// Emoji is a custom emoji. Its id is the id of its uploaded file.
type Emoji struct {
	ID        ID          `json:"_id"`
	Parent    EmojiParent `json:"parent"`
	CreatorID ID          `json:"creator_id"`
	Name      string      `json:"name"`
	Animated  bool        `json:"animated,omitempty"`
	NSFW      bool        `json:"nsfw,omitempty"`
}

// Invite is an invite code to a server channel or a group.
type Invite struct {
	Type    string `json:"type"` // "Server" or "Group"
	Code    string `json:"_id"`
	Server  ID     `json:"server,omitempty"`
	Creator ID     `json:"creator"`
	Channel ID     `json:"channel"`
}

// Webhook posts messages into a channel with a token.
type Webhook struct {
	ID          ID      `json:"id"`
	Name        string  `json:"name"`
	Avatar      *File   `json:"avatar,omitempty"`
	CreatorID   ID      `json:"creator_id"`
	ChannelID   ID      `json:"channel_id"`
	Permissions uint64  `json:"permissions"`
	Token       *string `json:"token"`
}
