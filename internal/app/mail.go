package app

import (
	"context"
	"fmt"

	"ermine/internal/chat"
)

// Mailer sends one plain-text mail. Implementations must refuse header
// injection (line breaks in to or subject).
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// Paths of the web client that take the tokens mailed to users.
const (
	verifyPath = "/login/verify/"
	resetPath  = "/login/reset/"
	deletePath = "/delete/"
)

// mailEnabled reports whether account mail is sent; without it accounts
// are verified at creation and mailed flows are skipped.
func (a *App) mailEnabled() bool { return a.mailer != nil }

// send mails to, and maps a failure to the client's EmailFailed (the
// cause is logged here: the client's error does not carry it).
func (a *App) send(ctx context.Context, to, subject, body string) error {
	if err := a.mailer.Send(ctx, to, subject, body); err != nil {
		a.log.ErrorContext(ctx, "send mail", "subject", subject, "err", err)
		return chat.ErrEmailFailed.Wrap(fmt.Errorf("send %q: %w", subject, err))
	}
	return nil
}

func (a *App) sendVerification(ctx context.Context, to, token string) error {
	return a.send(ctx, to, "Verify your Ermine account",
		"Welcome to Ermine.\r\n\r\nOpen this link within 24 hours to verify your email address:\r\n\r\n"+
			a.appURL+verifyPath+token+"\r\n\r\nIf you did not create an account, ignore this mail.\r\n")
}

func (a *App) sendEmailChange(ctx context.Context, to, token string) error {
	return a.send(ctx, to, "Confirm your new Ermine email address",
		"Open this link within 24 hours to use this address for your Ermine account:\r\n\r\n"+
			a.appURL+verifyPath+token+"\r\n\r\nIf you did not ask for this, ignore this mail.\r\n")
}

func (a *App) sendPasswordReset(ctx context.Context, to, token string) error {
	return a.send(ctx, to, "Reset your Ermine password",
		"Open this link within one hour to choose a new password:\r\n\r\n"+
			a.appURL+resetPath+token+"\r\n\r\nIf you did not ask for this, ignore this mail.\r\n")
}

func (a *App) sendAlreadyRegistered(ctx context.Context, to, token string) error {
	return a.send(ctx, to, "You already have an Ermine account",
		"Someone tried to create an Ermine account with this address, which already has one.\r\n\r\n"+
			"If you forgot your password, open this link within one hour to choose a new one:\r\n\r\n"+
			a.appURL+resetPath+token+"\r\n\r\nOtherwise, ignore this mail.\r\n")
}

func (a *App) sendDeletion(ctx context.Context, to, token string) error {
	return a.send(ctx, to, "Confirm the deletion of your Ermine account",
		"Open this link within 24 hours to delete your account. Deletion happens a week after you confirm;\r\n"+
			"until then the account is disabled.\r\n\r\n"+
			a.appURL+deletePath+token+"\r\n\r\nIf you did not ask for this, change your password now.\r\n")
}
