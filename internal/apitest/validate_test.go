package apitest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindOperation(t *testing.T) {
	tests := []struct {
		method, path string
		want         string // operationId, "" for none
		params       map[string]string
	}{
		{"GET", "/", "root_root", nil},
		{"GET", "/api/", "root_root", nil},
		{"GET", "/0.8", "root_root", nil},
		{"GET", "/users/@me", "fetch_self_fetch", nil},
		{"GET", "/api/users/@me?", "fetch_self_fetch", nil},
		{"GET", "/users/01ARZ3NDEKTSV4RRFFQ69G5FAV", "fetch_user_fetch", map[string]string{"target": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}},
		{"PATCH", "/users/@me", "edit_user_edit", map[string]string{"target": "@me"}},
		{"GET", "/auth/account/", "fetch_account_fetch_account", nil},
		{"GET", "/auth/account", "", nil},
		{"PUT", "/channels/C/permissions/default", "permissions_set_default_set_default_channel_permissions", map[string]string{"target": "C"}},
		{"PUT", "/channels/C/permissions/R", "permissions_set_set_role_permissions", map[string]string{"target": "C", "role_id": "R"}},
		{"PUT", "/channels/C/messages/M/reactions/%F0%9F%91%8D", "message_react_react_message", map[string]string{"target": "C", "msg": "M", "emoji": "%F0%9F%91%8D"}},
		{"GET", "/users/", "", nil},
		{"GET", "/healthz", "", nil},
		{"GET", "/apix/users/@me", "", nil},
		{"DELETE", "/", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			op, params := FindOperation(t, tc.method, tc.path)
			if tc.want == "" {
				if op != nil {
					t.Fatalf("found %s, want none", op)
				}
				return
			}
			if op == nil || op.ID != tc.want {
				t.Fatalf("found %v, want %s", op, tc.want)
			}
			for k, v := range tc.params {
				if params[k] != v {
					t.Errorf("param %s = %q, want %q", k, params[k], v)
				}
			}
		})
	}
	// The contract's 121 operations, plus the additions Ermine serves:
	// emoji_edit, audit_log_query, the two webhook message routes, the
	// discovery document, search and the mentions inbox.
	if n := len(Operations(t)); n != 128 {
		t.Errorf("served document has %d operations, want 128", n)
	}
}

func TestCheckResponse(t *testing.T) {
	root := `{"revolt":"0.8","stoat":"0.8","features":{"captcha":{"enabled":false,"key":""},"email":false,"invite_only":false,` +
		`"autumn":{"enabled":true,"url":"x"},"january":{"enabled":false,"url":""},` +
		`"livekit":{"enabled":false,"nodes":[]}},"ws":"ws://x/events","app":"x","vapid":"",` +
		`"build":{"commit_sha":"","commit_timestamp":"","semver":"","origin_url":"","timestamp":""}}`
	tests := []struct {
		name, method, path string
		status             int
		ctype, body        string
		problem            string // substring of the problem, "" for none
	}{
		{"root ok", "GET", "/", 200, "application/json", root, ""},
		{"root under /api", "GET", "/api/", 200, "application/json; charset=utf-8", root, ""},
		{"root missing ws", "GET", "/", 200, "application/json", strings.Replace(root, `"ws"`, `"wz"`, 1), `property "ws" is missing`},
		{"root wrong type", "GET", "/", 200, "application/json", strings.Replace(root, `"email":false`, `"email":"no"`, 1), "email"},
		{"unlisted success status", "GET", "/", 201, "application/json", root, "status 201 is not one the contract lists"},
		{"204 as contract says", "DELETE", "/users/U/friend", 200, "application/json", `{"type":"NoEffect","location":"x"}`, ""},
		{"200 where 204 is due", "PUT", "/channels/C/ack/M", 200, "application/json", `{}`, "status 200 is not one the contract lists (204, default)"},
		{"204 with a body", "PUT", "/channels/C/ack/M", 204, "", `{}`, "204 with a body"},
		{"204 empty", "PUT", "/channels/C/ack/M", 204, "", ``, ""},
		{"server with channel objects", "GET", "/servers/S?include_channels=true", 200, "application/json",
			`{"_id":"S","owner":"U","name":"n","default_permissions":0,"channels":[{"channel_type":"TextChannel","_id":"C","server":"S","name":"General"}]}`, ""},
		{"server with channel ids", "GET", "/servers/S", 200, "application/json",
			`{"_id":"S","owner":"U","name":"n","default_permissions":0,"channels":["C"]}`, ""},
		{"server with broken channels", "GET", "/servers/S", 200, "application/json",
			`{"_id":"S","owner":"U","name":"n","default_permissions":0,"channels":[{"name":"General"}]}`, "alternative 2: "},
		{"error with location", "GET", "/users/U", 404, "application/json", `{"type":"UnknownUser","location":"GET /users/{target}"}`, ""},
		{"error without location", "GET", "/users/U", 404, "application/json", `{"type":"UnknownUser"}`, `"location" is missing`},
		{"error type not in the contract", "GET", "/users/U", 400, "application/json", `{"type":"Whatever","location":"x"}`, "does not match"},
		{"error with its fields", "GET", "/users/U", 403, "application/json", `{"type":"MissingPermission","permission":"ViewChannel","location":"x"}`, ""},
		{"error lacking its fields", "GET", "/users/U", 403, "application/json", `{"type":"MissingPermission","location":"x"}`, "does not match"},
		{"authifier error on /auth", "POST", "/auth/session/login", 401, "application/json", `{"type":"InvalidCredentials"}`, ""},
		{"authifier-only type on /auth", "POST", "/auth/account/create", 400, "application/json", `{"type":"ShortPassword"}`, ""},
		{"authifier shape off /auth", "GET", "/users/U", 401, "application/json", `{"type":"InvalidSession"}`, "does not match"},
		{"error not JSON", "GET", "/users/U", 500, "text/plain", `oops`, "Content-Type"},
		{"429 retry_after", "GET", "/users/U", 429, "application/json", `{"retry_after":1234}`, ""},
		{"429 without retry_after", "GET", "/users/U", 429, "application/json", `{"retry":1}`, "retry_after"},
		{"router 405", "PATCH", "/users/U", 405, "application/json", `{"type":"MethodNotAllowed","location":"router"}`, ""},
		{"not in the contract", "GET", "/healthz", 503, "text/plain", `down`, ""},
		{"redirect", "GET", "/users/U", 308, "", ``, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			h := http.Header{}
			if tc.ctype != "" {
				h.Set("Content-Type", tc.ctype)
			}
			_, problem := checkResponse(t, req, tc.status, h, []byte(tc.body))
			if tc.problem == "" && problem != "" {
				t.Fatalf("problem %q, want none", problem)
			}
			if tc.problem != "" && !strings.Contains(problem, tc.problem) {
				t.Fatalf("problem %q, want one containing %q", problem, tc.problem)
			}
		})
	}
}

func TestCoverageAndReport(t *testing.T) {
	req := httptest.NewRequest("GET", "/api/users/@me", nil)
	h := http.Header{"Content-Type": {"application/json"}}
	// A failing response does not count; a valid one does.
	if _, p := checkResponse(t, req, 200, h, []byte(`{}`)); p == "" || Exercised("fetch_self_fetch") {
		t.Fatalf("invalid body counted (problem %q)", p)
	}
	user := `{"_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV","username":"ann","discriminator":"1234","relationship":"User","online":true}`
	if _, p := checkResponse(t, req, 200, h, []byte(user)); p != "" || !Exercised("fetch_self_fetch") {
		t.Fatalf("valid body not counted (problem %q)", p)
	}
	var out bytes.Buffer
	file := filepath.Join(t.TempDir(), "unexercised.txt")
	if err := report(&out, file); err != nil {
		t.Fatal(err)
	}
	line := out.String()
	if !strings.HasPrefix(line, "contract: ") || !strings.Contains(line, fmt.Sprintf(" of %d operations exercised; unexercised (", len(Operations(t)))) ||
		strings.Contains(line, "fetch_self_fetch") || !strings.Contains(line, " fetch_user_fetch") {
		t.Errorf("report line: %s", line)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nfetch_user_fetch GET /users/{target}\n") || strings.Contains(string(b), "fetch_self_fetch") {
		t.Errorf("report file:\n%s", b)
	}
}
