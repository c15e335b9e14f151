package chat

import "fmt"

// Bot flags.
const (
	BotFlagVerified = 1
	BotFlagOfficial = 2
)

// Fields of a bot that an edit may remove (FieldsBot).
const (
	BotFieldToken           = "Token"
	BotFieldInteractionsURL = "InteractionsURL"
)

// BotCreate is the body of POST /bots/create.
// Contract: DataCreateBot
type BotCreate struct {
	Name string `json:"name"`
}

// Validate checks the contract's field rules.
func (d *BotCreate) Validate() error {
	return FirstError(
		CheckLength("name", d.Name, 2, 32),
		CheckPattern("name", d.Name, UsernamePattern),
	)
}

// BotEdit is the body of PATCH /bots/{target}.
// Contract: DataEditBot
type BotEdit struct {
	Name            *string  `json:"name"`
	Public          *bool    `json:"public"`
	Analytics       *bool    `json:"analytics"`
	InteractionsURL *string  `json:"interactions_url"`
	Remove          []string `json:"remove"`
}

// Validate checks the contract's field rules.
func (d *BotEdit) Validate() error {
	if d.Name != nil {
		if err := FirstError(CheckLength("name", *d.Name, 2, 32),
			CheckPattern("name", *d.Name, UsernamePattern)); err != nil {
			return err
		}
	}
	if err := CheckOptionalLength("interactions_url", d.InteractionsURL, 1, 2048); err != nil {
		return err
	}
	for i, f := range d.Remove {
		if err := CheckEnum(fmt.Sprintf("remove[%d]", i), f, BotFieldToken, BotFieldInteractionsURL); err != nil {
			return err
		}
	}
	return nil
}

// BotWithUser is a bot with its user.
// Contract: BotWithUserResponse
type BotWithUser struct {
	Bot
	User *User `json:"user"`
}

// BotResponse is a bot and its user side by side.
// Contract: FetchBotResponse
type BotResponse struct {
	Bot  *Bot  `json:"bot"`
	User *User `json:"user"`
}

// OwnedBots lists a user's bots and their users, both sorted by id.
// Contract: OwnedBotsResponse
type OwnedBots struct {
	Bots  []*Bot  `json:"bots"`
	Users []*User `json:"users"`
}

// PublicBot is what anyone may see of a public bot.
// Contract: PublicBot
type PublicBot struct {
	ID          ID     `json:"_id"`
	Username    string `json:"username"`
	Avatar      string `json:"avatar"`      // file id, or empty
	Description string `json:"description"` // profile content, or empty
}

// BotInvite says where a bot is invited: a server or a group.
// Contract: InviteBotDestination
type BotInvite struct {
	Server ID `json:"server"`
	Group  ID `json:"group"`
}

// Validate checks exactly one destination is given.
func (d *BotInvite) Validate() error {
	if (d.Server == "") == (d.Group == "") {
		return ErrInvalidBody("body: give either server or group")
	}
	return nil
}
