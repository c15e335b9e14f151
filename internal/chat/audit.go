package chat

// Audit log action types (reference 0.14.0, models v0 audit_logs). The
// reference records pins, invite creation, webhook and emoji edits and
// emoji creation without variants of their own; Ermine names them
// MessagePin, MessageUnpin, InviteCreate, WebhookEdit, EmojiCreate and
// EmojiEdit.
const (
	AuditMessageDelete              = "MessageDelete"
	AuditMessageBulkDelete          = "MessageBulkDelete"
	AuditMessagePin                 = "MessagePin"
	AuditMessageUnpin               = "MessageUnpin"
	AuditBanCreate                  = "BanCreate"
	AuditBanDelete                  = "BanDelete"
	AuditChannelCreate              = "ChannelCreate"
	AuditChannelEdit                = "ChannelEdit"
	AuditChannelRolePermissionsEdit = "ChannelRolePermissionsEdit"
	AuditChannelDelete              = "ChannelDelete"
	AuditMemberEdit                 = "MemberEdit"
	AuditMemberKick                 = "MemberKick"
	AuditServerEdit                 = "ServerEdit"
	AuditRoleEdit                   = "RoleEdit"
	AuditRoleCreate                 = "RoleCreate"
	AuditRoleDelete                 = "RoleDelete"
	AuditRolesReorder               = "RolesReorder"
	AuditInviteCreate               = "InviteCreate"
	AuditInviteDelete               = "InviteDelete"
	AuditWebhookCreate              = "WebhookCreate"
	AuditWebhookEdit                = "WebhookEdit"
	AuditWebhookDelete              = "WebhookDelete"
	AuditEmojiCreate                = "EmojiCreate"
	AuditEmojiEdit                  = "EmojiEdit"
	AuditEmojiDelete                = "EmojiDelete"
)

// AuditActionTypes lists every action type, for validating queries.
var AuditActionTypes = []string{
	AuditMessageDelete, AuditMessageBulkDelete, AuditMessagePin, AuditMessageUnpin,
	AuditBanCreate, AuditBanDelete, AuditChannelCreate, AuditChannelEdit,
	AuditChannelRolePermissionsEdit, AuditChannelDelete, AuditMemberEdit, AuditMemberKick,
	AuditServerEdit, AuditRoleEdit, AuditRoleCreate, AuditRoleDelete, AuditRolesReorder,
	AuditInviteCreate, AuditInviteDelete, AuditWebhookCreate, AuditWebhookEdit, AuditWebhookDelete,
	AuditEmojiCreate, AuditEmojiEdit, AuditEmojiDelete,
}

// MaxAuditReason is the longest X-Audit-Log-Reason accepted, in bytes.
const MaxAuditReason = 512

// AuditLogEntry records one moderation action in a server. Its id is a
// ULID made when the action happened, so ids order entries in time.
// Served document: AuditLogEntry
type AuditLogEntry struct {
	ID     ID          `json:"_id"`
	Server ID          `json:"server"`
	Reason *string     `json:"reason,omitempty"`
	User   ID          `json:"user"` // who acted
	Action AuditAction `json:"action"`
}

// AuditAction is what an entry records: Type with the fields that type
// carries (the others stay empty and are omitted).
// Served document: AuditLogEntryAction
type AuditAction struct {
	Type        string    `json:"type"`
	Author      ID        `json:"author,omitempty"`
	Channel     ID        `json:"channel,omitempty"`
	Message     ID        `json:"message,omitempty"`
	Count       *int      `json:"count,omitempty"`
	User        ID        `json:"user,omitempty"`
	Role        ID        `json:"role,omitempty"`
	Invite      string    `json:"invite,omitempty"`
	Webhook     ID        `json:"webhook,omitempty"`
	Emoji       ID        `json:"emoji,omitempty"`
	Name        *string   `json:"name,omitempty"`
	Permissions *Override `json:"permissions,omitempty"`
	Positions   []ID      `json:"positions,omitempty"`
	Remove      []string  `json:"remove,omitempty"`
	Partial     *Partial  `json:"partial,omitempty"`
}

// Target is the id of the object the action is about, which audit log
// queries filter on: the user, role, emoji, invite, webhook or message
// acted on, else the channel; empty for server edits and reorders.
func (a *AuditAction) Target() string {
	for _, id := range []string{string(a.User), string(a.Role), string(a.Emoji), a.Invite,
		string(a.Webhook), string(a.Message), string(a.Channel)} {
		if id != "" {
			return id
		}
	}
	return ""
}

// Users lists the users an entry names besides its actor: the member
// acted on or the author of a deleted message.
func (a *AuditAction) Users() []ID {
	var ids []ID
	if a.User != "" {
		ids = append(ids, a.User)
	}
	if a.Author != "" {
		ids = append(ids, a.Author)
	}
	return ids
}

// AuditLogPage answers an audit log query with include_users=true.
// Served document: AuditLogQueryResponse
type AuditLogPage struct {
	AuditLogs []*AuditLogEntry `json:"audit_logs"`
	Users     []*User          `json:"users"`
	Members   []*Member        `json:"members"`
}
