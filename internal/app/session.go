package app

import (
	"context"
	"crypto/subtle"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// Caller is who a request or connection acts for: a user through one of
// their sessions, or a bot through its token.
type Caller struct {
	User    *chat.User
	Session *chat.Session // nil for bots
	Bot     *chat.Bot     // nil for users

	// AuditReason is the reason the request gives for a moderation
	// action (X-Audit-Log-Reason); audit log entries carry it.
	AuditReason *string

	// operator marks the Caller that Operator returns; no other package
	// can set it, so no request can become the operator.
	operator bool

	// read is a channel read with the session (AuthenticateForChannel):
	// the first openChannel of that channel takes it instead of reading
	// it again.
	read *store.SessionChannel
	// readID is the channel read names.
	readID chat.ID
}

// Operator returns the caller of the command line (`ermine admin`,
// `ermine invite`): the operator of the instance, whom every Admin…
// use case obeys. It has no user: it is not someone on the platform,
// and what it does is recorded without an author. Transports never
// hand it out; a nil Caller is never the operator (see requireAdmin).
func Operator() *Caller { return &Caller{operator: true} }

// IsOperator reports whether c is the operator of Operator.
func (c *Caller) IsOperator() bool { return c != nil && c.operator }

// ID returns the caller's user id.
func (c *Caller) ID() chat.ID { return c.User.ID }

// IsBot reports whether the caller is a bot.
func (c *Caller) IsBot() bool { return c.Bot != nil }

// tokenLength is the length of session and bot tokens.
const tokenLength = 64

// wellFormedToken reports whether s has the form of the tokens Ermine
// issues (chat.NewToken): anything else cannot match one, so it is
// refused before the store is asked (a NUL, for one, is an error on
// PostgreSQL but a miss on SQLite).
func wellFormedToken(s string) bool {
	if len(s) != tokenLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// equalToken compares tokens in constant time.
func equalToken(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// Authenticate finds who holds a token: a session token (userToken) or a
// bot token (botToken). When a bot token is given it alone is tried.
// A session whose user has not finished onboarding yields
// ErrOnboardingNotFinished with the session; unknown tokens yield
// chat.ErrInvalidSession, no token at all chat.ErrNotAuthenticated.
func (a *App) Authenticate(ctx context.Context, userToken, botToken string) (*Caller, error) {
	switch {
	case botToken != "":
		if !wellFormedToken(botToken) {
			return nil, chat.ErrInvalidSession
		}
		bot, err := a.store.FetchBotByToken(ctx, botToken)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !equalToken(bot.Token, botToken)) {
			return nil, chat.ErrInvalidSession
		}
		if err != nil {
			return nil, dbError("fetch bot", err)
		}
		u, err := a.store.FetchUser(ctx, bot.ID)
		if err != nil {
			return nil, dbError("fetch bot user", err)
		}
		return &Caller{User: u, Bot: bot}, nil
	case userToken != "":
		// The session and its user in one read: every request pays it.
		if !wellFormedToken(userToken) {
			return nil, chat.ErrInvalidSession
		}
		se, u, err := a.store.FetchSessionUser(ctx, userToken)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !equalToken(se.Token, userToken)) {
			return nil, chat.ErrInvalidSession
		}
		if err != nil {
			return nil, dbError("fetch session", err)
		}
		if u == nil {
			return &Caller{Session: se}, ErrOnboardingNotFinished
		}
		return &Caller{User: u, Session: se}, nil
	}
	return nil, chat.ErrNotAuthenticated
}

// AuthenticateForChannel is Authenticate for a request about one channel,
// a message send: a session token's session and user are read together
// with the channel, its server and the user's membership, so that the
// send, whose first step is to open that channel, makes one round trip
// to the store where it made two. Bot tokens are read as Authenticate
// reads them.
func (a *App) AuthenticateForChannel(ctx context.Context, userToken, botToken string, channel chat.ID) (*Caller, error) {
	if botToken != "" || userToken == "" {
		return a.Authenticate(ctx, userToken, botToken)
	}
	if !wellFormedToken(userToken) {
		return nil, chat.ErrInvalidSession
	}
	read, err := a.store.FetchSessionChannelAccess(ctx, userToken, channel)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !equalToken(read.Session.Token, userToken)) {
		return nil, chat.ErrInvalidSession
	}
	if err != nil {
		return nil, dbError("fetch session", err)
	}
	if read.User == nil {
		return &Caller{Session: read.Session}, ErrOnboardingNotFinished
	}
	return &Caller{User: read.User, Session: read.Session, read: read, readID: channel}, nil
}

// takeRead returns the channel read with the caller's session when it is
// channel's, once: later looks read the store again.
func (c *Caller) takeRead(channel chat.ID) *store.SessionChannel {
	if c == nil || c.read == nil || c.readID != channel {
		return nil
	}
	r := c.read
	c.read = nil
	return r
}

// AuthenticateEvents resolves the one token an events connection gives
// (in its query or an Authenticate frame): a session token first, then a
// bot token, as the reference's events server does. A token that is
// neither yields chat.ErrInvalidSession; a session whose account has no
// user yet, ErrOnboardingNotFinished; anything else is a transient
// failure.
func (a *App) AuthenticateEvents(ctx context.Context, token string) (*Caller, error) {
	c, err := a.Authenticate(ctx, token, "")
	if errors.Is(err, chat.ErrInvalidSession) || errors.Is(err, chat.ErrNotAuthenticated) {
		c, err = a.Authenticate(ctx, "", token)
	}
	if errors.Is(err, chat.ErrNotAuthenticated) {
		err = chat.ErrInvalidSession
	}
	return c, err
}

// ErrOnboardingNotFinished is returned by Authenticate for a valid session
// whose account has no user yet (no username chosen).
var ErrOnboardingNotFinished = &chat.Error{Type: "OnboardingNotFinished", Status: 401}

// SessionByToken finds a session by its token, or chat.ErrInvalidSession.
func (a *App) SessionByToken(ctx context.Context, token string) (*chat.Session, error) {
	if !wellFormedToken(token) {
		return nil, chat.ErrInvalidSession
	}
	se, err := a.store.FetchSessionByToken(ctx, token)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !equalToken(se.Token, token)) {
		return nil, chat.ErrInvalidSession
	}
	if err != nil {
		return nil, dbError("fetch session", err)
	}
	return se, nil
}
