package app

import (
	"context"
	"errors"

	"ermine/internal/auth"
	"ermine/internal/chat"
	"ermine/internal/store"
)

// totpIssuer labels Ermine's keys in authenticator apps.
const totpIssuer = "Ermine"

// newTicket returns an unvalidated ticket for the account, expiring after
// ticketTTL.
func (a *App) newTicket(account chat.ID) *chat.MFATicket {
	return &chat.MFATicket{ID: chat.NewID(), AccountID: account, Token: auth.NewTicketToken(),
		Expiry: a.timeAfter(ticketTTL)}
}

// loginMethods are the MFA methods an account answers challenges with:
// its TOTP and, while it has any, a recovery code; a password while it
// has no TOTP.
func loginMethods(acc *chat.Account) []string {
	if acc.MFA.TOTPSecret == "" {
		return []string{chat.MFAPassword}
	}
	methods := []string{chat.MFATotp}
	if len(acc.MFA.RecoveryCodes) > 0 {
		methods = append(methods, chat.MFARecovery)
	}
	return methods
}

// answerMFA checks an MFA response against the account, within tx so that
// a TOTP step or recovery code is used at most once even under concurrent
// requests. The method must be one of loginMethods. A wrong password is
// chat.ErrInvalidCredentials; a wrong or reused code chat.ErrInvalidToken.
func (a *App) answerMFA(ctx context.Context, tx store.Store, id chat.ID, r chat.MFAResponse) error {
	acc, err := a.fetchAccount(ctx, tx, id)
	if err != nil {
		return err
	}
	if !contains(loginMethods(acc), r.Method()) {
		return chat.ErrDisallowedMFAMethod
	}
	switch r.Method() {
	case chat.MFAPassword:
		return a.requirePassword(ctx, acc, *r.Password)
	case chat.MFARecovery:
		i := auth.MatchRecoveryCode(acc.MFA.RecoveryCodes, *r.RecoveryCode)
		if i < 0 {
			return chat.ErrInvalidToken
		}
		acc.MFA.RecoveryCodes = append(acc.MFA.RecoveryCodes[:i:i], acc.MFA.RecoveryCodes[i+1:]...)
	default:
		step, ok := auth.CheckTOTP(acc.MFA.TOTPSecret, *r.TotpCode, a.now(), acc.MFA.TOTPLastStep)
		if !ok {
			return chat.ErrInvalidToken
		}
		acc.MFA.TOTPLastStep = step
	}
	return dbError("update account", tx.UpdateAccount(ctx, acc))
}

// consumeTicket uses up a validated ticket of the account, within tx. A
// missing header is chat.ErrMissingHeaders; an unknown, unvalidated,
// expired or foreign ticket chat.ErrInvalidToken.
func (a *App) consumeTicket(ctx context.Context, tx store.Store, token string, account chat.ID) error {
	if token == "" {
		return chat.ErrMissingHeaders
	}
	t, err := tx.FetchTicketByToken(ctx, token)
	if errors.Is(err, store.ErrNotFound) {
		return chat.ErrInvalidToken
	}
	if err != nil {
		return dbError("fetch ticket", err)
	}
	if t.AccountID != account || !t.Validated || !auth.Equal(t.Token, token) || a.expired(t.Expiry) {
		return chat.ErrInvalidToken
	}
	return dbError("delete ticket", tx.DeleteTicket(ctx, t.ID))
}

// mfaGate guards an action the reference's HEAD puts behind a validated
// MFA ticket (revoking sessions, changing the email): a ticket sent is
// used up and must be the caller's and validated; without one, an account
// with MFA enabled gets missing, and one without may go ahead (the
// published clients send none).
func (a *App) mfaGate(ctx context.Context, tx store.Store, c *Caller, ticket string, missing error) error {
	id := accountID(c)
	if ticket != "" {
		return a.consumeTicket(ctx, tx, ticket, id)
	}
	acc, err := a.fetchAccount(ctx, tx, id)
	if err != nil {
		return err
	}
	if acc.MFA.TOTPSecret != "" {
		return missing
	}
	return nil
}

// withTicket runs change on the caller's account after using up their
// validated ticket, in one transaction, and saves the account.
func (a *App) withTicket(ctx context.Context, c *Caller, ticket string, change func(*chat.Account) error) error {
	id := accountID(c)
	return a.store.InTx(ctx, func(tx store.Store) error {
		if err := a.consumeTicket(ctx, tx, ticket, id); err != nil {
			return err
		}
		acc, err := a.fetchAccount(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := change(acc); err != nil {
			return err
		}
		return dbError("update account", tx.UpdateAccount(ctx, acc))
	})
}

// CreateTicket handles PUT /auth/mfa/ticket: a right MFA response gives a
// validated ticket, valid for five minutes and one sensitive action.
func (a *App) CreateTicket(ctx context.Context, c *Caller, r chat.MFAResponse) (*chat.TicketView, error) {
	id := accountID(c)
	acc, err := a.fetchAccount(ctx, a.store, id)
	if err != nil {
		return nil, err
	}
	if a.lockedOut(acc) {
		return nil, chat.ErrLockedOut
	}
	if !contains(loginMethods(acc), r.Method()) {
		return nil, chat.ErrDisallowedMFAMethod
	}
	if r.Method() == chat.MFAPassword {
		// Hash outside the transaction: it is slow and writes nothing.
		err = a.requirePassword(ctx, acc, *r.Password)
	}
	t := a.newTicket(id)
	t.Validated = true
	if err == nil {
		err = a.store.InTx(ctx, func(tx store.Store) error {
			if r.Method() != chat.MFAPassword {
				if err := a.answerMFA(ctx, tx, id, r); err != nil {
					return err
				}
			}
			return dbError("insert ticket", tx.InsertTicket(ctx, t))
		})
	}
	if errors.Is(err, chat.ErrInvalidCredentials) || errors.Is(err, chat.ErrInvalidToken) {
		if ferr := a.recordFailure(ctx, id); ferr != nil {
			return nil, ferr
		}
	}
	if err != nil {
		return nil, err
	}
	// A right answer ends the run of failures, as a login does.
	if err := a.loginSucceeded(ctx, acc, ""); err != nil {
		return nil, err
	}
	return t.View(), nil
}

// MFAStatus handles GET /auth/mfa/.
func (a *App) MFAStatus(ctx context.Context, c *Caller) (*chat.MFAStatus, error) {
	acc, err := a.fetchAccount(ctx, a.store, accountID(c))
	if err != nil {
		return nil, err
	}
	return &chat.MFAStatus{TotpMFA: acc.MFA.TOTPSecret != "", RecoveryActive: len(acc.MFA.RecoveryCodes) > 0}, nil
}

// MFAMethods handles GET /auth/mfa/methods.
func (a *App) MFAMethods(ctx context.Context, c *Caller) ([]string, error) {
	acc, err := a.fetchAccount(ctx, a.store, accountID(c))
	if err != nil {
		return nil, err
	}
	return loginMethods(acc), nil
}

// FetchRecoveryCodes handles POST /auth/mfa/recovery (validated ticket).
func (a *App) FetchRecoveryCodes(ctx context.Context, c *Caller, ticket string) ([]string, error) {
	var codes []string
	err := a.withTicket(ctx, c, ticket, func(acc *chat.Account) error {
		codes = append([]string{}, acc.MFA.RecoveryCodes...)
		return nil
	})
	return codes, err
}

// GenerateRecoveryCodes handles PATCH /auth/mfa/recovery (validated
// ticket): a new set of ten codes replaces the old.
func (a *App) GenerateRecoveryCodes(ctx context.Context, c *Caller, ticket string) ([]string, error) {
	codes := auth.NewRecoveryCodes()
	err := a.withTicket(ctx, c, ticket, func(acc *chat.Account) error {
		acc.MFA.RecoveryCodes = codes
		return nil
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// GenerateTOTPSecret handles POST /auth/mfa/totp (validated ticket): a
// new secret waits to be confirmed by EnableTOTP.
func (a *App) GenerateTOTPSecret(ctx context.Context, c *Caller, ticket string) (*chat.TotpSecret, error) {
	var secret string
	err := a.withTicket(ctx, c, ticket, func(acc *chat.Account) error {
		if acc.MFA.TOTPSecret != "" {
			return chat.ErrTotpAlreadyEnabled
		}
		s, err := auth.NewTOTPSecret(totpIssuer, acc.Email)
		if err != nil {
			return err
		}
		acc.MFA.TOTPPending, secret = s, s
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &chat.TotpSecret{Secret: secret}, nil
}

// EnableTOTP handles PUT /auth/mfa/totp: a current code of the pending
// secret turns TOTP on. An account without recovery codes gets a set,
// which POST /auth/mfa/recovery shows.
func (a *App) EnableTOTP(ctx context.Context, c *Caller, r chat.MFAResponse) error {
	if r.Method() != chat.MFATotp {
		return chat.ErrDisallowedMFAMethod
	}
	return a.updateAccount(ctx, accountID(c), func(acc *chat.Account) error {
		if acc.MFA.TOTPSecret != "" {
			return chat.ErrTotpAlreadyEnabled
		}
		if acc.MFA.TOTPPending == "" {
			return chat.ErrInvalidToken
		}
		step, ok := auth.CheckTOTP(acc.MFA.TOTPPending, *r.TotpCode, a.now(), 0)
		if !ok {
			return chat.ErrInvalidToken
		}
		acc.MFA.TOTPSecret, acc.MFA.TOTPPending, acc.MFA.TOTPLastStep = acc.MFA.TOTPPending, "", step
		if len(acc.MFA.RecoveryCodes) == 0 {
			acc.MFA.RecoveryCodes = auth.NewRecoveryCodes()
		}
		return nil
	})
}

// DisableTOTP handles DELETE /auth/mfa/totp (validated ticket): TOTP and
// the recovery codes that back it are removed.
func (a *App) DisableTOTP(ctx context.Context, c *Caller, ticket string) error {
	return a.withTicket(ctx, c, ticket, func(acc *chat.Account) error {
		acc.MFA.TOTPSecret, acc.MFA.TOTPPending, acc.MFA.RecoveryCodes = "", "", nil
		return nil
	})
}
