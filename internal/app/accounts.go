package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"ermine/internal/auth"
	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/store"
)

// Lifetimes of the account tokens and tickets (behaviour.md §9).
const (
	verifyTTL     = 24 * time.Hour // email verification and email change links
	resetTTL      = time.Hour      // password reset links
	deletionTTL   = 24 * time.Hour // account deletion links
	deletionDelay = 7 * 24 * time.Hour
	ticketTTL     = 5 * time.Minute
)

// timeAfter is the clock's time plus d, as stored.
func (a *App) timeAfter(d time.Duration) chat.Time { return chat.TimeOf(a.now().Add(d)) }

// expired reports whether a stored expiry has passed.
func (a *App) expired(t chat.Time) bool { return !a.now().Before(t.Time) }

// accountID is the account behind a session: the user id equals it.
func accountID(c *Caller) chat.ID { return c.Session.UserID }

// fetchAccount loads the caller's account.
func (a *App) fetchAccount(ctx context.Context, st store.Store, id chat.ID) (*chat.Account, error) {
	acc, err := st.FetchAccount(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		// The session outlived its account (deleted meanwhile).
		return nil, chat.ErrInvalidSession
	}
	if err != nil {
		return nil, dbError("fetch account", err)
	}
	return acc, nil
}

// checkPassword reports whether password is the account's. A stored
// hash that cannot be read (accounts made without a password) matches
// nothing.
func (a *App) checkPassword(ctx context.Context, acc *chat.Account, password string) (bool, error) {
	ok, err := a.login.passwords.Verify(ctx, password, acc.PasswordHash)
	if errors.Is(err, auth.ErrMalformedHash) {
		return false, nil
	}
	return ok, err
}

// requirePassword returns chat.ErrInvalidCredentials unless password is
// the account's.
func (a *App) requirePassword(ctx context.Context, acc *chat.Account, password string) error {
	ok, err := a.checkPassword(ctx, acc, password)
	if err != nil {
		return err
	}
	if !ok {
		return chat.ErrInvalidCredentials
	}
	return nil
}

// CreateAccount handles POST /auth/account/create. It answers the same
// (nil) whether or not the address already has an account, so addresses
// cannot be enumerated; an existing account's holder gets a mail instead.
// Checks run in the reference order: captcha, email, password, invite.
func (a *App) CreateAccount(ctx context.Context, d chat.AccountCreate) error {
	if err := a.checkCaptcha(ctx, d.Captcha); err != nil {
		return err
	}
	normalised, err := auth.NormaliseEmail(d.Email)
	if err != nil {
		return err
	}
	if err := a.login.policy.Check(d.Password); err != nil {
		return err
	}
	invite := ""
	if a.settings.InviteOnly {
		if d.Invite == nil || *d.Invite == "" {
			return chat.ErrMissingInvite
		}
		invite = *d.Invite
		if _, err := a.usableInvite(ctx, a.store, invite); err != nil {
			return err
		}
	}
	// Hash before looking the address up, so that the answer takes as
	// long whether or not the address is taken.
	hash, err := a.login.passwords.Hash(ctx, d.Password)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	existing, err := a.store.FetchAccountByEmail(ctx, normalised)
	if err == nil {
		return a.remindExisting(ctx, existing)
	}
	if !errors.Is(err, store.ErrNotFound) {
		return dbError("fetch account", err)
	}
	acc := &chat.Account{ID: chat.NewID(), Email: d.Email, EmailNormalised: normalised, PasswordHash: hash,
		Verified: !a.mailEnabled()}
	if a.mailEnabled() {
		acc.Verification = &chat.AccountToken{Token: auth.NewEmailToken(), Expiry: a.timeAfter(verifyTTL)}
	}
	err = a.store.InTx(ctx, func(tx store.Store) error {
		if invite != "" {
			inv, err := a.usableInvite(ctx, tx, invite)
			if err != nil {
				return err
			}
			inv.Used, inv.UsedBy = true, &acc.ID
			if err := tx.UpdateRegistrationInvite(ctx, inv); err != nil {
				return dbError("use invite", err)
			}
		}
		return tx.InsertAccount(ctx, acc)
	})
	if errors.Is(err, store.ErrConflict) {
		// The address was registered meanwhile; answer as for any taken one.
		return nil
	}
	if err != nil {
		return dbError("create account", err)
	}
	if a.mailEnabled() {
		// A mail server that is down must not stop people signing up:
		// the mail is retried, and reverify sends another.
		a.sendRetrying(ctx, acc.Email, verificationSubject, a.verificationBody(acc.Verification.Token))
	}
	return nil
}

// usableInvite returns an unused registration invite, or ErrInvalidInvite.
func (a *App) usableInvite(ctx context.Context, st store.Store, code string) (*chat.RegistrationInvite, error) {
	inv, err := st.FetchRegistrationInvite(ctx, code)
	if errors.Is(err, store.ErrNotFound) || err == nil && inv.Used {
		return nil, chat.ErrInvalidInvite
	}
	if err != nil {
		return nil, dbError("fetch invite", err)
	}
	return inv, nil
}

// remindExisting mails the holder of an address someone tried to
// register again: a fresh verification link when it is unverified, else
// a password reset link.
func (a *App) remindExisting(ctx context.Context, acc *chat.Account) error {
	if !a.mailEnabled() {
		return nil
	}
	tok := &chat.AccountToken{Token: auth.NewEmailToken()}
	if acc.Verified {
		tok.Expiry = a.timeAfter(resetTTL)
	} else {
		tok.Expiry = a.timeAfter(verifyTTL)
	}
	err := a.updateAccount(ctx, acc.ID, func(acc *chat.Account) error {
		if acc.Verified {
			acc.PasswordReset = tok
		} else {
			acc.Verification = tok
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Answered like a new registration, so a mail failure must not show
	// either: it is retried in the background.
	if acc.Verified {
		a.sendRetrying(ctx, acc.Email, alreadyRegisteredSubject, a.alreadyRegisteredBody(tok.Token))
	} else {
		a.sendRetrying(ctx, acc.Email, verificationSubject, a.verificationBody(tok.Token))
	}
	return nil
}

// updateAccount loads an account in a transaction, lets change edit it
// and saves it.
func (a *App) updateAccount(ctx context.Context, id chat.ID, change func(*chat.Account) error) error {
	return a.store.InTx(ctx, func(tx store.Store) error {
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

// FetchAccount handles GET /auth/account/.
func (a *App) FetchAccount(ctx context.Context, c *Caller) (*chat.AccountInfo, error) {
	acc, err := a.fetchAccount(ctx, a.store, accountID(c))
	if err != nil {
		return nil, err
	}
	return &chat.AccountInfo{ID: acc.ID, Email: acc.Email}, nil
}

// ChangePassword handles PATCH /auth/account/change/password. Every
// other session of the account ends (their connections get Logout): a
// password is changed because it may be known to someone else. The
// calling session is kept.
func (a *App) ChangePassword(ctx context.Context, c *Caller, d chat.PasswordChange) error {
	acc, err := a.fetchAccount(ctx, a.store, accountID(c))
	if err != nil {
		return err
	}
	if err := a.requirePassword(ctx, acc, d.CurrentPassword); err != nil {
		return err
	}
	if err := a.login.policy.Check(d.Password); err != nil {
		return err
	}
	hash, err := a.login.passwords.Hash(ctx, d.Password)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	var removed []chat.ID
	err = a.store.InTx(ctx, func(tx store.Store) error {
		acc, err := a.fetchAccount(ctx, tx, acc.ID)
		if err != nil {
			return err
		}
		acc.PasswordHash = hash
		acc.PasswordReset = nil
		if err := tx.UpdateAccount(ctx, acc); err != nil {
			return dbError("update account", err)
		}
		keep := chat.ID("")
		if c.Session != nil {
			keep = c.Session.ID
		}
		removed, err = tx.DeleteSessions(ctx, acc.ID, keep)
		return dbError("delete sessions", err)
	})
	if err != nil {
		return err
	}
	if len(removed) > 0 {
		var except *chat.ID
		if c.Session != nil {
			id := c.Session.ID
			except = &id
		}
		a.publishSessionsDeleted(ctx, acc.ID, except)
	}
	return nil
}

// ChangeEmail handles PATCH /auth/account/change/email. With mail on, the
// new address gets a link and the change happens when it is opened;
// without, it happens at once.
func (a *App) ChangeEmail(ctx context.Context, c *Caller, d chat.EmailChange, ticket string) error {
	acc, err := a.fetchAccount(ctx, a.store, accountID(c))
	if err != nil {
		return err
	}
	// With MFA enabled a validated ticket is needed too (reference HEAD).
	if err := a.store.InTx(ctx, func(tx store.Store) error {
		return a.mfaGate(ctx, tx, c, ticket, chat.ErrInvalidCredentials)
	}); err != nil {
		return err
	}
	if err := a.requirePassword(ctx, acc, d.CurrentPassword); err != nil {
		return err
	}
	normalised, err := auth.NormaliseEmail(d.Email)
	if err != nil {
		return err
	}
	if !a.mailEnabled() {
		err := a.updateAccount(ctx, acc.ID, func(acc *chat.Account) error {
			acc.Email, acc.EmailNormalised = d.Email, normalised
			return nil
		})
		if errors.Is(err, store.ErrConflict) {
			return chat.ErrIncorrectData("email")
		}
		return err
	}
	tok := &chat.AccountToken{Token: auth.NewEmailToken(), Expiry: a.timeAfter(verifyTTL), NewEmail: d.Email}
	if err := a.updateAccount(ctx, acc.ID, func(acc *chat.Account) error {
		acc.Verification = tok
		return nil
	}); err != nil {
		return err
	}
	return a.sendEmailChange(ctx, d.Email, tok.Token)
}

// VerifyEmail handles POST /auth/account/verify/{code}: it verifies a new
// account and returns an authorised ticket that logs it in, or confirms
// an email change and returns nil.
func (a *App) VerifyEmail(ctx context.Context, code string) (*chat.VerifyResult, error) {
	var res *chat.VerifyResult
	err := a.store.InTx(ctx, func(tx store.Store) error {
		acc, err := tx.FetchAccountByToken(ctx, code)
		if errors.Is(err, store.ErrNotFound) {
			return chat.ErrInvalidToken
		}
		if err != nil {
			return dbError("fetch account", err)
		}
		v := acc.Verification
		if v == nil || !auth.Equal(v.Token, code) || a.expired(v.Expiry) {
			return chat.ErrInvalidToken
		}
		acc.Verification = nil
		if v.NewEmail != "" {
			normalised, err := auth.NormaliseEmail(v.NewEmail)
			if err != nil {
				return err
			}
			acc.Email, acc.EmailNormalised = v.NewEmail, normalised
			err = tx.UpdateAccount(ctx, acc)
			if errors.Is(err, store.ErrConflict) {
				return chat.ErrIncorrectData("email")
			}
			return dbError("update account", err)
		}
		acc.Verified = true
		if err := tx.UpdateAccount(ctx, acc); err != nil {
			return dbError("update account", err)
		}
		t := a.newTicket(acc.ID)
		t.Authorised = true
		if err := tx.InsertTicket(ctx, t); err != nil {
			return dbError("insert ticket", err)
		}
		res = &chat.VerifyResult{Ticket: t.View()}
		return nil
	})
	return res, err
}

// accountToMail checks the captcha of a request that names only an email
// address and finds its account. It returns nil and no error when no mail
// is to be sent (mail is off, or no account has the address): the caller
// answers the same either way, so addresses cannot be enumerated.
func (a *App) accountToMail(ctx context.Context, d chat.EmailRequest) (*chat.Account, error) {
	if err := a.checkCaptcha(ctx, d.Captcha); err != nil {
		return nil, err
	}
	normalised, err := auth.NormaliseEmail(d.Email)
	if err != nil {
		return nil, err
	}
	if !a.mailEnabled() {
		return nil, nil
	}
	acc, err := a.store.FetchAccountByEmail(ctx, normalised)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, dbError("fetch account", err)
	}
	return acc, nil
}

// ResendVerification handles POST /auth/account/reverify. It answers nil
// whatever the address, so addresses cannot be enumerated.
func (a *App) ResendVerification(ctx context.Context, d chat.EmailRequest) error {
	acc, err := a.accountToMail(ctx, d)
	if acc == nil || err != nil {
		return err
	}
	if acc.Verified {
		return nil
	}
	return a.remindExisting(ctx, acc)
}

// SendPasswordReset handles POST /auth/account/reset_password. It answers
// nil whatever the address, so addresses cannot be enumerated.
func (a *App) SendPasswordReset(ctx context.Context, d chat.EmailRequest) error {
	acc, err := a.accountToMail(ctx, d)
	if acc == nil || err != nil {
		return err
	}
	tok := &chat.AccountToken{Token: auth.NewEmailToken(), Expiry: a.timeAfter(resetTTL)}
	if err := a.updateAccount(ctx, acc.ID, func(acc *chat.Account) error {
		acc.PasswordReset = tok
		return nil
	}); err != nil {
		return err
	}
	return a.sendPasswordReset(ctx, acc.Email, tok.Token)
}

// ResetPassword handles PATCH /auth/account/reset_password: a mailed
// token sets a new password, clears the lockout and, when asked, ends
// every session.
func (a *App) ResetPassword(ctx context.Context, d chat.PasswordReset) error {
	validToken := func(acc *chat.Account) bool {
		r := acc.PasswordReset
		return r != nil && auth.Equal(r.Token, d.Token) && !a.expired(r.Expiry)
	}
	acc, err := a.store.FetchAccountByToken(ctx, d.Token)
	if errors.Is(err, store.ErrNotFound) || err == nil && !validToken(acc) {
		return chat.ErrInvalidToken
	}
	if err != nil {
		return dbError("fetch account", err)
	}
	if err := a.login.policy.Check(d.Password); err != nil {
		return err
	}
	hash, err := a.login.passwords.Hash(ctx, d.Password)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	var removed []chat.ID
	err = a.store.InTx(ctx, func(tx store.Store) error {
		acc, err := a.fetchAccount(ctx, tx, acc.ID)
		if err != nil {
			return err
		}
		if !validToken(acc) {
			return chat.ErrInvalidToken // used meanwhile
		}
		acc.PasswordHash, acc.PasswordReset, acc.Lockout = hash, nil, nil
		// Opening the mailed link proves the address is the holder's.
		acc.Verified = true
		if err := tx.UpdateAccount(ctx, acc); err != nil {
			return dbError("update account", err)
		}
		if d.RemoveSessions {
			removed, err = tx.DeleteSessions(ctx, acc.ID, "")
			return dbError("delete sessions", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(removed) > 0 {
		a.publishSessionsDeleted(ctx, acc.ID, nil)
	}
	return nil
}

// DisableAccount handles POST /auth/account/disable: with a validated
// MFA ticket the account is disabled and every session ends.
func (a *App) DisableAccount(ctx context.Context, c *Caller, ticket string) error {
	id := accountID(c)
	err := a.store.InTx(ctx, func(tx store.Store) error {
		if err := a.consumeTicket(ctx, tx, ticket, id); err != nil {
			return err
		}
		acc, err := a.fetchAccount(ctx, tx, id)
		if err != nil {
			return err
		}
		acc.Disabled = true
		if err := tx.UpdateAccount(ctx, acc); err != nil {
			return dbError("update account", err)
		}
		_, err = tx.DeleteSessions(ctx, id, "")
		return dbError("delete sessions", err)
	})
	if err != nil {
		return err
	}
	a.publishSessionsDeleted(ctx, id, nil)
	return nil
}

// DeleteAccount handles POST /auth/account/delete: with a validated MFA
// ticket, a confirmation link is mailed; without mail the deletion is
// scheduled at once, as if confirmed.
func (a *App) DeleteAccount(ctx context.Context, c *Caller, ticket string) error {
	id := accountID(c)
	tok := &chat.AccountToken{Token: auth.NewEmailToken(), Expiry: a.timeAfter(deletionTTL)}
	var email string
	err := a.store.InTx(ctx, func(tx store.Store) error {
		if err := a.consumeTicket(ctx, tx, ticket, id); err != nil {
			return err
		}
		acc, err := a.fetchAccount(ctx, tx, id)
		if err != nil {
			return err
		}
		email = acc.Email
		if !a.mailEnabled() {
			return a.scheduleDeletion(ctx, tx, acc)
		}
		acc.Deletion = tok
		return dbError("update account", tx.UpdateAccount(ctx, acc))
	})
	if err != nil {
		return err
	}
	if !a.mailEnabled() {
		a.publishSessionsDeleted(ctx, id, nil)
		return nil
	}
	return a.sendDeletion(ctx, email, tok.Token)
}

// ConfirmDeletion handles PUT /auth/account/delete: the mailed token
// schedules the deletion a week later and disables the account now.
func (a *App) ConfirmDeletion(ctx context.Context, d chat.AccountDeletion) error {
	var id chat.ID
	err := a.store.InTx(ctx, func(tx store.Store) error {
		acc, err := tx.FetchAccountByToken(ctx, d.Token)
		if errors.Is(err, store.ErrNotFound) {
			return chat.ErrInvalidToken
		}
		if err != nil {
			return dbError("fetch account", err)
		}
		t := acc.Deletion
		if t == nil || !auth.Equal(t.Token, d.Token) || a.expired(t.Expiry) {
			return chat.ErrInvalidToken
		}
		id = acc.ID
		return a.scheduleDeletion(ctx, tx, acc)
	})
	if err != nil {
		return err
	}
	a.publishSessionsDeleted(ctx, id, nil)
	return nil
}

// scheduleDeletion disables acc, ends its sessions and sets it to be
// deleted after deletionDelay.
func (a *App) scheduleDeletion(ctx context.Context, tx store.Store, acc *chat.Account) error {
	after := a.timeAfter(deletionDelay)
	acc.Disabled, acc.Deletion, acc.DeleteAfter = true, nil, &after
	if err := tx.UpdateAccount(ctx, acc); err != nil {
		return dbError("update account", err)
	}
	_, err := tx.DeleteSessions(ctx, acc.ID, "")
	return dbError("delete sessions", err)
}

// RunDueDeletions carries out the account deletions whose week has
// passed and returns how many it did. Each is its own transaction: a
// failure is logged and the others go on. The server calls it
// periodically.
func (a *App) RunDueDeletions(ctx context.Context) (int, error) {
	due, err := a.store.FetchAccountsDueForDeletion(ctx, chat.TimeOf(a.now()))
	if err != nil {
		return 0, dbError("fetch due deletions", err)
	}
	done := 0
	var errs []error
	for _, acc := range due {
		if err := a.purgeAccount(ctx, acc.ID); err != nil {
			a.log.ErrorContext(ctx, "delete account", "account", acc.ID, "err", err)
			errs = append(errs, err)
			continue
		}
		done++
	}
	return done, errors.Join(errs...)
}

// deletedUsername is the name a deleted user keeps, so that their
// messages still show an author.
const deletedUsername = "Deleted User"

// purgeAccount removes an account and what only it needs (sessions,
// tickets, settings-bearing relations) and anonymises its user: the name
// becomes "Deleted User", the Deleted flag is set and the avatar, status,
// display name and profile are cleared. Messages stay.
func (a *App) purgeAccount(ctx context.Context, id chat.ID) error {
	var user *chat.User
	var others []chat.ID
	err := a.store.InTx(ctx, func(tx store.Store) error {
		if _, err := tx.DeleteSessions(ctx, id, ""); err != nil {
			return dbError("delete sessions", err)
		}
		rels, err := tx.FetchRelationships(ctx, id)
		if err != nil {
			return dbError("fetch relationships", err)
		}
		for _, r := range rels {
			if err := tx.SetRelationship(ctx, id, r.ID, chat.RelationNone); err != nil {
				return dbError("remove relationship", err)
			}
			if err := tx.SetRelationship(ctx, r.ID, id, chat.RelationNone); err != nil {
				return dbError("remove relationship", err)
			}
			others = append(others, r.ID)
		}
		u, err := tx.FetchUser(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound): // never onboarded
		case err != nil:
			return dbError("fetch user", err)
		default:
			if user, err = a.anonymise(ctx, tx, u); err != nil {
				return err
			}
		}
		return dbError("delete account", tx.DeleteAccount(ctx, id))
	})
	if err != nil {
		return err
	}
	a.publishSessionsDeleted(ctx, id, nil)
	if user == nil {
		return nil
	}
	if err := a.publishUserUpdate(ctx, id,
		chat.Partial{"username": user.Username, "discriminator": user.Discriminator, "flags": user.Flags},
		[]string{"Avatar", "StatusText", "StatusPresence", "ProfileContent", "ProfileBackground", "DisplayName"}); err != nil {
		a.log.ErrorContext(ctx, "announce deleted user", "err", err)
	}
	for _, other := range others {
		viewer, err := a.store.FetchUser(ctx, other)
		if err != nil {
			continue // the other side is gone too
		}
		seen, err := a.viewUser(ctx, viewer, user)
		if err != nil {
			a.log.ErrorContext(ctx, "view deleted user", "err", err)
			continue
		}
		a.publish(ctx, chat.UserRelationshipEvent{
			Type: chat.EvUserRelationship, ID: other, User: seen, Status: chat.RelationNone,
		}, event.Private(other))
	}
	return nil
}

// anonymise renames a user to deletedUsername, sets the Deleted flag and
// clears what identified them.
func (a *App) anonymise(ctx context.Context, tx store.Store, u *chat.User) (*chat.User, error) {
	disc, err := pickDiscriminatorIn(ctx, tx, deletedUsername, u.Discriminator)
	name := deletedUsername
	if errors.Is(err, chat.ErrUsernameTaken) {
		// Every "Deleted User" discriminator is used: the id keeps it unique.
		name, disc, err = deletedUsername+" "+string(u.ID), u.Discriminator, nil
	}
	if err != nil {
		return nil, err
	}
	u.Username, u.Discriminator = name, disc
	u.Flags |= chat.UserFlagDeleted
	u.DisplayName, u.Avatar, u.Status, u.Profile = nil, nil, nil, nil
	if err := tx.UpdateUser(ctx, u); err != nil {
		return nil, dbError("anonymise user", err)
	}
	return u, nil
}

// publishSessionsDeleted tells the user's connections that their
// sessions ended, all but except when it is set.
func (a *App) publishSessionsDeleted(ctx context.Context, user chat.ID, except *chat.ID) {
	a.publish(ctx, chat.AuthEvent{
		Type: chat.EvAuth, EventType: chat.AuthDeleteAllSessions, UserID: user, ExcludeSessionID: except,
	}, event.Private(user))
}

// CreateRegistrationInvites makes n new registration invite codes (for
// the operator; invite-only instances need one per account).
func (a *App) CreateRegistrationInvites(ctx context.Context, c *Caller, n int) ([]*chat.RegistrationInvite, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	if n < 1 || n > 1000 {
		return nil, fmt.Errorf("create invites: count %d is not between 1 and 1000", n)
	}
	out := make([]*chat.RegistrationInvite, 0, n)
	err := a.store.InTx(ctx, func(tx store.Store) error {
		for range n {
			inv := &chat.RegistrationInvite{Code: auth.NewInviteCode(), Created: chat.TimeOf(a.now())}
			if err := tx.InsertRegistrationInvite(ctx, inv); err != nil {
				return dbError("insert invite", err)
			}
			out = append(out, inv)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, inv := range out {
		a.recordAdmin(ctx, c, AdminCreateInvite, inv.Code, nil)
	}
	return out, nil
}

// RegistrationInvites lists every registration invite code, oldest first.
// Only the operator and privileged users may see them.
func (a *App) RegistrationInvites(ctx context.Context, c *Caller) ([]*chat.RegistrationInvite, error) {
	if err := requireAdmin(c); err != nil {
		return nil, err
	}
	invs, err := a.store.FetchRegistrationInvites(ctx)
	return invs, dbError("fetch invites", err)
}
