package app

import (
	"context"
)

// Captcha checks the answer a client got from a captcha widget. Verify
// returns chat.ErrCaptchaFailed for a missing or wrong answer
// (captcha.HCaptcha is the one the server wires).
type Captcha interface {
	Verify(ctx context.Context, answer string) error
}

// checkCaptcha verifies a captcha answer when captcha is on.
func (a *App) checkCaptcha(ctx context.Context, answer *string) error {
	if a.login.captcha == nil {
		return nil
	}
	s := ""
	if answer != nil {
		s = *answer
	}
	return a.login.captcha.Verify(ctx, s)
}
