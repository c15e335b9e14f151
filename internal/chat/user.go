package chat

// RelationshipStatus is a user's relationship with another user, from the
// viewer's side.
type RelationshipStatus string

// Relationship statuses of the contract.
const (
	RelationNone         RelationshipStatus = "None"
	RelationUser         RelationshipStatus = "User" // the other user is the viewer
	RelationFriend       RelationshipStatus = "Friend"
	RelationOutgoing     RelationshipStatus = "Outgoing"
	RelationIncoming     RelationshipStatus = "Incoming"
	RelationBlocked      RelationshipStatus = "Blocked"
	RelationBlockedOther RelationshipStatus = "BlockedOther"
)

// Relationship is one entry of a user's relations.
type Relationship struct {
	ID     ID                 `json:"_id"`
	Status RelationshipStatus `json:"status"`
}

// Presence is the presence a user chose.
type Presence string

// Presence values.
const (
	PresenceOnline    Presence = "Online"
	PresenceIdle      Presence = "Idle"
	PresenceFocus     Presence = "Focus"
	PresenceBusy      Presence = "Busy"
	PresenceInvisible Presence = "Invisible"
)

// UserStatus is a user's custom status.
type UserStatus struct {
	Text     *string   `json:"text,omitempty"`
	Presence *Presence `json:"presence,omitempty"`
}

// BotInformation marks a user as a bot.
type BotInformation struct {
	Owner ID `json:"owner"`
}

// UserProfile is a user's profile.
type UserProfile struct {
	Content    *string `json:"content,omitempty"`
	Background *File   `json:"background,omitempty"`
}

// User flags.
const (
	UserFlagSuspended = 1
	UserFlagDeleted   = 2
	UserFlagBanned    = 4
	UserFlagSpam      = 8 // flagged and removed as spam (seed part 2)
	// UserFlagImported marks an author an import brought in (ermine
	// import discord) who has no account and cannot log in; `ermine admin
	// claim` hands their messages to a real account. Ermine's own bit,
	// far above the reference's.
	UserFlagImported = 1 << 16
)

// User is a user or bot account's public face.
//
// Relationship and Online are computed for each viewer and never stored;
// Relations is sent only to the user themself. Profile is stored with the
// user but is not part of the User wire object (it has its own route).
type User struct {
	ID            ID                 `json:"_id"`
	Username      string             `json:"username"`
	Discriminator string             `json:"discriminator"`
	DisplayName   *string            `json:"display_name,omitempty"`
	Pronouns      *string            `json:"pronouns,omitempty"` // reference 0.14.0
	Avatar        *File              `json:"avatar,omitempty"`
	Relations     []Relationship     `json:"relations,omitempty"`
	Badges        uint32             `json:"badges,omitempty"`
	Status        *UserStatus        `json:"status,omitempty"`
	Flags         uint32             `json:"flags,omitempty"`
	Privileged    bool               `json:"privileged,omitempty"`
	Bot           *BotInformation    `json:"bot,omitempty"`
	Relationship  RelationshipStatus `json:"relationship"`
	Online        bool               `json:"online"`

	// Stored, not sent in the User object.
	Profile *UserProfile `json:"-"`
	// LastDiscriminatorChange limits forced discriminator changes to one a day.
	LastDiscriminatorChange *Time `json:"-"`
}

// UserDoc is the stored form of a user: the wire object without the
// per-viewer fields, plus the stored-only fields.
type UserDoc struct {
	ID                      ID              `json:"_id"`
	Username                string          `json:"username"`
	Discriminator           string          `json:"discriminator"`
	DisplayName             *string         `json:"display_name,omitempty"`
	Pronouns                *string         `json:"pronouns,omitempty"`
	Avatar                  *File           `json:"avatar,omitempty"`
	Badges                  uint32          `json:"badges,omitempty"`
	Status                  *UserStatus     `json:"status,omitempty"`
	Flags                   uint32          `json:"flags,omitempty"`
	Privileged              bool            `json:"privileged,omitempty"`
	Bot                     *BotInformation `json:"bot,omitempty"`
	Profile                 *UserProfile    `json:"profile,omitempty"`
	LastDiscriminatorChange *Time           `json:"last_discriminator_change,omitempty"`
}

// Doc returns the stored form of u.
func (u *User) Doc() UserDoc {
	return UserDoc{
		ID: u.ID, Username: u.Username, Discriminator: u.Discriminator,
		DisplayName: u.DisplayName, Pronouns: u.Pronouns, Avatar: u.Avatar, Badges: u.Badges, Status: u.Status,
		Flags: u.Flags, Privileged: u.Privileged, Bot: u.Bot, Profile: u.Profile,
		LastDiscriminatorChange: u.LastDiscriminatorChange,
	}
}

// User returns the user the document stores, with no viewer fields set.
func (d *UserDoc) User() *User {
	return &User{
		ID: d.ID, Username: d.Username, Discriminator: d.Discriminator,
		DisplayName: d.DisplayName, Pronouns: d.Pronouns, Avatar: d.Avatar, Badges: d.Badges, Status: d.Status,
		Flags: d.Flags, Privileged: d.Privileged, Bot: d.Bot, Profile: d.Profile,
		LastDiscriminatorChange: d.LastDiscriminatorChange,
		Relationship:            RelationNone,
	}
}

// IsBot reports whether the user is a bot.
func (u *User) IsBot() bool { return u.Bot != nil }

// Bot is a bot account owned by a user. Its id equals its user's id.
type Bot struct {
	ID                ID     `json:"_id"`
	Owner             ID     `json:"owner"`
	Token             string `json:"token"`
	Public            bool   `json:"public"`
	Analytics         bool   `json:"analytics,omitempty"`
	Discoverable      bool   `json:"discoverable,omitempty"`
	InteractionsURL   string `json:"interactions_url,omitempty"`
	TermsOfServiceURL string `json:"terms_of_service_url,omitempty"`
	PrivacyPolicyURL  string `json:"privacy_policy_url,omitempty"`
	Flags             uint32 `json:"flags,omitempty"`
}
