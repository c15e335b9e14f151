package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/push"
	"ermine/internal/server"
)

// stdin is where reset-password --stdin reads the password; tests replace it.
var stdin io.Reader = os.Stdin

const adminUsage = `usage: ermine admin COMMAND [args]   (USER is a user id or name#discriminator)
  stats                          users, servers, messages, open reports
  users [QUERY]                  list users (id or part of the username)
  show USER                      one user with their account
  disable USER | enable USER     disable (sessions end, login answers Disabled) or re-enable
  wipe USER ban|delete           remove from the platform: flag 8 (spam) or deleted
  badges USER N | flags USER N   set the badges or flags bit field
  grant-privileged USER | revoke-privileged USER
  reset-password [--stdin] USER  print a one-time reset link, or set the password read from stdin
  reports [Created|Resolved|Rejected]
  report ID                      one report with its snapshot (JSON)
  resolve [--reject] [--note TEXT] [--action A] ID
                                 close a report; A: None, DeleteMessage, DeleteServer,
                                 DisableUser, BanUser, DeleteUser
  export USER [FILE]             everything stored about the user, as JSON
  claim IMPORTED REAL            hand an imported author's messages, reactions and
                                 memberships to a real account (docs/importing-discord.md)
`

// admin runs "ermine admin ..." against the configured store. A server
// may be running meanwhile; it hears of the changes (see server.OpenAdmin).
func admin(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stderr, adminUsage)
		if len(args) == 0 {
			return errors.New("admin: a command is needed")
		}
		return nil
	}
	cmd, args := args[0], args[1:]
	need := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("admin %s: want %d argument(s), got %d\n%s", cmd, n, len(args), adminUsage)
		}
		return nil
	}
	ad, err := server.OpenAdmin(ctx, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return err
	}
	defer ad.Close()
	a, op := ad.App, app.Operator()
	user := func(ref string) (chat.ID, error) {
		u, err := a.AdminFetchUser(ctx, op, chat.ID(ref))
		if err != nil {
			return "", fmt.Errorf("user %q: %w", ref, err)
		}
		return u.User.ID, nil
	}
	done := func(msg string, kv ...any) error {
		fmt.Fprintf(stdout, msg+"\n", kv...)
		switch {
		case ad.Relayed && !server.Serving(cfg.Data):
			fmt.Fprintln(stdout, "(no server is running on this data directory, so no connected client is told now; "+
				"the change is stored, and a server started later, or one on another machine sharing the database, passes it on)")
		case ad.Relayed:
			fmt.Fprintln(stdout, "(the running server passes this on to connected clients within a second)")
		}
		return nil
	}
	switch cmd {
	case "stats":
		s, err := a.AdminStats(ctx, op)
		if err != nil {
			return err
		}
		return printJSON(stdout, s.InstanceCounts)
	case "users":
		if len(args) > 1 {
			return need(1)
		}
		q := ""
		if len(args) == 1 {
			q = args[0]
		}
		tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUSERNAME\tEMAIL\tFLAGS\tSTATE")
		var after chat.ID
		for {
			us, err := a.AdminUsers(ctx, op, q, after, 500)
			if err != nil {
				return err
			}
			for _, u := range us {
				fmt.Fprintf(tw, "%s\t%s#%s\t%s\t%d\t%s\n", u.User.ID, u.User.Username, u.User.Discriminator, orDash(u.Email), u.User.Flags, state(u))
			}
			if len(us) < 500 {
				break
			}
			after = us[len(us)-1].User.ID
		}
		return tw.Flush()
	case "show":
		if err := need(1); err != nil {
			return err
		}
		u, err := a.AdminFetchUser(ctx, op, chat.ID(args[0]))
		if err != nil {
			return err
		}
		return printJSON(stdout, u)
	case "disable", "enable":
		if err := need(1); err != nil {
			return err
		}
		id, err := user(args[0])
		if err != nil {
			return err
		}
		if err := a.AdminSetDisabled(ctx, op, id, cmd == "disable"); err != nil {
			return err
		}
		return done("%sd %s", cmd, id)
	case "wipe":
		if err := need(2); err != nil {
			return err
		}
		id, err := user(args[0])
		if err != nil {
			return err
		}
		if err := a.AdminWipeUser(ctx, op, id, args[1]); err != nil {
			return err
		}
		return done("wiped %s (%s)", id, args[1])
	case "badges", "flags":
		if err := need(2); err != nil {
			return err
		}
		id, err := user(args[0])
		if err != nil {
			return err
		}
		n, err := strconv.ParseUint(args[1], 10, 32)
		if err != nil {
			return fmt.Errorf("admin %s: %q is not a number", cmd, args[1])
		}
		v := uint32(n)
		edit := chat.AdminUserEdit{Badges: &v}
		if cmd == "flags" {
			edit = chat.AdminUserEdit{Flags: &v}
		}
		if _, err := a.AdminEditUser(ctx, op, id, edit); err != nil {
			return err
		}
		return done("%s of %s set to %d", cmd, id, v)
	case "claim":
		if err := need(2); err != nil {
			return err
		}
		res, err := a.AdminClaimUser(ctx, op, args[0], args[1])
		if err != nil {
			return fmt.Errorf("admin claim: %s", describe(err))
		}
		return done("%s now holds what %s had: %d messages, %d reactions, %d mentions, %d servers\n"+
			"(open clients were told of the %d changed messages among their channels' newest 100; they see older ones after a reload)",
			res.Real, res.Imported, res.Messages, res.Reactions, res.Mentions, res.Memberships, res.Notified)
	case "grant-privileged", "revoke-privileged":
		if err := need(1); err != nil {
			return err
		}
		id, err := user(args[0])
		if err != nil {
			return err
		}
		yes := cmd == "grant-privileged"
		if _, err := a.AdminEditUser(ctx, op, id, chat.AdminUserEdit{Privileged: &yes}); err != nil {
			return err
		}
		return done("%s is privileged: %v", id, yes)
	case "reset-password":
		fs := flag.NewFlagSet("reset-password", flag.ContinueOnError)
		fs.SetOutput(stderr)
		fromStdin := fs.Bool("stdin", false, "read the new password from standard input")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return fmt.Errorf("admin reset-password: want USER\n%s", adminUsage)
		}
		id, err := user(fs.Arg(0))
		if err != nil {
			return err
		}
		password := ""
		if *fromStdin {
			line, err := bufio.NewReader(stdin).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("admin reset-password: read stdin: %w", err)
			}
			if password = strings.TrimRight(line, "\r\n"); password == "" {
				return errors.New("admin reset-password: no password on stdin")
			}
		}
		link, err := a.AdminResetPassword(ctx, op, id, password)
		if err != nil {
			return err
		}
		if link != "" {
			fmt.Fprintln(stdout, link)
			return nil
		}
		return done("password of %s set; their sessions ended", id)
	case "reports":
		if len(args) > 1 {
			return need(1)
		}
		q := app.ReportQuery{Limit: 1000}
		if len(args) == 1 {
			q.Status = args[0]
		}
		rs, err := a.AdminReports(ctx, op, q)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tTYPE\tITEM\tREASON\tBY")
		for _, r := range rs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Status, r.Content.Type, r.Content.ID, r.Content.Reason, r.AuthorID)
		}
		return tw.Flush()
	case "report":
		if err := need(1); err != nil {
			return err
		}
		r, err := a.AdminFetchReport(ctx, op, chat.ID(args[0]))
		if err != nil {
			return err
		}
		return printJSON(stdout, r)
	case "resolve":
		fs := flag.NewFlagSet("resolve", flag.ContinueOnError)
		fs.SetOutput(stderr)
		reject := fs.Bool("reject", false, "close as Rejected instead of Resolved")
		note := fs.String("note", "", "note kept with the report")
		action := fs.String("action", app.ActionNone, "what to do to the reported item")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return fmt.Errorf("admin resolve: want a report id\n%s", adminUsage)
		}
		d := chat.ReportResolution{Status: chat.ReportResolved, Note: *note, Action: *action}
		if *reject {
			d.Status = chat.ReportRejected
		}
		r, err := a.AdminResolveReport(ctx, op, chat.ID(fs.Arg(0)), d)
		if err != nil {
			return err
		}
		return done("report %s %s (action %s)", r.ID, strings.ToLower(r.Status), r.Action)
	case "export":
		if len(args) != 1 && len(args) != 2 {
			return need(1)
		}
		x, err := a.ExportUser(ctx, op, args[0])
		if err != nil {
			return fmt.Errorf("user %q: %w", args[0], err)
		}
		if len(args) == 1 {
			return printJSON(stdout, x)
		}
		f, err := os.OpenFile(args[1], os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if err := printJSON(f, x); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d messages)\n", args[1], len(x.Messages))
		return nil
	}
	return fmt.Errorf("admin: unknown command %q\n%s", cmd, adminUsage)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func state(u *chat.AdminUser) string {
	var s []string
	if u.User.Privileged {
		s = append(s, "privileged")
	}
	if u.Disabled {
		s = append(s, "disabled")
	}
	if u.Email != "" && !u.Verified {
		s = append(s, "unverified")
	}
	if u.User.Bot != nil {
		s = append(s, "bot")
	}
	if len(s) == 0 {
		return "active"
	}
	return strings.Join(s, ",")
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// vapid runs "ermine vapid generate": a new key pair for [push].
func vapid(args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "generate" {
		return errors.New(`vapid: want "vapid generate"`)
	}
	k, err := push.GenerateKeys()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "[push]\nvapid_public_key = %q\nvapid_private_key = %q\n", k.Public, k.Private)
	return nil
}

// describe spells out an error for the command line: a client error's
// fields (the reason of a FailedValidation) along with its type.
func describe(err error) string {
	var ce *chat.Error
	if errors.As(err, &ce) && len(ce.Fields) > 0 {
		b, _ := json.Marshal(ce.Fields)
		return err.Error() + " " + string(b)
	}
	return err.Error()
}
