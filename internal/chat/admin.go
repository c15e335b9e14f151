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
