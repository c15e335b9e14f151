package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"ermine/internal/apitest"
)

// TestSwaggerBodies checks that /swagger shows each request body's
// fields (name, type, required or not), not only its schema's name, and
// every form of a body that has several.
func TestSwaggerBodies(t *testing.T) {
	h := apitest.Start(t)
	res := h.Get("/swagger", "")
	if res.Status != http.StatusOK {
		t.Fatalf("/swagger = %d", res.Status)
	}
	page := string(res.Body)
	op := func(method, path string) string {
		t.Helper()
		start := strings.Index(page, `">`+method+`</code> <code>`+path+`</code>`)
		if start < 0 {
			t.Fatalf("/swagger has no %s %s", method, path)
		}
		end := strings.Index(page[start:], "</details>")
		return page[start : start+end]
	}
	row := func(section, name, typ, req string) {
		t.Helper()
		re := regexp.MustCompile(`<tr><td><code>` + regexp.QuoteMeta(name) + `</code></td><td><code>[^<]*` + regexp.QuoteMeta(typ) + `[^<]*</code></td><td>` + req + `</td>`)
		if !re.MatchString(section) {
			t.Errorf("no %s field %q (%s) in:\n%s", req, name, typ, section)
		}
	}
	send := op("POST", "/channels/{target}/messages")
	row(send, "content", "string", "optional")
	row(send, "replies", "ReplyIntent[]", "optional")
	row(send, "attachments", "string[]", "optional")
	create := op("POST", "/auth/account/create")
	row(create, "email", "string", "required")
	row(create, "password", "string", "required")
	login := op("POST", "/auth/session/login")
	if !strings.Contains(login, "one of:") {
		t.Errorf("login's two forms are not shown as alternatives:\n%s", login)
	}
	row(login, "password", "string", "required")
	row(login, "mfa_ticket", "string", "required")
	edit := op("PATCH", "/servers/{target}")
	row(edit, "remove", "FieldsServer", "optional")
}
