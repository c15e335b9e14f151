package chat

// UserExport is everything Ermine keeps about one user, for a data
// export. Secrets that would let the reader act as the user (the
// password hash, session and bot tokens, second factors, pending mail
// tokens) are left out; that they exist is said instead.
type UserExport struct {
	ExportedAt    Time               `json:"exported_at"`
	Account       *ExportAccount     `json:"account,omitempty"`
	User          *UserDoc           `json:"user"`
	Sessions      []ExportSession    `json:"sessions"`
	Relationships []Relationship     `json:"relationships"`
	Memberships   []*Member          `json:"memberships"`
	Channels      []*Channel         `json:"channels"`
	Settings      map[string]Setting `json:"settings"`
	Bots          []ExportBot        `json:"bots"`
	Reports       []*Report          `json:"reports_filed"`
	Messages      []*Message         `json:"messages"`
	Uploads       []*FileRecord      `json:"uploads"`
	Unreads       []*ChannelUnread   `json:"unreads"`
}

// ExportAccount is an account without its secrets.
type ExportAccount struct {
	ID                 ID     `json:"_id"`
	Email              string `json:"email"`
	Verified           bool   `json:"verified"`
	Disabled           bool   `json:"disabled"`
	DeleteAfter        *Time  `json:"delete_after,omitempty"`
	TOTPEnabled        bool   `json:"totp_enabled"`
	RecoveryCodes      int    `json:"recovery_codes"`
	PolicyAcknowledged *Time  `json:"policy_acknowledged,omitempty"`
}

// ExportSession is a session without its token.
type ExportSession struct {
	ID         ID     `json:"_id"`
	Name       string `json:"name"`
	LastSeen   *Time  `json:"last_seen,omitempty"`
	Subscribed bool   `json:"push_subscribed"`
}

// ExportBot is an owned bot without its token.
type ExportBot struct {
	ID           ID   `json:"_id"`
	Public       bool `json:"public"`
	Analytics    bool `json:"analytics"`
	Discoverable bool `json:"discoverable"`
}
