package app

import (
	"context"
	"errors"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// TestOperatorCaller checks who the operator-only use cases obey: the
// Operator and privileged users; never a nil caller (what a transport
// holds for an anonymous request), a caller without a user, a bot or a
// plain user.
func TestOperatorCaller(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ctx := context.Background()
	plain := ta.user(t, "plain")
	target := ta.user(t, "target")
	admin := ta.user(t, "admin")
	admin.User.Privileged = true
	bot := ta.user(t, "bot")
	bot.Bot = &chat.Bot{ID: bot.ID(), Owner: plain.ID()}
	bot.User.Privileged = true

	calls := map[string]func(c *Caller) error{
		"AdminStats": func(c *Caller) error { _, err := ta.AdminStats(ctx, c); return err },
		"AdminUsers": func(c *Caller) error { _, err := ta.AdminUsers(ctx, c, "", "", 10); return err },
		"AdminFetchUser": func(c *Caller) error {
			_, err := ta.AdminFetchUser(ctx, c, target.ID())
			return err
		},
		"AdminEditUser": func(c *Caller) error {
			badges := uint32(1)
			_, err := ta.AdminEditUser(ctx, c, target.ID(), chat.AdminUserEdit{Badges: &badges})
			return err
		},
		"AdminSetDisabled": func(c *Caller) error { return ta.AdminSetDisabled(ctx, c, target.ID(), false) },
		"AdminReports":     func(c *Caller) error { _, err := ta.AdminReports(ctx, c, store.ReportQuery{}); return err },
		"AdminResetPassword": func(c *Caller) error {
			_, err := ta.AdminResetPassword(ctx, c, chat.NewID(), "")
			return err
		},
		"ExportUser":                func(c *Caller) error { _, err := ta.ExportUser(ctx, c, string(target.ID())); return err },
		"CreateRegistrationInvites": func(c *Caller) error { _, err := ta.CreateRegistrationInvites(ctx, c, 1); return err },
		"RegistrationInvites":       func(c *Caller) error { _, err := ta.RegistrationInvites(ctx, c); return err },
		"AdminCheck":                func(c *Caller) error { return ta.AdminCheck(c) },
	}
	refused := map[string]*Caller{
		"nil":     nil,
		"no user": {},
		"plain":   plain,
		"bot":     bot,
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			for who, c := range refused {
				if err := call(c); !errors.Is(err, chat.ErrNotPrivileged) {
					t.Errorf("%s caller: err = %v, want NotPrivileged", who, err)
				}
			}
			for who, c := range map[string]*Caller{"operator": Operator(), "privileged": admin} {
				// Other errors (an unknown user) are fine: the check let it through.
				if err := call(c); errors.Is(err, chat.ErrNotPrivileged) {
					t.Errorf("%s caller refused: %v", who, err)
				}
			}
		})
	}
	if !Operator().IsOperator() || (*Caller)(nil).IsOperator() || admin.IsOperator() {
		t.Error("IsOperator is wrong")
	}
}
