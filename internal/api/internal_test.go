package api

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/pubsub/inproc"
	"ermine/internal/ratelimit"
	"ermine/internal/store/sqlite"
)

// TestEveryErrorHasAStatus reads the catalogue in package chat and checks
// each error type has a row in the status table.
func TestEveryErrorHasAStatus(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../chat/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		if id, ok := call.Fun.(*ast.Ident); ok && (id.Name == "errType" || id.Name == "errField") {
			if lit, ok := call.Args[0].(*ast.BasicLit); ok {
				s, _ := strconv.Unquote(lit.Value)
				types = append(types, s)
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		if key, isIdent := kv.Key.(*ast.Ident); isIdent && key.Name == "Type" {
			if lit, ok := kv.Value.(*ast.BasicLit); ok {
				s, _ := strconv.Unquote(lit.Value)
				types = append(types, s)
			}
		}
		return true
	})
	if len(types) < 80 {
		t.Fatalf("found only %d error types; is the parser reading the catalogue?", len(types))
	}
	for _, typ := range types {
		if _, ok := statuses[typ]; !ok {
			t.Errorf("error type %s has no HTTP status", typ)
		}
	}
	if _, ok := statuses[app.ErrOnboardingNotFinished.Type]; !ok {
		t.Error("OnboardingNotFinished has no HTTP status")
	}
}

func TestStatusOverride(t *testing.T) {
	if got := Status(chat.ErrInvalidBody("x")); got != http.StatusUnprocessableEntity {
		t.Errorf("invalid body = %d", got)
	}
	if got := Status(chat.ErrFailedValidation("x")); got != http.StatusBadRequest {
		t.Errorf("failed validation = %d", got)
	}
	if got := Status(chat.ErrNoEffect); got != http.StatusOK {
		t.Errorf("NoEffect = %d", got)
	}
}

// body is a request with field rules, as the routes' bodies have.
type body struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func (b *body) Validate() error {
	return chat.CheckLength("name", b.Name, 0, 5)
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, in   string
		status     int
		wantInBody string
	}{
		{"empty body", "", 0, ""},
		{"empty object", "{}", 0, ""},
		{"unknown fields ignored", `{"name":"ok","nonce":"01ARZ3","captcha":null}`, 0, ""},
		{"malformed", `{"name":`, http.StatusBadRequest, "malformed JSON"},
		{"not json", `name=x`, http.StatusBadRequest, "malformed JSON"},
		{"wrong type", `{"count":"seven"}`, http.StatusUnprocessableEntity, "count"},
		{"wrong top-level type", `[1,2]`, http.StatusUnprocessableEntity, "body"},
		{"rule broken", `{"name":"toolong"}`, http.StatusUnprocessableEntity, "name"},
		{"too large", `{"name":"` + strings.Repeat("a", 2000) + `"}`, http.StatusRequestEntityTooLarge, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.in))
			r.Header.Set("Content-Type", "text/plain;charset=UTF-8")
			w := httptest.NewRecorder()
			_, err := decode[body](w, r, 1024)
			if tt.status == 0 {
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				return
			}
			var ce *chat.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v, want *chat.Error", err)
			}
			if Status(ce) != tt.status || ce.Type != "FailedValidation" {
				t.Errorf("status %d type %s, want %d FailedValidation", Status(ce), ce.Type, tt.status)
			}
			if msg, _ := ce.Fields["error"].(string); !strings.Contains(msg, tt.wantInBody) {
				t.Errorf("message %q does not mention %q", msg, tt.wantInBody)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"", "{}", `{"name":"a","count":3}`, `{"count":1e309}`, `[`, `null`, "\x00", `{"name":"\ud800"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(in))
		w := httptest.NewRecorder()
		_, err := decode[body](w, r, 4096)
		if err == nil {
			return
		}
		var ce *chat.Error
		if !errors.As(err, &ce) {
			t.Fatalf("decode returned a non-client error %T: %v", err, err)
		}
		if s := Status(ce); s != 400 && s != 413 && s != 422 {
			t.Fatalf("status %d for %q", s, in)
		}
		if _, err := json.Marshal(ce); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPanicBecomesInternalError checks a handler panic answers 500 with an
// error body and the server keeps serving.
func TestPanicBecomesInternalError(t *testing.T) {
	st, err := sqlite.Open(t.Context(), t.TempDir()+"/e.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := New(Options{App: app.New(app.Deps{Store: st, Bus: inproc.New(0)}), Limiter: ratelimit.NewMemory(nil)})
	a.mux.Handle("GET /boom", a.public(func(http.ResponseWriter, *http.Request, *app.Caller) error {
		panic("secret internal detail")
	}))
	srv := httptest.NewServer(a)
	defer srv.Close()
	for range 2 {
		res, err := http.Get(srv.URL + "/boom")
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		_ = json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if res.StatusCode != http.StatusInternalServerError || got["type"] != "InternalError" ||
			got["location"] != "GET /boom" || len(got) != 2 {
			t.Fatalf("panic answered %d %v", res.StatusCode, got)
		}
	}
	res, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("after panics /healthz = %d", res.StatusCode)
	}
}
