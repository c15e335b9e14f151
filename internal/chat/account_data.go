package chat

import (
	"encoding/json"
	"fmt"
)

// Request bodies and responses of the account, session, MFA, onboarding
// and settings routes. Required fields that are missing decode as empty
// and are refused by Validate with a 422 naming the field.

// Field bounds of account bodies. The contract gives none; these keep
// absurd values out of hashing, storage and mail.
const (
	maxEmailChars        = 254  // longest address SMTP carries
	maxPasswordChars     = 1024 // more adds no strength, only hashing work
	maxTokenChars        = 128  // longer than any token Ermine hands out
	maxFriendlyNameChars = 128
	maxCaptchaChars      = 8192
	maxSettingKeyChars   = 128
	maxSettingKeys       = 256
)

func required(field, s string) error {
	if s == "" {
		return ErrInvalidBody(field + ": required")
	}
	return nil
}

func checkPassword(field, s string) error {
	return FirstError(required(field, s), CheckLength(field, s, 0, maxPasswordChars))
}

func checkEmail(field, s string) error {
	return FirstError(required(field, s), CheckLength(field, s, 0, maxEmailChars))
}

func checkToken(field, s string) error {
	return FirstError(required(field, s), CheckLength(field, s, 0, maxTokenChars))
}

// AccountCreate creates an account.
// Contract: DataCreateAccount
type AccountCreate struct {
	Email    string  `json:"email"`
	Password string  `json:"password"`
	Invite   *string `json:"invite"`
	Captcha  *string `json:"captcha"`
}

// Validate checks the field rules.
func (d *AccountCreate) Validate() error {
	return FirstError(checkEmail("email", d.Email), checkPassword("password", d.Password),
		CheckOptionalLength("invite", d.Invite, 0, maxTokenChars),
		CheckOptionalLength("captcha", d.Captcha, 0, maxCaptchaChars))
}

// EmailRequest names an account by email: resending the verification
// mail and asking for a password reset.
// Contract: DataResendVerification, DataSendPasswordReset
type EmailRequest struct {
	Email   string  `json:"email"`
	Captcha *string `json:"captcha"`
}

// Validate checks the field rules.
func (d *EmailRequest) Validate() error {
	return FirstError(checkEmail("email", d.Email), CheckOptionalLength("captcha", d.Captcha, 0, maxCaptchaChars))
}

// AccountDeletion confirms an account deletion with the mailed token.
// Contract: DataAccountDeletion
type AccountDeletion struct {
	Token string `json:"token"`
}

// Validate checks the field rules.
func (d *AccountDeletion) Validate() error { return checkToken("token", d.Token) }

// PasswordChange changes the password of the caller's account.
// Contract: DataChangePassword
type PasswordChange struct {
	Password        string `json:"password"`
	CurrentPassword string `json:"current_password"`
}

// Validate checks the field rules.
func (d *PasswordChange) Validate() error {
	return FirstError(checkPassword("password", d.Password), checkPassword("current_password", d.CurrentPassword))
}

// EmailChange changes the email of the caller's account.
// Contract: DataChangeEmail
type EmailChange struct {
	Email           string `json:"email"`
	CurrentPassword string `json:"current_password"`
}

// Validate checks the field rules.
func (d *EmailChange) Validate() error {
	return FirstError(checkEmail("email", d.Email), checkPassword("current_password", d.CurrentPassword))
}

// PasswordReset sets a new password with a mailed reset token.
// Contract: DataPasswordReset
type PasswordReset struct {
	Token          string `json:"token"`
	Password       string `json:"password"`
	RemoveSessions bool   `json:"remove_sessions"`
}

// Validate checks the field rules.
func (d *PasswordReset) Validate() error {
	return FirstError(checkToken("token", d.Token), checkPassword("password", d.Password))
}

// AccountInfo is what GET /auth/account/ tells the account holder.
// Contract: AccountInfo
type AccountInfo struct {
	ID    ID     `json:"_id"`
	Email string `json:"email"`
}

// MFA methods.
const (
	MFAPassword = "Password"
	MFARecovery = "Recovery"
	MFATotp     = "Totp"
)

// MFAResponse answers an MFA challenge with exactly one of a password, a
// recovery code or a TOTP code.
// Contract: MFAResponse
type MFAResponse struct {
	Password     *string `json:"password,omitempty"`
	RecoveryCode *string `json:"recovery_code,omitempty"`
	TotpCode     *string `json:"totp_code,omitempty"`
}

// Method is the MFA method the response uses.
func (r *MFAResponse) Method() string {
	switch {
	case r.Password != nil:
		return MFAPassword
	case r.RecoveryCode != nil:
		return MFARecovery
	}
	return MFATotp
}

// Validate checks that exactly one answer is given and bounded.
func (r *MFAResponse) Validate() error {
	n := 0
	for _, p := range []*string{r.Password, r.RecoveryCode, r.TotpCode} {
		if p != nil {
			n++
		}
	}
	if n != 1 {
		return ErrInvalidBody("body: exactly one of password, recovery_code or totp_code is required")
	}
	return FirstError(CheckOptionalLength("password", r.Password, 1, maxPasswordChars),
		CheckOptionalLength("recovery_code", r.RecoveryCode, 1, maxTokenChars),
		CheckOptionalLength("totp_code", r.TotpCode, 1, maxTokenChars))
}

// Login starts a session with an email and password, or finishes an MFA
// login with the ticket the first step gave and an MFA response (an
// authorised ticket, from email verification, needs no response).
// Contract: DataLogin
type Login struct {
	Email        string       `json:"email"`
	Password     string       `json:"password"`
	MFATicket    string       `json:"mfa_ticket"`
	MFAResponse  *MFAResponse `json:"mfa_response"`
	FriendlyName *string      `json:"friendly_name"`
}

// Validate checks that one of the two forms is complete.
func (d *Login) Validate() error {
	if err := CheckOptionalLength("friendly_name", d.FriendlyName, 0, maxFriendlyNameChars); err != nil {
		return err
	}
	if d.MFATicket != "" {
		if err := checkToken("mfa_ticket", d.MFATicket); err != nil {
			return err
		}
		if d.MFAResponse != nil {
			return d.MFAResponse.Validate()
		}
		return nil
	}
	return FirstError(checkEmail("email", d.Email), checkPassword("password", d.Password))
}

// Login results.
const (
	LoginSuccess  = "Success"
	LoginMFA      = "MFA"
	LoginDisabled = "Disabled"
)

// LoginResult is the answer to a login: a session (Success), an MFA
// challenge, or the news that the account is disabled. All are HTTP 200.
// Contract: ResponseLogin
type LoginResult struct {
	Result string `json:"result"`
	// Success: the new session, token included.
	*Session
	// MFA: the ticket to send back with a response, and the methods allowed.
	Ticket         string   `json:"ticket,omitempty"`
	AllowedMethods []string `json:"allowed_methods,omitempty"`
	// Disabled: whose account it is.
	DisabledUserID ID `json:"-"`
}

// MarshalJSON writes the variant of Result.
func (r LoginResult) MarshalJSON() ([]byte, error) {
	switch r.Result {
	case LoginSuccess:
		if r.Session == nil {
			return nil, fmt.Errorf("login result: Success without a session")
		}
		return json.Marshal(struct {
			Result string `json:"result"`
			*Session
		}{r.Result, r.Session})
	case LoginMFA:
		return json.Marshal(struct {
			Result         string   `json:"result"`
			Ticket         string   `json:"ticket"`
			AllowedMethods []string `json:"allowed_methods"`
		}{r.Result, r.Ticket, r.AllowedMethods})
	case LoginDisabled:
		return json.Marshal(struct {
			Result string `json:"result"`
			UserID ID     `json:"user_id"`
		}{r.Result, r.DisabledUserID})
	}
	return nil, fmt.Errorf("login result: unknown result %q", r.Result)
}

// SessionInfo is a session as listed to its owner: id and name only.
// Contract: SessionInfo
type SessionInfo struct {
	ID   ID     `json:"_id"`
	Name string `json:"name"`
}

// SessionEdit renames a session.
// Contract: DataEditSession
type SessionEdit struct {
	FriendlyName *string `json:"friendly_name"`
}

// Validate checks the field rules.
func (d *SessionEdit) Validate() error {
	if d.FriendlyName == nil {
		return ErrInvalidBody("friendly_name: required")
	}
	return CheckLength("friendly_name", *d.FriendlyName, 0, maxFriendlyNameChars)
}

// MFAStatus tells which second factors an account has.
// Contract: MultiFactorStatus
type MFAStatus struct {
	EmailOTP        bool `json:"email_otp"`
	TrustedHandover bool `json:"trusted_handover"`
	EmailMFA        bool `json:"email_mfa"`
	TotpMFA         bool `json:"totp_mfa"`
	SecurityKeyMFA  bool `json:"security_key_mfa"`
	RecoveryActive  bool `json:"recovery_active"`
}

// TotpSecret is a new TOTP secret to enter into an authenticator.
// Contract: ResponseTotpSecret
type TotpSecret struct {
	Secret string `json:"secret"`
}

// TicketView is an MFA ticket as sent to its holder.
// Contract: MFATicket
type TicketView struct {
	ID         ID     `json:"_id"`
	AccountID  ID     `json:"account_id"`
	Token      string `json:"token"`
	Validated  bool   `json:"validated"`
	Authorised bool   `json:"authorised"`
}

// View returns the ticket as sent to its holder.
func (t *MFATicket) View() *TicketView {
	return &TicketView{ID: t.ID, AccountID: t.AccountID, Token: t.Token, Validated: t.Validated, Authorised: t.Authorised}
}

// VerifyResult answers an email verification: an authorised ticket that
// logs the new account in, or nothing when an email change was confirmed.
// Contract: ResponseVerify
type VerifyResult struct {
	Ticket *TicketView `json:"ticket"`
}

// OnboardingStatus tells whether the session still has to choose a username.
// Contract: DataHello
type OnboardingStatus struct {
	Onboarding bool `json:"onboarding"`
}

// Onboard chooses the username of a new user.
// Contract: DataOnboard
type Onboard struct {
	Username string `json:"username"`
}

// Validate checks the length; the other username rules are the app's.
func (d *Onboard) Validate() error { return CheckLength("username", d.Username, 2, 32) }

// SettingsFetch names the settings to fetch; none means all.
// Contract: OptionsFetchSettings
type SettingsFetch struct {
	Keys []string `json:"keys"`
}

// Validate checks the field rules.
func (d *SettingsFetch) Validate() error {
	if d.Keys == nil {
		return ErrInvalidBody("keys: required")
	}
	return CheckCount("keys", len(d.Keys), 0, maxSettingKeys)
}

// SettingsSet is the body of /sync/settings/set: key → new value.
type SettingsSet map[string]string

// Validate checks the number and length of keys.
func (d *SettingsSet) Validate() error {
	if err := CheckCount("body", len(*d), 0, maxSettingKeys); err != nil {
		return err
	}
	for k := range *d {
		if err := CheckLength("key "+fmt.Sprintf("%q", k), k, 1, maxSettingKeyChars); err != nil {
			return err
		}
	}
	return nil
}
