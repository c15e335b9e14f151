package chat

// Account is the login identity behind a user; the user id equals the
// account id. Accounts are never sent to clients whole.
type Account struct {
	ID              ID     `json:"_id"`
	Email           string `json:"email"`
	EmailNormalised string `json:"email_normalised"`
	PasswordHash    string `json:"password"` // argon2id PHC string
	Disabled        bool   `json:"disabled,omitempty"`
	Verified        bool   `json:"verified"`

	// Pending single-use tokens; each expires.
	Verification  *AccountToken `json:"verification,omitempty"` // email verification or change
	PasswordReset *AccountToken `json:"password_reset,omitempty"`
	Deletion      *AccountToken `json:"deletion,omitempty"`
	// DeleteAfter is set when deletion was confirmed and is scheduled.
	DeleteAfter *Time `json:"delete_after,omitempty"`

	Lockout *Lockout `json:"lockout,omitempty"`
	MFA     MFA      `json:"mfa"`

	// PolicyAcknowledged is when the user last acknowledged policy changes.
	PolicyAcknowledged *Time `json:"policy_acknowledged,omitempty"`
}

// AccountToken is a single-use, expiring token sent by email.
type AccountToken struct {
	Token    string `json:"token"`
	Expiry   Time   `json:"expiry"`
	NewEmail string `json:"new_email,omitempty"` // email change only
}

// Lockout counts failed logins and when the account unlocks.
type Lockout struct {
	Attempts int   `json:"attempts"`
	Expiry   *Time `json:"expiry,omitempty"`
}

// MFA holds an account's second factors.
type MFA struct {
	TOTPSecret    string   `json:"totp_secret,omitempty"`
	TOTPPending   string   `json:"totp_pending,omitempty"`   // generated, not yet enabled
	TOTPLastStep  int64    `json:"totp_last_step,omitempty"` // replay protection
	RecoveryCodes []string `json:"recovery_codes,omitempty"`
}

// Session is a logged-in device of an account.
type Session struct {
	ID       ID     `json:"_id"`
	UserID   ID     `json:"user_id"`
	Token    string `json:"token"`
	Name     string `json:"name"`
	LastSeen *Time  `json:"last_seen,omitempty"`
	// Subscription is the session's Web Push subscription, if any.
	Subscription *WebPushSubscription `json:"subscription,omitempty"`
}

// WebPushSubscription is a push endpoint registered by a session.
type WebPushSubscription struct {
	Endpoint string `json:"endpoint"`
	P256DH   string `json:"p256dh"`
	Auth     string `json:"auth"`
}

// MFATicket authorises one sensitive action or completes an MFA login.
type MFATicket struct {
	ID           ID     `json:"_id"`
	AccountID    ID     `json:"account_id"`
	Token        string `json:"token"`
	Validated    bool   `json:"validated"`
	Authorised   bool   `json:"authorised"` // may be exchanged for a session
	LastTOTPCode string `json:"last_totp_code,omitempty"`
	Expiry       Time   `json:"expiry"`
}
