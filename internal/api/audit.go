package api

import (
	"fmt"
	"net/http"
	"strconv"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// queryAuditLogs handles GET /servers/{target}/audit_logs: the entries
// as an array, or with include_users=true as {audit_logs, users, members}.
func (a *API) queryAuditLogs(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	q := r.URL.Query()
	opts := app.AuditLogQuery{Target: q.Get("target")}
	for _, p := range []struct {
		name string
		dst  *chat.ID
	}{{"user", &opts.User}, {"before", &opts.Before}, {"after", &opts.After}} {
		if v := q.Get(p.name); v != "" {
			if len(v) != 26 {
				return chat.ErrInvalidBody(p.name + ": must be 26 characters")
			}
			*p.dst = chat.ID(v)
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return chat.ErrInvalidBody(fmt.Sprintf("limit: must be between 1 and 100, got %q", v))
		}
		opts.Limit = n
	}
	opts.Types = append(q["type"], q["type[]"]...)
	include, err := boolQuery(r, "include_users")
	if err != nil {
		return err
	}
	opts.IncludeUsers = include
	page, err := a.app.QueryAuditLogs(r.Context(), c, chat.ID(r.PathValue("target")), opts)
	if err != nil {
		return err
	}
	if !include {
		return respond(w, page.Entries)
	}
	return respond(w, chat.AuditLogPage{AuditLogs: page.Entries, Users: page.Users, Members: page.Members})
}
