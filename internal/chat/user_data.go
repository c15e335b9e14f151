package chat

import (
	"fmt"
	"regexp"
)

// Fields of a user that an edit may remove (FieldsUser).
const (
	UserFieldAvatar            = "Avatar"
	UserFieldStatusText        = "StatusText"
	UserFieldStatusPresence    = "StatusPresence"
	UserFieldProfileContent    = "ProfileContent"
	UserFieldProfileBackground = "ProfileBackground"
	UserFieldDisplayName       = "DisplayName"
	UserFieldInternal          = "Internal"
	UserFieldPronouns          = "Pronouns" // reference 0.14.0
)

// UsernamePattern is the contract's rule for usernames: letters of any
// script, digits, '_', '.' and '-'.
var UsernamePattern = regexp.MustCompile(`^(\p{L}|[\d_.-])+$`)

// displayNamePattern forbids zero-width spaces and line breaks.
var displayNamePattern = regexp.MustCompile("^[^\u200B\n\r]+$")

// UserEdit is the body of PATCH /users/{target}.
// Contract: DataEditUser
type UserEdit struct {
	DisplayName *string          `json:"display_name"`
	Pronouns    *string          `json:"pronouns"` // reference 0.14.0
	Avatar      *string          `json:"avatar"`
	Status      *UserStatus      `json:"status"`
	Profile     *UserProfileData `json:"profile"`
	Badges      *int32           `json:"badges"`
	Flags       *int32           `json:"flags"`
	Remove      []string         `json:"remove"`
}

// UserProfileData is the profile part of a user edit, applied as a partial.
// Contract: DataUserProfile
type UserProfileData struct {
	Content    *string `json:"content"`
	Background *string `json:"background"`
}

// Validate checks the contract's field rules.
func (d *UserEdit) Validate() error {
	if d.DisplayName != nil {
		if err := CheckLength("display_name", *d.DisplayName, 2, 32); err != nil {
			return err
		}
		if err := CheckPattern("display_name", *d.DisplayName, displayNamePattern); err != nil {
			return err
		}
	}
	if err := CheckOptionalLength("pronouns", d.Pronouns, 1, MaxPronouns); err != nil {
		return err
	}
	if err := CheckOptionalLength("avatar", d.Avatar, 1, 128); err != nil {
		return err
	}
	if d.Status != nil {
		if err := CheckOptionalLength("status.text", d.Status.Text, 0, 128); err != nil {
			return err
		}
		if p := d.Status.Presence; p != nil {
			if err := CheckEnum("status.presence", string(*p), string(PresenceOnline), string(PresenceIdle),
				string(PresenceFocus), string(PresenceBusy), string(PresenceInvisible)); err != nil {
				return err
			}
		}
	}
	if d.Profile != nil {
		if err := CheckOptionalLength("profile.content", d.Profile.Content, 0, 2000); err != nil {
			return err
		}
		if err := CheckOptionalLength("profile.background", d.Profile.Background, 1, 128); err != nil {
			return err
		}
	}
	for i, f := range d.Remove {
		if err := CheckEnum(fmt.Sprintf("remove[%d]", i), f, UserFieldAvatar, UserFieldStatusText,
			UserFieldStatusPresence, UserFieldProfileContent, UserFieldProfileBackground,
			UserFieldDisplayName, UserFieldInternal, UserFieldPronouns); err != nil {
			return err
		}
	}
	return nil
}

// UsernameChange is the body of PATCH /users/@me/username.
// Contract: DataChangeUsername
type UsernameChange struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// Validate checks the contract's field rules.
func (d *UsernameChange) Validate() error {
	return FirstError(
		CheckLength("username", d.Username, 2, 32),
		CheckPattern("username", d.Username, UsernamePattern),
		CheckLength("password", d.Password, 8, 1024),
	)
}

// FriendRequest is the body of POST /users/friend: "name#discriminator".
// Contract: DataSendFriendRequest
type FriendRequest struct {
	Username string `json:"username"`
}

// Validate checks the contract's field rules.
func (d *FriendRequest) Validate() error {
	return CheckLength("username", d.Username, 1, -1)
}

// FlagResponse carries a user's flags.
// Contract: FlagResponse
type FlagResponse struct {
	Flags uint32 `json:"flags"`
}

// MutualResponse lists what two users share.
// Contract: MutualResponse
type MutualResponse struct {
	Users    []ID `json:"users"`
	Servers  []ID `json:"servers"`
	Channels []ID `json:"channels"`
}
