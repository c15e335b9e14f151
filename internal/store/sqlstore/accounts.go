package sqlstore

import (
	"context"

	"ermine/internal/chat"
	"ermine/internal/store"
)

func accountTokens(a *chat.Account) (verify, reset, del any) {
	tok := func(t *chat.AccountToken) any {
		if t == nil {
			return nil
		}
		return t.Token
	}
	return tok(a.Verification), tok(a.PasswordReset), tok(a.Deletion)
}

// InsertAccount adds an account.
func (s *DB) InsertAccount(ctx context.Context, a *chat.Account) error {
	data, err := encode(a)
	if err != nil {
		return err
	}
	v, r, d := accountTokens(a)
	_, err = s.exec(ctx, `INSERT INTO accounts (id, email_normalised, verify_token, reset_token, delete_token, delete_after, data)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, a.ID, a.EmailNormalised, v, r, d, millisOrNil(a.DeleteAfter), data)
	return err
}

// FetchAccount returns an account by id.
func (s *DB) FetchAccount(ctx context.Context, id chat.ID) (*chat.Account, error) {
	return one[chat.Account](ctx, s, `SELECT data FROM accounts WHERE id = ?`+s.lock, id)
}

// FetchAccountByEmail returns an account by normalised email.
func (s *DB) FetchAccountByEmail(ctx context.Context, normalised string) (*chat.Account, error) {
	return one[chat.Account](ctx, s, `SELECT data FROM accounts WHERE email_normalised = ?`+s.lock, normalised)
}

// FetchAccountByToken returns the account holding a pending token.
func (s *DB) FetchAccountByToken(ctx context.Context, token string) (*chat.Account, error) {
	if token == "" {
		return nil, store.ErrNotFound
	}
	return one[chat.Account](ctx, s, `SELECT data FROM accounts
		WHERE verify_token = ? OR reset_token = ? OR delete_token = ?`+s.lock, token, token, token)
}

// FetchAccountsDueForDeletion returns accounts whose deletion time passed.
func (s *DB) FetchAccountsDueForDeletion(ctx context.Context, now chat.Time) ([]*chat.Account, error) {
	return many[chat.Account](ctx, s, `SELECT data FROM accounts
		WHERE delete_after IS NOT NULL AND delete_after <= ? ORDER BY id`, now.Millis())
}

// UpdateAccount replaces an account.
func (s *DB) UpdateAccount(ctx context.Context, a *chat.Account) error {
	data, err := encode(a)
	if err != nil {
		return err
	}
	v, r, d := accountTokens(a)
	return s.execOne(ctx, `UPDATE accounts SET email_normalised = ?, verify_token = ?, reset_token = ?,
		delete_token = ?, delete_after = ?, data = ? WHERE id = ?`,
		a.EmailNormalised, v, r, d, millisOrNil(a.DeleteAfter), data, a.ID)
}

// DeleteAccount removes an account with its tickets.
func (s *DB) DeleteAccount(ctx context.Context, id chat.ID) error {
	if _, err := s.exec(ctx, `DELETE FROM mfa_tickets WHERE account_id = ?`, id); err != nil {
		return err
	}
	return s.execOne(ctx, `DELETE FROM accounts WHERE id = ?`, id)
}

// InsertTicket adds an MFA ticket.
func (s *DB) InsertTicket(ctx context.Context, t *chat.MFATicket) error {
	data, err := encode(t)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO mfa_tickets (id, token, account_id, data) VALUES (?, ?, ?, ?)`,
		t.ID, t.Token, t.AccountID, data)
	return err
}

// FetchTicketByToken returns a ticket by token.
func (s *DB) FetchTicketByToken(ctx context.Context, token string) (*chat.MFATicket, error) {
	return one[chat.MFATicket](ctx, s, `SELECT data FROM mfa_tickets WHERE token = ?`+s.lock, token)
}

// UpdateTicket replaces a ticket.
func (s *DB) UpdateTicket(ctx context.Context, t *chat.MFATicket) error {
	data, err := encode(t)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE mfa_tickets SET token = ?, data = ? WHERE id = ?`, t.Token, data, t.ID)
}

// DeleteTicket removes a ticket.
func (s *DB) DeleteTicket(ctx context.Context, id chat.ID) error {
	return s.execOne(ctx, `DELETE FROM mfa_tickets WHERE id = ?`, id)
}

// InsertRegistrationInvite adds a registration code.
func (s *DB) InsertRegistrationInvite(ctx context.Context, inv *chat.RegistrationInvite) error {
	data, err := encode(inv)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO registration_invites (code, created_at, data) VALUES (?, ?, ?)`, inv.Code, inv.Created.Millis(), data)
	return err
}

// FetchRegistrationInvite returns a registration code.
func (s *DB) FetchRegistrationInvite(ctx context.Context, code string) (*chat.RegistrationInvite, error) {
	return one[chat.RegistrationInvite](ctx, s, `SELECT data FROM registration_invites WHERE code = ?`+s.lock, code)
}

// FetchRegistrationInvites lists every registration code.
func (s *DB) FetchRegistrationInvites(ctx context.Context) ([]*chat.RegistrationInvite, error) {
	return many[chat.RegistrationInvite](ctx, s, `SELECT data FROM registration_invites ORDER BY created_at, code`)
}

// UpdateRegistrationInvite replaces a registration code.
func (s *DB) UpdateRegistrationInvite(ctx context.Context, inv *chat.RegistrationInvite) error {
	data, err := encode(inv)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE registration_invites SET data = ? WHERE code = ?`, data, inv.Code)
}

// DeleteRegistrationInvite removes a registration code.
func (s *DB) DeleteRegistrationInvite(ctx context.Context, code string) error {
	return s.execOne(ctx, `DELETE FROM registration_invites WHERE code = ?`, code)
}
