package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
)

// Request bodies of the server, channel, role, member, ban and emoji
// routes. Each Validate enforces the contract's field rules and returns
// ErrInvalidBody naming the first offending field. Optional fields are
// pointers: nil means "not given" (JSON null counts as not given).

// Fields that edit bodies may remove (their remove lists) and that
// *Update events name in clear.
const (
	FieldDescription        = "Description"
	FieldIcon               = "Icon"
	FieldBanner             = "Banner"
	FieldCategories         = "Categories"
	FieldSystemMessages     = "SystemMessages"
	FieldDefaultPermissions = "DefaultPermissions"
	FieldVoice              = "Voice"
	FieldColour             = "Colour"
	FieldNickname           = "Nickname"
	FieldAvatar             = "Avatar"
	FieldRoles              = "Roles"
	FieldTimeout            = "Timeout"
	FieldCanReceive         = "CanReceive"
	FieldCanPublish         = "CanPublish"
	FieldJoinedAt           = "JoinedAt"
	FieldVoiceChannel       = "VoiceChannel" // member edit: disconnect from voice (later reference versions)
	FieldSlowmode           = "Slowmode"     // reference 0.12.0
	FieldPronouns           = "Pronouns"     // reference 0.14.0
)

// MaxSlowmode is the longest slowmode a channel may have, in seconds.
const MaxSlowmode = 21600

// MaxPronouns is the longest pronouns text of a user or member.
const MaxPronouns = 24

func checkSlowmode(s *int64) error {
	if s != nil && (*s < 0 || *s > MaxSlowmode) {
		return ErrInvalidBody(fmt.Sprintf("slowmode: must be between 0 and %d seconds", MaxSlowmode))
	}
	return nil
}

// Server channel types as DataCreateServerChannel names them.
const (
	ServerChannelText  = "Text"
	ServerChannelVoice = "Voice"
)

func checkRemove(remove []string, allowed ...string) error {
	for i, f := range remove {
		if err := CheckEnum(fmt.Sprintf("remove[%d]", i), f, allowed...); err != nil {
			return err
		}
	}
	return nil
}

// Has reports whether list holds field.
func has(list []string, field string) bool {
	for _, f := range list {
		if f == field {
			return true
		}
	}
	return false
}

func checkVoice(field string, v *VoiceInformation) error {
	if v != nil && v.MaxUsers != nil && *v.MaxUsers < 1 {
		return ErrInvalidBody(field + ".max_users: must be at least 1")
	}
	return nil
}

// ServerCreate is the body of POST /servers/create.
// Contract: DataCreateServer
type ServerCreate struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	NSFW        *bool   `json:"nsfw"`
}

// Validate checks the contract's rules.
func (d *ServerCreate) Validate() error {
	return FirstError(
		CheckLength("name", d.Name, 1, 32),
		CheckOptionalLength("description", d.Description, 0, 1024),
	)
}

// ServerEdit is the body of PATCH /servers/{id}.
// Contract: DataEditServer
type ServerEdit struct {
	Name           *string                `json:"name"`
	Description    *string                `json:"description"`
	Icon           *string                `json:"icon"`
	Banner         *string                `json:"banner"`
	Categories     *[]Category            `json:"categories"`
	SystemMessages *SystemMessageChannels `json:"system_messages"`
	Flags          *int32                 `json:"flags"`
	Discoverable   *bool                  `json:"discoverable"`
	Analytics      *bool                  `json:"analytics"`
	// Owner transfers the server to another member (reference 0.10.0).
	Owner  *ID      `json:"owner"`
	Remove []string `json:"remove"`
}

// Removes reports whether the edit removes field.
func (d *ServerEdit) Removes(field string) bool { return has(d.Remove, field) }

// Validate checks the contract's rules.
func (d *ServerEdit) Validate() error {
	if err := FirstError(
		CheckOptionalLength("name", d.Name, 1, 32),
		CheckOptionalLength("description", d.Description, 0, 1024),
		checkRemove(d.Remove, FieldDescription, FieldCategories, FieldSystemMessages, FieldIcon, FieldBanner),
	); err != nil {
		return err
	}
	if d.Categories != nil {
		for i, c := range *d.Categories {
			if err := FirstError(
				CheckLength(fmt.Sprintf("categories[%d].id", i), c.ID, 1, 32),
				CheckLength(fmt.Sprintf("categories[%d].title", i), c.Title, 1, 32),
			); err != nil {
				return err
			}
		}
	}
	return nil
}

// ServerChannelCreate is the body of POST /servers/{id}/channels.
// Contract: DataCreateServerChannel
type ServerChannelCreate struct {
	Type        string            `json:"type"` // Text (the default) or Voice
	Name        string            `json:"name"`
	Description *string           `json:"description"`
	NSFW        *bool             `json:"nsfw"`
	Voice       *VoiceInformation `json:"voice"`
	Slowmode    *int64            `json:"slowmode"` // seconds; reference 0.12.0
}

// Validate checks the contract's rules.
func (d *ServerChannelCreate) Validate() error {
	var typ error
	if d.Type != "" {
		typ = CheckEnum("type", d.Type, ServerChannelText, ServerChannelVoice)
	}
	return FirstError(
		typ,
		CheckLength("name", d.Name, 1, 32),
		CheckOptionalLength("description", d.Description, 0, 1024),
		checkVoice("voice", d.Voice),
		checkSlowmode(d.Slowmode),
	)
}

// ChannelEdit is the body of PATCH /channels/{id}.
// Contract: DataEditChannel
type ChannelEdit struct {
	Name        *string           `json:"name"`
	Description *string           `json:"description"`
	Owner       *ID               `json:"owner"`
	Icon        *string           `json:"icon"`
	NSFW        *bool             `json:"nsfw"`
	Archived    *bool             `json:"archived"`
	Voice       *VoiceInformation `json:"voice"`
	Slowmode    *int64            `json:"slowmode"` // seconds, 0 turns it off; reference 0.12.0
	Remove      []string          `json:"remove"`
}

// Removes reports whether the edit removes field.
func (d *ChannelEdit) Removes(field string) bool { return has(d.Remove, field) }

// Validate checks the contract's rules.
func (d *ChannelEdit) Validate() error {
	return FirstError(
		CheckOptionalLength("name", d.Name, 1, 32),
		CheckOptionalLength("description", d.Description, 0, 1024),
		CheckOptionalLength("icon", d.Icon, 1, 128),
		checkVoice("voice", d.Voice),
		checkSlowmode(d.Slowmode),
		checkRemove(d.Remove, FieldDescription, FieldIcon, FieldDefaultPermissions, FieldVoice, FieldSlowmode),
	)
}

// RoleCreate is the body of POST /servers/{id}/roles. Rank is accepted
// and ignored: ranks change only through the ranks route.
// Contract: DataCreateRole
type RoleCreate struct {
	Name string `json:"name"`
	Rank *int64 `json:"rank"`
}

// Validate checks the contract's rules.
func (d *RoleCreate) Validate() error { return CheckLength("name", d.Name, 1, 32) }

// RoleEdit is the body of PATCH /servers/{id}/roles/{role}. Rank is
// accepted and ignored.
// Contract: DataEditRole
type RoleEdit struct {
	Name   *string  `json:"name"`
	Colour *string  `json:"colour"`
	Hoist  *bool    `json:"hoist"`
	Rank   *int64   `json:"rank"`
	Icon   *string  `json:"icon"` // an uploaded file id (tag icons); reference 0.12.0
	Remove []string `json:"remove"`
}

// Removes reports whether the edit removes field.
func (d *RoleEdit) Removes(field string) bool { return has(d.Remove, field) }

// Validate checks the contract's rules.
func (d *RoleEdit) Validate() error {
	return FirstError(
		CheckOptionalLength("name", d.Name, 1, 32),
		CheckColour("colour", d.Colour),
		CheckOptionalLength("icon", d.Icon, 1, 128),
		checkRemove(d.Remove, FieldColour, FieldIcon),
	)
}

// OverrideSet is the body of the role permission routes of servers and
// channels: {"permissions": {"allow": n, "deny": n}}.
// Contract: DataSetServerRolePermission, DataSetRolePermissions
type OverrideSet struct {
	Permissions *OverrideData `json:"permissions"`
}

// Validate checks the override is present and holds no negative value.
func (d *OverrideSet) Validate() error {
	if d.Permissions == nil {
		return ErrInvalidBody("permissions: required")
	}
	return d.Permissions.check("permissions")
}

func (o *OverrideData) check(field string) error {
	if o.Allow < 0 || o.Deny < 0 {
		return ErrInvalidBody(field + ": allow and deny must not be negative")
	}
	return nil
}

// PermissionsValue is the body of PUT /servers/{id}/permissions/default.
// Contract: DataPermissionsValue
type PermissionsValue struct {
	Permissions *uint64 `json:"permissions"`
}

// Validate checks the value is present.
func (d *PermissionsValue) Validate() error {
	if d.Permissions == nil {
		return ErrInvalidBody("permissions: required")
	}
	return nil
}

// DefaultPermissionsSet is the body of PUT /channels/{id}/permissions/default:
// a plain number for groups, an override for server channels. Exactly one
// of Value and Override is set after decoding.
// Contract: DataDefaultChannelPermissions
type DefaultPermissionsSet struct {
	Value    *uint64       // a group's permissions
	Override *OverrideData // a server channel's default override
}

// UnmarshalJSON reads {"permissions": n} or {"permissions": {"allow", "deny"}}.
func (d *DefaultPermissionsSet) UnmarshalJSON(b []byte) error {
	var raw struct {
		Permissions json.RawMessage `json:"permissions"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	p := bytes.TrimSpace(raw.Permissions)
	switch {
	case len(p) == 0 || bytes.Equal(p, []byte("null")):
		return nil
	case p[0] == '{':
		var o OverrideData
		if err := json.Unmarshal(p, &o); err != nil {
			return ErrInvalidBody("permissions: expected {allow, deny} of integers")
		}
		d.Override = &o
	default:
		var v uint64
		if err := json.Unmarshal(p, &v); err != nil {
			return ErrInvalidBody("permissions: expected a non-negative integer or {allow, deny}")
		}
		d.Value = &v
	}
	return nil
}

// Validate checks a value was given.
func (d *DefaultPermissionsSet) Validate() error {
	switch {
	case d.Override != nil:
		return d.Override.check("permissions")
	case d.Value == nil:
		return ErrInvalidBody("permissions: required")
	}
	return nil
}

// RoleRanksEdit is the body of PATCH /servers/{id}/roles/ranks: every
// role of the server, highest first.
// Contract: DataEditRoleRanks
type RoleRanksEdit struct {
	Ranks []ID `json:"ranks"`
}

// Validate checks the list is present.
func (d *RoleRanksEdit) Validate() error {
	if d.Ranks == nil {
		return ErrInvalidBody("ranks: required")
	}
	return nil
}

// MemberEdit is the body of PATCH /servers/{id}/members/{user}.
// Contract: DataMemberEdit
type MemberEdit struct {
	Nickname     *string  `json:"nickname"`
	Avatar       *string  `json:"avatar"`
	Roles        *[]ID    `json:"roles"`
	Timeout      *Time    `json:"timeout"`
	CanPublish   *bool    `json:"can_publish"`
	CanReceive   *bool    `json:"can_receive"`
	VoiceChannel *ID      `json:"voice_channel"`
	Pronouns     *string  `json:"pronouns"` // reference 0.14.0
	Remove       []string `json:"remove"`
}

// Removes reports whether the edit removes field.
func (d *MemberEdit) Removes(field string) bool { return has(d.Remove, field) }

// Validate checks the contract's rules.
func (d *MemberEdit) Validate() error {
	return FirstError(
		CheckOptionalLength("nickname", d.Nickname, 1, 32),
		CheckOptionalLength("pronouns", d.Pronouns, 1, MaxPronouns),
		checkRemove(d.Remove, FieldNickname, FieldAvatar, FieldRoles, FieldTimeout, FieldCanReceive,
			FieldCanPublish, FieldJoinedAt, FieldPronouns, FieldVoiceChannel),
	)
}

// BanCreate is the body of PUT /servers/{id}/bans/{user}.
// Contract: DataBanCreate
type BanCreate struct {
	Reason *string `json:"reason"`
}

// Validate checks the contract's rules.
func (d *BanCreate) Validate() error { return CheckOptionalLength("reason", d.Reason, 0, 1024) }

var emojiName = regexp.MustCompile(`^[a-z0-9_]+$`)

// Emoji parent types.
const (
	EmojiParentServer   = "Server"
	EmojiParentDetached = "Detached"
)

// EmojiCreate is the body of PUT /custom/emoji/{id}.
// Contract: DataCreateEmoji
type EmojiCreate struct {
	Name   string       `json:"name"`
	Parent *EmojiParent `json:"parent"`
	NSFW   bool         `json:"nsfw"`
}

// Validate checks the contract's rules.
func (d *EmojiCreate) Validate() error {
	if err := FirstError(
		CheckLength("name", d.Name, 1, 32),
		CheckPattern("name", d.Name, emojiName),
	); err != nil {
		return err
	}
	if d.Parent == nil {
		return ErrInvalidBody("parent: required")
	}
	if err := CheckEnum("parent.type", d.Parent.Type, EmojiParentServer, EmojiParentDetached); err != nil {
		return err
	}
	if d.Parent.Type == EmojiParentServer && d.Parent.ID == "" {
		return ErrInvalidBody("parent.id: required")
	}
	return nil
}

// EmojiEdit is the body of PATCH /custom/emoji/{id} (reference 0.13.0).
// Served document: DataEditEmoji
type EmojiEdit struct {
	Name string `json:"name"`
}

// Validate checks the name follows the same rules as on creation.
func (d *EmojiEdit) Validate() error {
	return FirstError(
		CheckLength("name", d.Name, 1, 32),
		CheckPattern("name", d.Name, emojiName),
	)
}
