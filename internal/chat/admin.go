package chat

// AdminAction is one entry of the instance's own audit log: something an
// operator did through the admin API or `ermine admin`. Its id is a ULID
// of when it was done.
type AdminAction struct {
	ID ID `json:"_id"`
	// User is the privileged user who acted; empty for the operator at
	// the command line.
	User ID `json:"user,omitempty"`
	// Action names what was done, after the app's use case
	// ("DisableUser", "WipeUser", "ResolveReport", "DeleteServer", ...).
	Action string `json:"action"`
	// Target is the id of the user, server, report or invite acted on.
	Target string `json:"target"`
	// Detail holds what else the action took: a wipe's mode, a report's
	// outcome, the fields of an edit.
	Detail map[string]any `json:"detail,omitempty"`
}

// InstanceCounts are the sizes of an instance.
type InstanceCounts struct {
	Accounts int `json:"accounts"`
	Users    int `json:"users"`
	Bots     int `json:"bots"`
	Servers  int `json:"servers"`
	Channels int `json:"channels"`
	Messages int `json:"messages"`
	Reports  int `json:"open_reports"`
}

// AdminUser is a user with what only an operator sees of their account.
type AdminUser struct {
	User     *User  `json:"user"`
	Email    string `json:"email,omitempty"`
	Verified bool   `json:"verified"`
	Disabled bool   `json:"disabled"`
	// DeleteAfter is set when the account's deletion is scheduled.
	DeleteAfter *Time `json:"delete_after,omitempty"`
	Sessions    int   `json:"sessions"`
	Online      bool  `json:"online"`
}

// AdminStats are the figures of the instance.
type AdminStats struct {
	InstanceCounts
	// OnlineUsers is how many users have a connection to this node.
	OnlineUsers int `json:"online_users"`
	// Connections is how many event connections this node holds.
	Connections int `json:"connections"`
}

// AdminUserEdit changes what only the platform sets on a user.
type AdminUserEdit struct {
	Badges     *uint32 `json:"badges,omitempty"`
	Flags      *uint32 `json:"flags,omitempty"`
	Privileged *bool   `json:"privileged,omitempty"`
}

// ReportResolution closes a report.
type ReportResolution struct {
	// Status is Resolved (the default) or Rejected.
	Status string `json:"status,omitempty"`
	Note   string `json:"notes,omitempty"`
	Action string `json:"action,omitempty"`
}

// ClaimResult counts what AdminClaimUser moved to the real account.
type ClaimResult struct {
	Imported ID `json:"imported"`
	Real     ID `json:"real"`
	// Messages is how many messages changed author.
	Messages int `json:"messages"`
	// Reactions is how many reactions (one emoji on one message) changed user.
	Reactions int `json:"reactions"`
	// Mentions is how many messages mentioning the imported user now
	// mention the real one.
	Mentions int `json:"mentions"`
	// Memberships is how many servers the real user joined in the
	// imported user's place (servers they were already in count too).
	Memberships int `json:"memberships"`
	// Notified is how many changed messages connected clients were told
	// of (MessageUpdate): those among their channel's newest 100; clients
	// see older ones after a reload.
	Notified int `json:"notified"`
}

// AdminWarning is something an operator must see on the overview.
type AdminWarning struct {
	// Type is PushOff, MailOff, VoiceUnreachable, DiskUploadsShared or
	// BackupStale.
	Type    string `json:"type"`
	Message string `json:"message"`
}

// AdminOverview is the console's first page: the figures of the
// instance, what it runs on and what needs the operator's attention.
type AdminOverview struct {
	AdminStats
	Version    string `json:"version"`
	Started    Time   `json:"started"`
	Uptime     int64  `json:"uptime_seconds"`
	Store      string `json:"store"`
	Bus        string `json:"bus"`
	InviteOnly bool   `json:"invite_only"`
	// LastBackup is when `ermine backup` last ran, if ever.
	LastBackup *Time          `json:"last_backup,omitempty"`
	Warnings   []AdminWarning `json:"warnings"`
}

// AdminSession is a session as the console shows it: never its token.
type AdminSession struct {
	ID       ID     `json:"_id"`
	Name     string `json:"name"`
	LastSeen *Time  `json:"last_seen,omitempty"`
}

// AdminServerRef names a server on a user's page.
type AdminServerRef struct {
	ID    ID     `json:"_id"`
	Name  string `json:"name"`
	Owner bool   `json:"owner"`
}

// AdminUserPage is everything the console shows about one user.
type AdminUserPage struct {
	*AdminUser
	MFA            bool             `json:"mfa"`
	SessionList    []AdminSession   `json:"session_list"`
	Servers        []AdminServerRef `json:"servers"`
	Bots           []*User          `json:"bots"`
	ReportsBy      []*Report        `json:"reports_by"`
	ReportsAgainst []*Report        `json:"reports_against"`
	Actions        []*AdminAction   `json:"actions"`
}

// AdminServerItem is a server in the console's search.
type AdminServerItem struct {
	Server  *Server `json:"server"`
	Members int     `json:"members"`
}

// AdminServerPage is everything the console shows about one server.
type AdminServerPage struct {
	Server   *Server          `json:"server"`
	Owner    *User            `json:"owner,omitempty"`
	Members  int              `json:"members"`
	Channels []*Channel       `json:"channels"`
	AuditLog []*AuditLogEntry `json:"audit_log"`
	Actions  []*AdminAction   `json:"actions"`
}

// AdminInvites is the console's registration page.
type AdminInvites struct {
	// InviteOnly says registering needs a code ([accounts] invite_only).
	InviteOnly bool                  `json:"invite_only"`
	Invites    []*RegistrationInvite `json:"invites"`
}
