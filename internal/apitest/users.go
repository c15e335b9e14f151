package apitest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"ermine/internal/chat"
)

// User is an account with an onboarded user and a logged-in session.
type User struct {
	ID       chat.ID
	Username string
	// Discriminator is the user's four digits.
	Discriminator string
	// Token is the session token for X-Session-Token.
	Token   string
	Session chat.ID
	Email   string
}

var seq atomic.Int64

// NewUser creates, directly in the store, an account, its user and a
// session, so tests of one route need not go through registration.
func (h *Harness) NewUser(username string) *User {
	h.t.Helper()
	ctx := context.Background()
	n := seq.Add(1)
	id := chat.NewID()
	u := &User{ID: id, Username: username, Discriminator: fmt.Sprintf("%04d", 1000+n%8000),
		Token: chat.NewToken(64), Session: chat.NewID(),
		Email: fmt.Sprintf("%s.%d@ermine.test", strings.ToLower(username), n)}
	st := h.Server.Store
	must := func(err error) {
		if err != nil {
			h.t.Fatalf("apitest: new user %s: %v", username, err)
		}
	}
	must(st.InsertAccount(ctx, &chat.Account{ID: id, Email: u.Email, EmailNormalised: u.Email,
		PasswordHash: "!", Verified: true}))
	must(st.InsertUser(ctx, &chat.User{ID: id, Username: username, Discriminator: u.Discriminator}))
	must(st.InsertSession(ctx, &chat.Session{ID: u.Session, UserID: id, Token: u.Token, Name: "apitest"}))
	return u
}
