package chat

import (
	"encoding/json"
	"fmt"
)

// Response bodies of the server, member, ban and invite routes.

// ServerCreated answers POST /servers/create.
// Contract: CreateServerLegacyResponse
type ServerCreated struct {
	Server   *Server    `json:"server"`
	Channels []*Channel `json:"channels"`
}

// ServerWithChannels answers GET /servers/{id}?include_channels=true: the
// server with its channels as whole objects in place of their ids.
// Contract: FetchServerResponse
type ServerWithChannels struct {
	Server   *Server
	Channels []*Channel
}

// MarshalJSON writes the server's fields with channels replaced.
func (s ServerWithChannels) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(s.Server)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("server with channels: %w", err)
	}
	channels := s.Channels
	if channels == nil {
		channels = []*Channel{}
	}
	if m["channels"], err = json.Marshal(channels); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// RoleCreated answers POST /servers/{id}/roles.
// Contract: NewRoleResponse
type RoleCreated struct {
	ID   ID   `json:"id"`
	Role Role `json:"role"`
}

// MemberList pairs members with their users, index by index.
// Contract: AllMemberResponse, MemberQueryResponse
type MemberList struct {
	Members []*Member `json:"members"`
	Users   []*User   `json:"users"`
}

// MemberWithRoles answers GET /servers/{id}/members/{user}?roles=true:
// the member and the roles it holds.
// Contract: MemberResponse
type MemberWithRoles struct {
	Member *Member     `json:"member"`
	Roles  map[ID]Role `json:"roles"`
}

// BannedUser is just enough of a user to list a ban.
// Contract: BannedUser
type BannedUser struct {
	ID            ID     `json:"_id"`
	Username      string `json:"username"`
	Discriminator string `json:"discriminator"`
	Avatar        *File  `json:"avatar,omitempty"`
}

// BanList answers GET /servers/{id}/bans.
// Contract: BanListResult
type BanList struct {
	Users []BannedUser `json:"users"`
	Bans  []*ServerBan `json:"bans"`
}

// Invite types.
const (
	InviteServer = "Server"
	InviteGroup  = "Group"
)

// InvitePreview is what anyone may learn about an invite code. Server
// fields are empty for group invites.
// Contract: InviteResponse
type InvitePreview struct {
	Type               string  `json:"type"`
	Code               string  `json:"code"`
	ServerID           ID      `json:"server_id,omitempty"`
	ServerName         string  `json:"server_name,omitempty"`
	ServerIcon         *File   `json:"server_icon,omitempty"`
	ServerBanner       *File   `json:"server_banner,omitempty"`
	ServerFlags        *uint32 `json:"server_flags,omitempty"`
	ChannelID          ID      `json:"channel_id"`
	ChannelName        string  `json:"channel_name"`
	ChannelDescription *string `json:"channel_description,omitempty"`
	UserName           string  `json:"user_name"`
	UserAvatar         *File   `json:"user_avatar,omitempty"`
	MemberCount        *int64  `json:"member_count,omitempty"`
}

// InviteJoined answers POST /invites/{code}: {type:"Server", server,
// channels} or {type:"Group", channel, users}.
// Contract: InviteJoinResponse
type InviteJoined struct {
	Type     string
	Server   *Server    // Server
	Channels []*Channel // Server: the channels the joiner can see
	Channel  *Channel   // Group
	Users    []*User    // Group: its members
}

// MarshalJSON writes the fields of the invite's type.
func (j InviteJoined) MarshalJSON() ([]byte, error) {
	if j.Type == InviteGroup {
		users := j.Users
		if users == nil {
			users = []*User{}
		}
		return json.Marshal(struct {
			Type    string   `json:"type"`
			Channel *Channel `json:"channel"`
			Users   []*User  `json:"users"`
		}{j.Type, j.Channel, users})
	}
	channels := j.Channels
	if channels == nil {
		channels = []*Channel{}
	}
	return json.Marshal(struct {
		Type     string     `json:"type"`
		Channels []*Channel `json:"channels"`
		Server   *Server    `json:"server"`
	}{j.Type, channels, j.Server})
}
