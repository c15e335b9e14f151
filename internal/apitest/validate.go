package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Operation is one operation of the contract: a method on a path template.
type Operation struct {
	ID     string // operationId, e.g. fetch_user_fetch
	Method string // upper case, e.g. GET
	Path   string // template, e.g. /users/{target}
	op     *openapi3.Operation
	item   *openapi3.PathItem
	segs   []string
}

// String is "fetch_user_fetch (GET /users/{target})".
func (o *Operation) String() string { return fmt.Sprintf("%s (%s %s)", o.ID, o.Method, o.Path) }

// operations indexes the contract's operations by method.
type operations struct {
	byMethod map[string][]*Operation
	all      []*Operation // sorted by ID
}

var (
	opsOnce sync.Once
	opsIdx  *operations
)

// contractOperations returns the contract's operations, indexed once per
// test binary.
func contractOperations(t testing.TB) *operations {
	t.Helper()
	doc := Contract(t)
	opsOnce.Do(func() {
		idx := &operations{byMethod: map[string][]*Operation{}}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				o := &Operation{ID: op.OperationID, Method: method, Path: path, op: op, item: item, segs: strings.Split(path, "/")}
				idx.byMethod[method] = append(idx.byMethod[method], o)
				idx.all = append(idx.all, o)
			}
		}
		sort.Slice(idx.all, func(i, j int) bool { return idx.all[i].ID < idx.all[j].ID })
		opsIdx = idx
	})
	return opsIdx
}

// Operations lists every operation of the contract, sorted by ID.
func Operations(t testing.TB) []*Operation {
	t.Helper()
	return contractOperations(t).all
}

// stripPrefix removes the /api or /0.8 base the server also answers under.
func stripPrefix(path string) string {
	for _, p := range []string{"/api", "/0.8"} {
		if path == p {
			return "/"
		}
		if strings.HasPrefix(path, p+"/") {
			return path[len(p):]
		}
	}
	return path
}

// FindOperation returns the contract operation a request goes to, with
// its path parameters, or nil when the contract has no such operation
// (e.g. /healthz). rawPath is the escaped path, with or without the /api
// or /0.8 prefix and the query. Like the server's router, a literal
// segment wins over a parameter (/users/@me over /users/{target}).
func FindOperation(t testing.TB, method, rawPath string) (*Operation, map[string]string) {
	t.Helper()
	if i := strings.IndexAny(rawPath, "?#"); i >= 0 {
		rawPath = rawPath[:i]
	}
	segs := strings.Split(stripPrefix(rawPath), "/")
	var best *Operation
	for _, o := range contractOperations(t).byMethod[strings.ToUpper(method)] {
		if matches(o.segs, segs) && (best == nil || moreSpecific(o.segs, best.segs)) {
			best = o
		}
	}
	if best == nil {
		return nil, nil
	}
	params := map[string]string{}
	for i, s := range best.segs {
		if name, ok := param(s); ok {
			params[name] = segs[i]
		}
	}
	return best, params
}

func param(seg string) (string, bool) {
	if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
		return seg[1 : len(seg)-1], true
	}
	return "", false
}

func matches(tpl, segs []string) bool {
	if len(tpl) != len(segs) {
		return false
	}
	for i, s := range tpl {
		if _, ok := param(s); ok {
			if segs[i] == "" {
				return false
			}
		} else if s != segs[i] {
			return false
		}
	}
	return true
}

// moreSpecific reports whether template a beats b: at the first position
// where one has a literal and the other a parameter, the literal wins.
func moreSpecific(a, b []string) bool {
	for i := range a {
		_, pa := param(a[i])
		_, pb := param(b[i])
		if pa != pb {
			return !pa
		}
	}
	return false
}

// errorExtensions are error types Ermine sends that the contract's Error
// schemas do not list, each with its reason.
var errorExtensions = map[string]string{
	// The router's answer to a method it does not serve on a known path,
	// e.g. a method it does not serve on a path where it serves another.
	"MethodNotAllowed": "router",
}

// CheckResponse fails the test when a response to req does not match the
// contract, and records the operation as exercised when it answered a
// valid success. Harness.Do calls it for every request; requests to paths
// the contract does not have (/healthz, /metrics, /autumn) pass unchecked,
// and so do 1xx and 3xx answers.
func CheckResponse(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	op, problem := checkResponse(t, req, status, header, body)
	if problem != "" {
		t.Errorf("contract: %s answered %s to %s %s: %s\nbody: %.1000s",
			op, statusText(status), req.Method, req.URL.RequestURI(), problem, body)
	}
}

// checkResponse returns the request's operation (nil when not in the
// contract) and "" when the response is fine, else what is wrong.
func checkResponse(t testing.TB, req *http.Request, status int, header http.Header, body []byte) (*Operation, string) {
	t.Helper()
	op, params := FindOperation(t, req.Method, req.URL.EscapedPath())
	if op == nil || status < 200 || (status >= 300 && status < 400) {
		return op, ""
	}
	if status < 300 {
		problem := checkSuccess(t, op, params, req, status, header, body)
		if problem == "" {
			exercised(op)
		}
		return op, problem
	}
	return op, checkError(t, stripPrefix(req.URL.Path), status, header, body)
}

func checkSuccess(t testing.TB, op *Operation, params map[string]string, req *http.Request, status int, header http.Header, body []byte) string {
	t.Helper()
	if status == http.StatusOK && isType(body, "NoEffect") {
		// behaviour.md §5: NoEffect is an error sent with HTTP 200, which
		// clients rely on.
		return ""
	}
	if op.op.Responses.Status(status) == nil {
		return fmt.Sprintf("status %d is not one the contract lists (%s)", status, listed(op))
	}
	if status == http.StatusNoContent && len(body) > 0 {
		return fmt.Sprintf("204 with a body: %.200s", body)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route: &routers.Route{Spec: Contract(t), Path: op.Path, PathItem: op.item,
				Method: op.Method, Operation: op.op},
		},
		Status:  status,
		Header:  header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.Options.WithCustomSchemaErrorFunc(schemaError)
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err.Error()
	}
	return ""
}

// checkError checks an error response to path (without /api or /0.8):
// the 429 of the rate limiter, the contract's Error, or on account routes
// the Authifier Error.
func checkError(t testing.TB, path string, status int, header http.Header, body []byte) string {
	t.Helper()
	if !isJSON(header) {
		return fmt.Sprintf("error response with Content-Type %q, want application/json", header.Get("Content-Type"))
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Sprintf("error body is not JSON: %v", err)
	}
	if status == http.StatusTooManyRequests {
		// Interface document §7: {"retry_after": <ms>}.
		m, _ := v.(map[string]any)
		if ms, ok := m["retry_after"].(float64); ok && ms >= 0 && ms == float64(int64(ms)) {
			return ""
		}
		if !isType(body, "DiscriminatorChangeRatelimited") {
			return "429 body lacks an integer retry_after"
		}
	}
	if m, ok := v.(map[string]any); ok {
		if typ, _ := m["type"].(string); errorExtensions[typ] != "" {
			return ""
		}
	}
	schemas := Contract(t).Components.Schemas
	names := []string{"Error"}
	if strings.HasPrefix(path, "/auth/") {
		// Account routes answer in the Authifier shape (behaviour.md §9.4).
		names = append(names, "Authifier Error")
	}
	var errs []string
	for _, name := range names {
		err := schemas[name].Value.VisitJSON(v, openapi3.VisitAsResponse(), openapi3.SetSchemaErrorMessageCustomizer(schemaError))
		if err == nil {
			return ""
		}
		errs = append(errs, fmt.Sprintf("%s: %v", name, err))
	}
	return "error body does not match " + strings.Join(errs, "; ")
}

// schemaError says where and why a value breaks a schema, without the
// schema dump kin-openapi prints by default.
// Nested causes (a field inside an allOf or oneOf) follow in brackets.
func schemaError(err *openapi3.SchemaError) string {
	msg := fmt.Sprintf("at /%s: %s", strings.Join(err.JSONPointer(), "/"), err.Reason)
	switch {
	case err.Origin != nil:
		msg += " [" + cause(err.Origin) + "]"
	case err.SchemaField == "anyOf" && err.Schema != nil:
		// kin-openapi keeps no cause for anyOf: say why each alternative
		// failed.
		var alts []string
		for i, alt := range err.Schema.AnyOf {
			if alt.Value == nil {
				continue
			}
			e := alt.Value.VisitJSON(err.Value, openapi3.VisitAsResponse(), openapi3.MultiErrors(),
				openapi3.SetSchemaErrorMessageCustomizer(schemaError))
			if e != nil {
				alts = append(alts, fmt.Sprintf("alternative %d: %s", i+1, cause(e)))
			}
		}
		msg += " [" + strings.Join(alts, " | ") + "]"
	}
	return msg
}

func cause(err error) string {
	var se *openapi3.SchemaError
	var me openapi3.MultiError
	switch {
	case errors.As(err, &me):
		// In a oneOf of tagged variants (Error, events) the variants of
		// other types say only "wrong type"; keep the one that matched it.
		var s, tags []string
		for _, e := range me {
			var se *openapi3.SchemaError
			if errors.As(e, &se) && se.SchemaField == "enum" && strings.Join(se.JSONPointer(), "/") == "type" {
				tags = append(tags, cause(e))
				continue
			}
			s = append(s, cause(e))
		}
		if len(s) == 0 {
			return fmt.Sprintf("%d variants, none of this type", len(tags))
		}
		return strings.Join(s, " | ")
	case errors.As(err, &se):
		return schemaError(se)
	}
	return err.Error()
}

func isJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

func isType(body []byte, typ string) bool {
	var e struct{ Type string }
	return json.Unmarshal(bytes.TrimSpace(body), &e) == nil && e.Type == typ
}

// listed names the statuses an operation's responses list.
func listed(op *Operation) string {
	var s []string
	for code := range op.op.Responses.Map() {
		s = append(s, code)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

var (
	coverageMu sync.Mutex
	coverage   = map[string]bool{}
)

// exercised records that a test got a valid success response from op.
// Coverage is per test binary, so it lives beside the contract it counts.
func exercised(op *Operation) {
	coverageMu.Lock()
	coverage[op.ID] = true
	coverageMu.Unlock()
}

// Exercised reports whether any test of this binary got a valid success
// response from the operation with the given operationId.
func Exercised(id string) bool {
	coverageMu.Lock()
	defer coverageMu.Unlock()
	return coverage[id]
}

// statusText is "404 Not Found".
func statusText(code int) string { return strconv.Itoa(code) + " " + http.StatusText(code) }
