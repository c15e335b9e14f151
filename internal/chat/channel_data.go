package chat

import "fmt"

// Fields of a channel that an edit may remove (FieldsChannel).
const (
	ChannelFieldDescription        = "Description"
	ChannelFieldIcon               = "Icon"
	ChannelFieldDefaultPermissions = "DefaultPermissions"
	ChannelFieldVoice              = "Voice"
)

// ChannelEdit is the body of PATCH /channels/{target}.
// Contract: DataEditChannel
type ChannelEdit struct {
	Name        *string           `json:"name"`
	Description *string           `json:"description"`
	Owner       *ID               `json:"owner"`
	Icon        *string           `json:"icon"`
	NSFW        *bool             `json:"nsfw"`
	Archived    *bool             `json:"archived"`
	Voice       *VoiceInformation `json:"voice"`
	Remove      []string          `json:"remove"`
}

// Validate checks the contract's field rules.
func (d *ChannelEdit) Validate() error {
	if err := FirstError(
		CheckOptionalLength("name", d.Name, 1, 32),
		CheckOptionalLength("description", d.Description, 0, 1024),
		CheckOptionalLength("icon", d.Icon, 1, 128),
	); err != nil {
		return err
	}
	for i, f := range d.Remove {
		if err := CheckEnum(fmt.Sprintf("remove[%d]", i), f, ChannelFieldDescription, ChannelFieldIcon,
			ChannelFieldDefaultPermissions, ChannelFieldVoice); err != nil {
			return err
		}
	}
	return nil
}

// GroupCreate is the body of POST /channels/create.
// Contract: DataCreateGroup
type GroupCreate struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Icon        *string `json:"icon"`
	Users       []ID    `json:"users"`
	NSFW        *bool   `json:"nsfw"`
}

// Validate checks the contract's field rules.
func (d *GroupCreate) Validate() error {
	if err := FirstError(
		CheckLength("name", d.Name, 1, 32),
		CheckOptionalLength("description", d.Description, 0, 1024),
		CheckOptionalLength("icon", d.Icon, 1, 128),
		CheckCount("users", len(d.Users), 0, 49),
	); err != nil {
		return err
	}
	seen := make(map[ID]bool, len(d.Users))
	for _, u := range d.Users {
		if seen[u] {
			return ErrInvalidBody("users: items must be unique")
		}
		seen[u] = true
	}
	return nil
}
