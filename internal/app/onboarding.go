package app

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// OnboardingHello handles GET /onboard/hello: whether the session's
// account still has to choose a username.
func (a *App) OnboardingHello(_ context.Context, c *Caller) *chat.OnboardingStatus {
	return &chat.OnboardingStatus{Onboarding: c.User == nil}
}

// CompleteOnboarding handles POST /onboard/complete: it creates the user
// of the session's account with the chosen username and a discriminator.
func (a *App) CompleteOnboarding(ctx context.Context, c *Caller, d chat.Onboard) (*chat.User, error) {
	if c.User != nil {
		return nil, chat.ErrAlreadyOnboarded
	}
	if err := validUsername(d.Username); err != nil {
		return nil, err
	}
	id := accountID(c)
	// Another request may take the discriminator between the pick and the
	// insert; a few tries make that harmless.
	for try := 0; ; try++ {
		disc, err := a.pickDiscriminator(ctx, d.Username, "")
		if err != nil {
			return nil, err
		}
		u := &chat.User{ID: id, Username: d.Username, Discriminator: disc}
		err = a.store.InsertUser(ctx, u)
		if err == nil {
			return a.viewUser(ctx, u, u)
		}
		if !errors.Is(err, store.ErrConflict) {
			return nil, dbError("insert user", err)
		}
		if _, ferr := a.store.FetchUser(ctx, id); ferr == nil {
			return nil, chat.ErrAlreadyOnboarded // a concurrent request won
		}
		if try == 4 {
			return nil, chat.ErrUsernameTaken
		}
	}
}
