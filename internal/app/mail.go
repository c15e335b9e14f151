package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"ermine/internal/chat"
)

// Mailer sends one plain-text mail. Implementations must refuse header
// injection (line breaks in to or subject).
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// mailState is the app's account mail: the mailer and the retries
// running in the background.
type mailState struct {
	mailer    Mailer         // nil when mail is off
	retries   sync.WaitGroup // mails being retried
	closing   chan struct{}  // closed by close: retries give up
	closeOnce sync.Once
}

// close makes retries give up and waits for them.
func (m *mailState) close() {
	m.closeOnce.Do(func() { close(m.closing) })
	m.retries.Wait()
}

// Paths of the web client that take the tokens mailed to users.
const (
	verifyPath = "/login/verify/"
	resetPath  = "/login/reset/"
	deletePath = "/delete/"
)

// mailEnabled reports whether account mail is sent; without it accounts
// are verified at creation and mailed flows are skipped.
func (a *App) mailEnabled() bool { return a.mail.mailer != nil }

// send mails to, and maps a failure to the client's EmailFailed (the
// cause is logged here: the client's error does not carry it).
func (a *App) send(ctx context.Context, to, subject, body string) error {
	if err := a.mail.mailer.Send(ctx, to, subject, body); err != nil {
		a.log.ErrorContext(ctx, "send mail", "subject", subject, "err", err)
		return chat.ErrEmailFailed.Wrap(fmt.Errorf("send %q: %w", subject, err))
	}
	return nil
}

// mailAttempts is how many times a retried mail is tried in all.
const mailAttempts = 5

// sendRetrying mails to at once and, when that fails, keeps trying in
// the background (waiting Settings.MailRetry, then twice as long each time) and
// logs each failure. It never fails: the change that causes the mail
// stands, and the user can ask for the mail again meanwhile.
func (a *App) sendRetrying(ctx context.Context, to, subject, body string) {
	err := a.mail.mailer.Send(ctx, to, subject, body)
	if err == nil {
		return
	}
	a.log.WarnContext(ctx, "send mail: will retry", "subject", subject, "attempt", 1, "err", err)
	a.mail.retries.Add(1)
	go func() {
		defer a.mail.retries.Done()
		wait := a.settings.MailRetry
		for attempt := 2; attempt <= mailAttempts; attempt++ {
			select {
			case <-time.After(wait):
			case <-a.mail.closing:
				a.log.Warn("send mail: given up at shutdown", "subject", subject, "attempts", attempt-1)
				return
			}
			err := a.mail.mailer.Send(context.Background(), to, subject, body)
			if err == nil {
				a.log.Info("send mail: sent on retry", "subject", subject, "attempt", attempt)
				return
			}
			a.log.Warn("send mail: failed", "subject", subject, "attempt", attempt, "err", err)
			wait *= 2
		}
		a.log.Error("send mail: given up", "subject", subject, "attempts", mailAttempts)
	}()
}

func (a *App) verificationBody(token string) string {
	return "Welcome to Ermine.\r\n\r\nOpen this link within 24 hours to verify your email address:\r\n\r\n" +
		a.settings.AppURL + verifyPath + token + "\r\n\r\nIf you did not create an account, ignore this mail.\r\n"
}

// verificationSubject is the subject of the verification mail.
const verificationSubject = "Verify your Ermine account"

func (a *App) sendEmailChange(ctx context.Context, to, token string) error {
	return a.send(ctx, to, "Confirm your new Ermine email address",
		"Open this link within 24 hours to use this address for your Ermine account:\r\n\r\n"+
			a.settings.AppURL+verifyPath+token+"\r\n\r\nIf you did not ask for this, ignore this mail.\r\n")
}

func (a *App) sendPasswordReset(ctx context.Context, to, token string) error {
	return a.send(ctx, to, "Reset your Ermine password",
		"Open this link within one hour to choose a new password:\r\n\r\n"+
			a.settings.AppURL+resetPath+token+"\r\n\r\nIf you did not ask for this, ignore this mail.\r\n")
}

// alreadyRegisteredSubject is the subject of the mail to the holder of
// an address someone tried to register again.
const alreadyRegisteredSubject = "You already have an Ermine account"

func (a *App) alreadyRegisteredBody(token string) string {
	return "Someone tried to create an Ermine account with this address, which already has one.\r\n\r\n" +
		"If you forgot your password, open this link within one hour to choose a new one:\r\n\r\n" +
		a.settings.AppURL + resetPath + token + "\r\n\r\nOtherwise, ignore this mail.\r\n"
}

func (a *App) sendDeletion(ctx context.Context, to, token string) error {
	return a.send(ctx, to, "Confirm the deletion of your Ermine account",
		"Open this link within 24 hours to delete your account. Deletion happens a week after you confirm;\r\n"+
			"until then the account is disabled.\r\n\r\n"+
			a.settings.AppURL+deletePath+token+"\r\n\r\nIf you did not ask for this, change your password now.\r\n")
}
