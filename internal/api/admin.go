package api

import (
	"net/http"
	"strconv"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// routesAdmin registers the platform administration API. It is not part
// of the contract: every route answers only privileged users (others get
// NotPrivileged, 403). docs/operating.md lists the routes.
func (a *API) routesAdmin(mux router) {
	mux.Handle("GET /admin/stats", a.user(a.adminStats))
	mux.Handle("GET /admin/users", a.user(a.adminUsers))
	mux.Handle("GET /admin/users/{target}", a.user(a.adminFetchUser))
	mux.Handle("PATCH /admin/users/{target}", a.user(a.adminEditUser))
	mux.Handle("POST /admin/users/{target}/disable", a.user(a.adminDisableUser))
	mux.Handle("POST /admin/users/{target}/enable", a.user(a.adminEnableUser))
	mux.Handle("POST /admin/users/{target}/wipe", a.user(a.adminWipeUser))
	mux.Handle("GET /admin/reports", a.user(a.adminReports))
	mux.Handle("GET /admin/reports/{report}", a.user(a.adminFetchReport))
	mux.Handle("POST /admin/reports/{report}/resolve", a.user(a.adminResolveReport))
	// The operator's console (web/src/admin).
	mux.Handle("GET /admin/overview", a.user(a.adminOverview))
	mux.Handle("GET /admin/users/{target}/page", a.user(a.adminUserPage))
	mux.Handle("POST /admin/users/{target}/password", a.user(a.adminResetPassword))
	mux.Handle("GET /admin/users/{target}/export", a.user(a.adminExportUser))
	mux.Handle("GET /admin/servers", a.user(a.adminServers))
	mux.Handle("GET /admin/servers/{server}", a.user(a.adminServerPage))
	mux.Handle("DELETE /admin/servers/{server}", a.user(a.adminDeleteServer))
	mux.Handle("POST /admin/servers/{server}/transfer", a.user(a.adminTransferServer))
	mux.Handle("DELETE /admin/servers/{server}/members/{member}", a.user(a.adminRemoveMember))
	mux.Handle("GET /admin/invites", a.user(a.adminInvites))
	mux.Handle("POST /admin/invites", a.user(a.adminCreateInvite))
	mux.Handle("DELETE /admin/invites/{code}", a.user(a.adminDeleteInvite))
	mux.Handle("GET /admin/audit", a.user(a.adminAudit))
}

// adminStats handles GET /admin/stats.
func (a *API) adminStats(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	s, err := a.app.AdminStats(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, s)
}

// queryLimit reads ?limit= (default def).
func queryLimit(r *http.Request, def int) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, chat.ErrFailedValidation("limit: not a number")
	}
	return n, nil
}

// adminUsers handles GET /admin/users?query=&after=&limit=.
func (a *API) adminUsers(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	limit, err := queryLimit(r, 100)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	us, err := a.app.AdminUsers(r.Context(), c, q.Get("query"), chat.ID(q.Get("after")), limit)
	if err != nil {
		return err
	}
	return respond(w, us)
}

// adminFetchUser handles GET /admin/users/{target}.
func (a *API) adminFetchUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	u, err := a.app.AdminFetchUser(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, u)
}

// adminEditUser handles PATCH /admin/users/{target} {badges?, flags?, privileged?}.
func (a *API) adminEditUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminCheck(c); err != nil {
		return err
	}
	d, err := decode[chat.AdminUserEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	u, err := a.app.AdminEditUser(r.Context(), c, chat.ID(r.PathValue("target")), d)
	if err != nil {
		return err
	}
	return respond(w, u)
}

// adminDisableUser handles POST /admin/users/{target}/disable.
func (a *API) adminDisableUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminSetDisabled(r.Context(), c, chat.ID(r.PathValue("target")), true); err != nil {
		return err
	}
	return noContent(w)
}

// adminEnableUser handles POST /admin/users/{target}/enable.
func (a *API) adminEnableUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminSetDisabled(r.Context(), c, chat.ID(r.PathValue("target")), false); err != nil {
		return err
	}
	return noContent(w)
}

// wipeRequest is the body of POST /admin/users/{target}/wipe.
type wipeRequest struct {
	Mode string `json:"mode"` // "ban" or "delete"
}

// adminWipeUser handles POST /admin/users/{target}/wipe {mode}.
func (a *API) adminWipeUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminCheck(c); err != nil {
		return err
	}
	d, err := decode[wipeRequest](w, r, a.limit)
	if err != nil {
		return err
	}
	if err := a.app.AdminWipeUser(r.Context(), c, chat.ID(r.PathValue("target")), d.Mode); err != nil {
		return err
	}
	return noContent(w)
}

// adminReports handles GET /admin/reports?status=&author=&before=&limit=.
func (a *API) adminReports(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	limit, err := queryLimit(r, 100)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	rs, err := a.app.AdminReports(r.Context(), c, app.ReportQuery{Status: q.Get("status"),
		Author: chat.ID(q.Get("author")), Before: chat.ID(q.Get("before")), Limit: limit})
	if err != nil {
		return err
	}
	return respond(w, rs)
}

// adminFetchReport handles GET /admin/reports/{report}.
func (a *API) adminFetchReport(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	rep, err := a.app.AdminFetchReport(r.Context(), c, chat.ID(r.PathValue("report")))
	if err != nil {
		return err
	}
	return respond(w, rep)
}

// adminResolveReport handles POST /admin/reports/{report}/resolve {status?, notes?, action?}.
func (a *API) adminResolveReport(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminCheck(c); err != nil {
		return err
	}
	d, err := decode[chat.ReportResolution](w, r, a.limit)
	if err != nil {
		return err
	}
	rep, err := a.app.AdminResolveReport(r.Context(), c, chat.ID(r.PathValue("report")), d)
	if err != nil {
		return err
	}
	return respond(w, rep)
}

// adminOverview handles GET /admin/overview.
func (a *API) adminOverview(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	o, err := a.app.AdminOverview(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, o)
}

// adminUserPage handles GET /admin/users/{target}/page.
func (a *API) adminUserPage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	p, err := a.app.AdminUserPage(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, p)
}

// passwordRequest is the body of POST /admin/users/{target}/password.
type passwordRequest struct {
	// Password is set at once when given; without it a reset link is made.
	Password string `json:"password,omitempty"`
}

// passwordResponse answers POST /admin/users/{target}/password.
type passwordResponse struct {
	Link string `json:"link,omitempty"`
}

// adminResetPassword handles POST /admin/users/{target}/password {password?}.
func (a *API) adminResetPassword(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminCheck(c); err != nil {
		return err
	}
	d, err := decode[passwordRequest](w, r, a.limit)
	if err != nil {
		return err
	}
	link, err := a.app.AdminResetPassword(r.Context(), c, chat.ID(r.PathValue("target")), d.Password)
	if err != nil {
		return err
	}
	return respond(w, passwordResponse{Link: link})
}

// adminExportUser handles GET /admin/users/{target}/export.
func (a *API) adminExportUser(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	x, err := a.app.ExportUser(r.Context(), c, r.PathValue("target"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `attachment; filename="user-`+string(x.User.ID)+`.json"`)
	return respond(w, x)
}

// adminServers handles GET /admin/servers?query=&after=&limit=.
func (a *API) adminServers(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	limit, err := queryLimit(r, 100)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ss, err := a.app.AdminServers(r.Context(), c, q.Get("query"), chat.ID(q.Get("after")), limit)
	if err != nil {
		return err
	}
	return respond(w, ss)
}

// adminServerPage handles GET /admin/servers/{server}.
func (a *API) adminServerPage(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	p, err := a.app.AdminServerPage(r.Context(), c, chat.ID(r.PathValue("server")))
	if err != nil {
		return err
	}
	return respond(w, p)
}

// adminDeleteServer handles DELETE /admin/servers/{server}.
func (a *API) adminDeleteServer(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminDeleteServer(r.Context(), c, chat.ID(r.PathValue("server"))); err != nil {
		return err
	}
	return noContent(w)
}

// transferRequest is the body of POST /admin/servers/{server}/transfer.
type transferRequest struct {
	Owner chat.ID `json:"owner"`
}

// adminTransferServer handles POST /admin/servers/{server}/transfer {owner}.
func (a *API) adminTransferServer(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminCheck(c); err != nil {
		return err
	}
	d, err := decode[transferRequest](w, r, a.limit)
	if err != nil {
		return err
	}
	s, err := a.app.AdminTransferServer(r.Context(), c, chat.ID(r.PathValue("server")), d.Owner)
	if err != nil {
		return err
	}
	return respond(w, s)
}

// adminRemoveMember handles DELETE /admin/servers/{server}/members/{member}.
func (a *API) adminRemoveMember(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	err := a.app.AdminRemoveMember(r.Context(), c, chat.ID(r.PathValue("server")), chat.ID(r.PathValue("member")))
	if err != nil {
		return err
	}
	return noContent(w)
}

// adminInvites handles GET /admin/invites.
func (a *API) adminInvites(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	invs, err := a.app.AdminRegistrationInvites(r.Context(), c)
	if err != nil {
		return err
	}
	return respond(w, invs)
}

// adminCreateInvite handles POST /admin/invites.
func (a *API) adminCreateInvite(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	invs, err := a.app.CreateRegistrationInvites(r.Context(), c, 1)
	if err != nil {
		return err
	}
	return respond(w, invs[0])
}

// adminDeleteInvite handles DELETE /admin/invites/{code}.
func (a *API) adminDeleteInvite(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.AdminDeleteRegistrationInvite(r.Context(), c, r.PathValue("code")); err != nil {
		return err
	}
	return noContent(w)
}

// adminAudit handles GET /admin/audit?target=&before=&limit=.
func (a *API) adminAudit(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	limit, err := queryLimit(r, 100)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	es, err := a.app.AdminActions(r.Context(), c, app.AdminActionQuery{Target: q.Get("target"),
		Before: chat.ID(q.Get("before")), Limit: limit})
	if err != nil {
		return err
	}
	return respond(w, es)
}
