package revolt

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"ermine/internal/chat"
)

// decode converts a BSON document to v through its JSON form (see toJSON).
func decode(doc bson.Raw, v any) error {
	b, err := toJSON(make([]byte, 0, len(doc)+len(doc)/4), doc)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// account is an authifier account document.
type account struct {
	ID              chat.ID `json:"_id"`
	Email           string  `json:"email"`
	EmailNormalised string  `json:"email_normalised"`
	Password        string  `json:"password"`
	Disabled        bool    `json:"disabled"`
	Verification    *struct {
		Status   string    `json:"status"` // Verified, Pending, Moving
		Token    string    `json:"token"`
		Expiry   chat.Time `json:"expiry"`
		NewEmail string    `json:"new_email"`
	} `json:"verification"`
	PasswordReset *chat.AccountToken `json:"password_reset"`
	Deletion      *struct {
		Status string     `json:"status"` // WaitingForVerification, Scheduled, Deleted
		Token  string     `json:"token"`
		Expiry chat.Time  `json:"expiry"`
		After  *chat.Time `json:"after"`
	} `json:"deletion"`
	Lockout *chat.Lockout `json:"lockout"`
	MFA     struct {
		TOTP *struct {
			Status string `json:"status"` // Disabled, Pending, Enabled
			Secret string `json:"secret"`
		} `json:"totp_token"`
		RecoveryCodes []string `json:"recovery_codes"`
	} `json:"mfa"`
}

func convertAccount(doc bson.Raw) (*chat.Account, error) {
	var a account
	if err := decode(doc, &a); err != nil {
		return nil, err
	}
	if a.ID == "" || a.Email == "" {
		return nil, fmt.Errorf("no _id or email")
	}
	out := &chat.Account{ID: a.ID, Email: a.Email, EmailNormalised: a.EmailNormalised, PasswordHash: a.Password,
		Disabled: a.Disabled, PasswordReset: a.PasswordReset, Lockout: a.Lockout}
	if out.EmailNormalised == "" {
		out.EmailNormalised = strings.ToLower(a.Email)
	}
	if v := a.Verification; v != nil {
		switch v.Status {
		case "Verified":
			out.Verified = true
		case "Pending":
			out.Verification = &chat.AccountToken{Token: v.Token, Expiry: v.Expiry}
		case "Moving":
			// Verified at the old address, moving to a new one.
			out.Verified = true
			out.Verification = &chat.AccountToken{Token: v.Token, Expiry: v.Expiry, NewEmail: v.NewEmail}
		default:
			return nil, fmt.Errorf("verification status %q is unknown", v.Status)
		}
	}
	if d := a.Deletion; d != nil {
		switch d.Status {
		case "WaitingForVerification":
			out.Deletion = &chat.AccountToken{Token: d.Token, Expiry: d.Expiry}
		case "Scheduled":
			out.DeleteAfter = d.After
		case "Deleted":
			out.Disabled = true
		default:
			return nil, fmt.Errorf("deletion status %q is unknown", d.Status)
		}
	}
	if t := a.MFA.TOTP; t != nil {
		switch t.Status {
		case "Enabled":
			out.MFA.TOTPSecret = t.Secret
		case "Pending":
			out.MFA.TOTPPending = t.Secret
		}
	}
	out.MFA.RecoveryCodes = a.MFA.RecoveryCodes
	return out, nil
}

// user is a user document: chat.User's fields plus those kept apart.
type user struct {
	chat.UserDoc
	Relations []chat.Relationship `json:"relations"`
	// The time the user last acknowledged policy changes belongs to the
	// account in Ermine.
	PolicyAck *chat.Time `json:"last_acknowledged_policy_change"`
}

func convertUser(doc bson.Raw) (*user, error) {
	var u user
	if err := decode(doc, &u); err != nil {
		return nil, err
	}
	if u.ID == "" || u.Username == "" {
		return nil, fmt.Errorf("no _id or username")
	}
	if u.Discriminator == "" {
		u.Discriminator = "0000"
	}
	return &u, nil
}

func convertSession(doc bson.Raw) (*chat.Session, error) {
	var s chat.Session
	if err := decode(doc, &s); err != nil {
		return nil, err
	}
	if s.ID == "" || s.UserID == "" || s.Token == "" {
		return nil, fmt.Errorf("no _id, user_id or token")
	}
	return &s, nil
}

func convertBot(doc bson.Raw) (*chat.Bot, error) {
	var b chat.Bot
	if err := decode(doc, &b); err != nil {
		return nil, err
	}
	if b.ID == "" || b.Token == "" {
		return nil, fmt.Errorf("no _id or token")
	}
	return &b, nil
}

func convertServer(doc bson.Raw) (*chat.Server, error) {
	var s chat.Server
	if err := decode(doc, &s); err != nil {
		return nil, err
	}
	if s.ID == "" || s.Owner == "" {
		return nil, fmt.Errorf("no _id or owner")
	}
	if s.Channels == nil {
		s.Channels = []chat.ID{}
	}
	return &s, nil
}

// member is a server_members document; soft-deleted members (who left
// while their removal was pending) carry pending_deletion_at.
type member struct {
	chat.Member
	PendingDeletion *chat.Time `json:"pending_deletion_at"`
}

func convertMember(doc bson.Raw) (*member, error) {
	var m member
	if err := decode(doc, &m); err != nil {
		return nil, err
	}
	if m.ID.Server == "" || m.ID.User == "" {
		return nil, fmt.Errorf("no _id.server or _id.user")
	}
	if m.JoinedAt.IsZero() {
		m.JoinedAt = chat.TimeOf(m.ID.User.Time())
	}
	return &m, nil
}

func convertBan(doc bson.Raw) (*chat.ServerBan, error) {
	var b chat.ServerBan
	if err := decode(doc, &b); err != nil {
		return nil, err
	}
	if b.ID.Server == "" || b.ID.User == "" {
		return nil, fmt.Errorf("no _id.server or _id.user")
	}
	return &b, nil
}

func convertChannel(doc bson.Raw) (*chat.Channel, error) {
	var c chat.Channel
	if err := decode(doc, &c); err != nil {
		return nil, err
	}
	if c.ID == "" {
		return nil, fmt.Errorf("no _id")
	}
	switch c.ChannelType {
	case chat.ChannelSavedMessages, chat.ChannelDirectMessage, chat.ChannelGroup, chat.ChannelText:
	case chat.ChannelVoice:
		// Before revision 46 voice channels had a type of their own; the
		// reference now keeps them as text channels with voice settings.
		c.ChannelType = chat.ChannelText
		if c.Voice == nil {
			c.Voice = &chat.VoiceInformation{}
		}
	default:
		return nil, fmt.Errorf("channel_type %q is unknown", c.ChannelType)
	}
	return &c, nil
}

func convertInvite(doc bson.Raw) (*chat.Invite, error) {
	var inv chat.Invite
	if err := decode(doc, &inv); err != nil {
		return nil, err
	}
	if inv.Code == "" || inv.Channel == "" || (inv.Type != "Server" && inv.Type != "Group") {
		return nil, fmt.Errorf("no _id or channel, or type %q is unknown", inv.Type)
	}
	return &inv, nil
}

// webhook is a channel_webhooks document (_id where Ermine says id).
type webhook struct {
	chat.Webhook
	MongoID chat.ID `json:"_id"`
}

func convertWebhook(doc bson.Raw) (*chat.Webhook, error) {
	var w webhook
	if err := decode(doc, &w); err != nil {
		return nil, err
	}
	if w.MongoID != "" {
		w.ID = w.MongoID
	}
	if w.ID == "" || w.ChannelID == "" {
		return nil, fmt.Errorf("no _id or channel_id")
	}
	return &w.Webhook, nil
}

func convertEmoji(doc bson.Raw) (*chat.Emoji, error) {
	var e chat.Emoji
	if err := decode(doc, &e); err != nil {
		return nil, err
	}
	if e.ID == "" || (e.Parent.Type != "Server" && e.Parent.Type != "Detached") {
		return nil, fmt.Errorf("no _id, or parent type %q is unknown", e.Parent.Type)
	}
	return &e, nil
}

func convertMessage(doc bson.Raw) (*chat.Message, error) {
	var m chat.Message
	if err := decode(doc, &m); err != nil {
		return nil, err
	}
	if m.ID == "" || m.Channel == "" || m.Author == "" {
		return nil, fmt.Errorf("no _id, channel or author")
	}
	m.User, m.Member = nil, nil
	return &m, nil
}

func convertUnread(doc bson.Raw) (*chat.ChannelUnread, error) {
	var u chat.ChannelUnread
	if err := decode(doc, &u); err != nil {
		return nil, err
	}
	if u.ID.Channel == "" || u.ID.User == "" {
		return nil, fmt.Errorf("no _id.channel or _id.user")
	}
	return &u, nil
}

// convertSettings reads {_id: user, key: [timestamp, value], ...}.
func convertSettings(doc bson.Raw) (chat.ID, map[string]chat.Setting, error) {
	elems, err := doc.Elements()
	if err != nil {
		return "", nil, err
	}
	var user chat.ID
	out := map[string]chat.Setting{}
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		if k == "_id" {
			user = chat.ID(v.StringValue())
			continue
		}
		vals, err := v.Array().Values()
		if err != nil || len(vals) != 2 {
			return user, nil, fmt.Errorf("setting %q is not a [timestamp, value] pair", k)
		}
		ts, ok := vals[0].AsInt64OK()
		if !ok {
			return user, nil, fmt.Errorf("setting %q: timestamp is not a number", k)
		}
		val, ok := vals[1].StringValueOK()
		if !ok {
			return user, nil, fmt.Errorf("setting %q: value is not a string", k)
		}
		out[k] = chat.Setting{Timestamp: ts, Value: val}
	}
	if user == "" {
		return "", nil, fmt.Errorf("no _id")
	}
	return user, out, nil
}

// report is a safety_reports document; its status is flattened into it.
type report struct {
	ID         chat.ID              `json:"_id"`
	AuthorID   chat.ID              `json:"author_id"`
	Content    chat.ReportedContent `json:"content"`
	Additional string               `json:"additional_context"`
	Status     string               `json:"status"`
	Rejection  string               `json:"rejection_reason"`
	ClosedAt   *chat.Time           `json:"closed_at"`
	Notes      string               `json:"notes"`
}

func convertReport(doc bson.Raw, snapshot map[string]any) (*chat.Report, error) {
	var r report
	if err := decode(doc, &r); err != nil {
		return nil, err
	}
	if r.ID == "" || r.AuthorID == "" {
		return nil, fmt.Errorf("no _id or author_id")
	}
	switch r.Status {
	case chat.ReportCreated, chat.ReportResolved, chat.ReportRejected:
	default:
		return nil, fmt.Errorf("status %q is unknown", r.Status)
	}
	note := r.Notes
	if r.Rejection != "" {
		note = strings.TrimSpace(note + "\nRejected: " + r.Rejection)
	}
	return &chat.Report{ID: r.ID, AuthorID: r.AuthorID, Content: r.Content, Additional: r.Additional,
		Status: r.Status, CreatedAt: chat.TimeOf(r.ID.Time()), ClosedAt: r.ClosedAt, Note: note, Snapshot: snapshot}, nil
}

func convertAuditLog(doc bson.Raw) (*chat.AuditLogEntry, error) {
	var e chat.AuditLogEntry
	if err := decode(doc, &e); err != nil {
		return nil, err
	}
	if e.ID == "" || e.Server == "" || e.Action.Type == "" {
		return nil, fmt.Errorf("no _id, server or action type")
	}
	return &e, nil
}

func convertPolicyChange(doc bson.Raw) (*chat.PolicyChange, error) {
	var p chat.PolicyChange
	if err := decode(doc, &p); err != nil {
		return nil, err
	}
	if p.Description == "" && p.URL == "" {
		return nil, fmt.Errorf("no description or url")
	}
	return &p, nil
}

// accountInvite is an account_invites (before revision 50: invites) document.
type accountInvite struct {
	ID        string   `json:"_id"`
	Used      bool     `json:"used"`
	ClaimedBy *chat.ID `json:"claimed_by"`
}
