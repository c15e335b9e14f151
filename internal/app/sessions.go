package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"ermine/internal/auth"
	"ermine/internal/batch"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// lockoutFor is how long an account is locked after its n-th failed
// login in a row: 1 minute at the third, 5 at the fourth, an hour from
// the fifth on.
func lockoutFor(n int) time.Duration {
	switch {
	case n >= 5:
		return time.Hour
	case n == 4:
		return 5 * time.Minute
	case n == 3:
		return time.Minute
	}
	return 0
}

// lockedOut reports whether failed logins locked the account for now.
func (a *App) lockedOut(acc *chat.Account) bool {
	l := acc.Lockout
	return l != nil && l.Expiry != nil && a.now().Before(l.Expiry.Time)
}

// recordFailure counts a failed login against the account.
func (a *App) recordFailure(ctx context.Context, id chat.ID) error {
	return a.updateAccount(ctx, id, func(acc *chat.Account) error {
		if acc.Lockout == nil {
			acc.Lockout = &chat.Lockout{}
		}
		acc.Lockout.Attempts++
		if d := lockoutFor(acc.Lockout.Attempts); d > 0 {
			t := a.timeAfter(d)
			acc.Lockout.Expiry = &t
		}
		return nil
	})
}

// loginState is what logging in and keeping sessions need: password
// hashing and policy, the captcha, and sessions' last sightings written
// behind.
type loginState struct {
	passwords *auth.Hasher
	policy    *auth.Policy
	captcha   Captcha // nil when captcha is off

	dummyOnce sync.Once // dummy is made on the first login of an unknown address
	dummy     string
	dummyErr  error

	lastSeen *batch.Coalescer[chat.ID, chat.Time] // sessions' last sightings, written in batches
}

// close writes the last sightings held back.
func (l *loginState) close() { l.lastSeen.Close() }

// dummyHash is verified against when a login names an unknown address,
// so that the answer takes as long as for a known one.
func (a *App) dummyHash(ctx context.Context) (string, error) {
	a.login.dummyOnce.Do(func() {
		a.login.dummy, a.login.dummyErr = a.login.passwords.Hash(context.WithoutCancel(ctx), auth.NewEmailToken())
	})
	return a.login.dummy, a.login.dummyErr
}

// Login handles POST /auth/session/login. The first form checks email
// and password; when the account has TOTP on, the result is an MFA
// challenge whose ticket comes back in the second form with a TOTP or
// recovery code. An authorised ticket (from email verification) logs in
// by itself. A disabled account gets the Disabled result after its
// credentials are checked. Failed attempts lock the account for a while.
func (a *App) Login(ctx context.Context, d chat.Login) (*chat.LoginResult, error) {
	var acc *chat.Account
	var err error
	if d.MFATicket != "" {
		acc, err = a.loginWithTicket(ctx, d)
	} else {
		acc, err = a.loginWithPassword(ctx, d)
		if err == nil && acc.MFA.TOTPSecret != "" {
			t := a.newTicket(acc.ID)
			if err := a.store.InsertTicket(ctx, t); err != nil {
				return nil, dbError("insert ticket", err)
			}
			return &chat.LoginResult{Result: chat.LoginMFA, Ticket: t.Token, AllowedMethods: loginMethods(acc)}, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if acc.Disabled {
		return &chat.LoginResult{Result: chat.LoginDisabled, DisabledUserID: acc.ID}, nil
	}
	name := "Unknown"
	if d.FriendlyName != nil && *d.FriendlyName != "" {
		name = *d.FriendlyName
	}
	se, err := a.newSession(ctx, acc.ID, name)
	if err != nil {
		return nil, err
	}
	return &chat.LoginResult{Result: chat.LoginSuccess, Session: se}, nil
}

// loginWithPassword checks the first login form and returns the account.
func (a *App) loginWithPassword(ctx context.Context, d chat.Login) (*chat.Account, error) {
	normalised, err := auth.NormaliseEmail(d.Email)
	if err != nil {
		return nil, err
	}
	acc, err := a.store.FetchAccountByEmail(ctx, normalised)
	if errors.Is(err, store.ErrNotFound) {
		dummy, err := a.dummyHash(ctx)
		if err != nil {
			return nil, fmt.Errorf("dummy hash: %w", err)
		}
		if _, err := a.login.passwords.Verify(ctx, d.Password, dummy); err != nil {
			return nil, fmt.Errorf("dummy verify: %w", err)
		}
		return nil, chat.ErrInvalidCredentials
	}
	if err != nil {
		return nil, dbError("fetch account", err)
	}
	if a.lockedOut(acc) {
		return nil, chat.ErrLockedOut
	}
	ok, err := a.checkPassword(ctx, acc, d.Password)
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := a.recordFailure(ctx, acc.ID); err != nil {
			return nil, err
		}
		return nil, chat.ErrInvalidCredentials
	}
	// The password rules apply at login too, so a password that has since
	// joined the compromised list must be changed (by a reset).
	if err := a.login.policy.Check(d.Password); err != nil {
		return nil, err
	}
	if !acc.Verified {
		return nil, chat.ErrUnverifiedAccount
	}
	if err := a.loginSucceeded(ctx, acc, d.Password); err != nil {
		return nil, err
	}
	return acc, nil
}

// loginSucceeded clears the failure count and replaces a hash made with
// outdated parameters.
func (a *App) loginSucceeded(ctx context.Context, acc *chat.Account, password string) error {
	rehash := password != "" && a.login.passwords.Outdated(acc.PasswordHash)
	if acc.Lockout == nil && !rehash {
		return nil
	}
	var hash string
	if rehash {
		var err error
		if hash, err = a.login.passwords.Hash(ctx, password); err != nil {
			return fmt.Errorf("rehash password: %w", err)
		}
	}
	return a.updateAccount(ctx, acc.ID, func(acc *chat.Account) error {
		acc.Lockout = nil
		if hash != "" {
			acc.PasswordHash = hash
		}
		return nil
	})
}

// loginWithTicket checks the second login form and returns the account.
// Only a right answer uses the ticket up; a wrong one counts as a failed
// login, so guessing codes runs into the lockout.
func (a *App) loginWithTicket(ctx context.Context, d chat.Login) (*chat.Account, error) {
	t, err := a.store.FetchTicketByToken(ctx, d.MFATicket)
	if errors.Is(err, store.ErrNotFound) || err == nil && (t.Validated || a.expired(t.Expiry)) {
		// Validated tickets authorise account actions, not logins.
		return nil, chat.ErrInvalidToken
	}
	if err != nil {
		return nil, dbError("fetch ticket", err)
	}
	acc, err := a.store.FetchAccount(ctx, t.AccountID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, chat.ErrInvalidToken
	}
	if err != nil {
		return nil, dbError("fetch account", err)
	}
	if a.lockedOut(acc) {
		return nil, chat.ErrLockedOut
	}
	if !t.Authorised {
		if d.MFAResponse == nil {
			return nil, chat.ErrInvalidBody("mfa_response: required with an MFA ticket")
		}
		if !contains(loginMethods(acc), d.MFAResponse.Method()) {
			return nil, chat.ErrDisallowedMFAMethod
		}
	}
	err = a.store.InTx(ctx, func(tx store.Store) error {
		t, err := tx.FetchTicketByToken(ctx, d.MFATicket)
		if errors.Is(err, store.ErrNotFound) {
			return chat.ErrInvalidToken // used meanwhile
		}
		if err != nil {
			return dbError("fetch ticket", err)
		}
		if !t.Authorised {
			if err := a.answerMFA(ctx, tx, acc.ID, *d.MFAResponse); err != nil {
				return err
			}
		}
		return dbError("delete ticket", tx.DeleteTicket(ctx, t.ID))
	})
	if errors.Is(err, chat.ErrInvalidToken) && !t.Authorised {
		if ferr := a.recordFailure(ctx, acc.ID); ferr != nil {
			return nil, ferr
		}
	}
	if err != nil {
		return nil, err
	}
	if err := a.loginSucceeded(ctx, acc, ""); err != nil {
		return nil, err
	}
	return acc, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// newSession creates a session for the user with a fresh token.
func (a *App) newSession(ctx context.Context, user chat.ID, name string) (*chat.Session, error) {
	now := chat.TimeOf(a.now())
	se := &chat.Session{ID: chat.NewID(), UserID: user, Token: auth.NewSessionToken(), Name: name, LastSeen: &now}
	if err := a.store.InsertSession(ctx, se); err != nil {
		return nil, dbError("insert session", err)
	}
	return se, nil
}

// FetchSessions handles GET /auth/session/all.
func (a *App) FetchSessions(ctx context.Context, c *Caller) ([]chat.SessionInfo, error) {
	all, err := a.store.FetchSessions(ctx, accountID(c))
	if err != nil {
		return nil, dbError("fetch sessions", err)
	}
	out := make([]chat.SessionInfo, len(all))
	for i, se := range all {
		out[i] = chat.SessionInfo{ID: se.ID, Name: se.Name}
	}
	return out, nil
}

// ownSession loads one of the caller's sessions; others' are NotFound.
func ownSession(ctx context.Context, st store.Store, c *Caller, id chat.ID) (*chat.Session, error) {
	se, err := st.FetchSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && se.UserID != accountID(c) {
		return nil, chat.ErrNotFound
	}
	if err != nil {
		return nil, dbError("fetch session", err)
	}
	return se, nil
}

// EditSession handles PATCH /auth/session/{id}: it renames a session.
func (a *App) EditSession(ctx context.Context, c *Caller, id chat.ID, d chat.SessionEdit) (*chat.SessionInfo, error) {
	var out *chat.SessionInfo
	err := a.store.InTx(ctx, func(tx store.Store) error {
		se, err := ownSession(ctx, tx, c, id)
		if err != nil {
			return err
		}
		se.Name = *d.FriendlyName
		if err := tx.UpdateSession(ctx, se); err != nil {
			return dbError("update session", err)
		}
		out = &chat.SessionInfo{ID: se.ID, Name: se.Name}
		return nil
	})
	return out, err
}

// RevokeSession handles DELETE /auth/session/{id}.
func (a *App) RevokeSession(ctx context.Context, c *Caller, id chat.ID, ticket string) error {
	err := a.store.InTx(ctx, func(tx store.Store) error {
		if _, err := ownSession(ctx, tx, c, id); err != nil {
			return err
		}
		if err := a.mfaGate(ctx, tx, c, ticket, chat.ErrMissingHeaders); err != nil {
			return err
		}
		return notFound(tx.DeleteSession(ctx, id))
	})
	if err != nil {
		return err
	}
	a.publishSessionDeleted(ctx, accountID(c), id)
	return nil
}

// RevokeAllSessions handles DELETE /auth/session/all: every session of
// the caller's but the calling one ends, or that one too with revokeSelf.
func (a *App) RevokeAllSessions(ctx context.Context, c *Caller, revokeSelf bool, ticket string) error {
	if err := a.store.InTx(ctx, func(tx store.Store) error {
		return a.mfaGate(ctx, tx, c, ticket, chat.ErrMissingHeaders)
	}); err != nil {
		return err
	}
	var except *chat.ID
	if !revokeSelf {
		id := c.Session.ID
		except = &id
	}
	keep := chat.ID("")
	if except != nil {
		keep = *except
	}
	removed, err := a.store.DeleteSessions(ctx, accountID(c), keep)
	if err != nil {
		return dbError("delete sessions", err)
	}
	if len(removed) > 0 {
		a.publishSessionsDeleted(ctx, accountID(c), except)
	}
	return nil
}

// Logout handles POST /auth/session/logout: the calling session ends.
func (a *App) Logout(ctx context.Context, c *Caller) error {
	err := a.store.DeleteSession(ctx, c.Session.ID)
	if errors.Is(err, store.ErrNotFound) {
		return chat.ErrInvalidSession
	}
	if err != nil {
		return dbError("delete session", err)
	}
	a.publishSessionDeleted(ctx, accountID(c), c.Session.ID)
	return nil
}

// publishSessionDeleted tells the user's connections that one session
// ended; the gateway logs out the connections of that session.
func (a *App) publishSessionDeleted(ctx context.Context, user, session chat.ID) {
	a.publish(ctx, chat.AuthEvent{
		Type: chat.EvAuth, EventType: chat.AuthDeleteSession, UserID: user, SessionID: session,
	}, event.Private(user))
}
