package chat

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
