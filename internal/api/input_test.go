package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ermine/internal/chat"
)

// hostileBody is a request body with ids and free text at several depths.
type hostileBody struct {
	Content string `json:"content"`
	Replies []struct {
		ID chat.ID `json:"id"`
	} `json:"replies"`
	Owner    *chat.ID          `json:"owner"`
	Ranks    []chat.ID         `json:"ranks"`
	Settings map[string]string `json:"settings"`
	Raw      json.RawMessage   `json:"raw"`
	Any      any               `json:"any"`
}

func TestInputRules(t *testing.T) {
	id := string(chat.NewID())
	for _, tc := range []struct {
		name, in, field string // field "" means accepted
	}{
		{"clean", `{"content":"hi","replies":[{"id":"` + id + `"}],"owner":"` + id + `","ranks":["` + id + `"]}`, ""},
		{"escaped backslash is not NUL", `{"content":"\\u0000 and \\\\u0000"}`, ""},
		{"NUL in content", `{"content":"a\u0000b"}`, "content"},
		{"NUL in a reply id", `{"replies":[{"id":"` + id + `"},{"id":"\u0000"}]}`, "replies[1].id"},
		{"NUL in a settings value", `{"settings":{"theme":"da\u0000rk"}}`, "settings.theme"},
		{"NUL in a settings key", `{"settings":{"th\u0000eme":"dark"}}`, `settings.th\u0000eme`},
		{"NUL in raw JSON", `{"raw":{"a":[1,"\u0000"]}}`, "raw.a[1]"},
		{"NUL in any", `{"any":["x",{"k":"\u0000"}]}`, "any[1].k"},
		{"NUL in an unknown field", `{"extra":{"deep":["\u0000"]}}`, "extra.deep[0]"},
		{"NUL after an odd backslash run", `{"content":"\\\u0000"}`, "content"},
		{"malformed reply id", `{"replies":[{"id":"nope"}]}`, "replies[0].id"},
		{"lower-case ulid", `{"owner":"` + strings.ToLower(id) + `"}`, "owner"},
		{"malformed rank", `{"ranks":["` + id + `","` + id + `x"]}`, "ranks[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.in))
			_, err := decode[hostileBody](httptest.NewRecorder(), r, 1<<20)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ce *chat.Error
			if !errors.As(err, &ce) || ce.Type != "FailedValidation" || Status(ce) != http.StatusUnprocessableEntity {
				t.Fatalf("error = %v, want FailedValidation 422", err)
			}
			if msg, _ := ce.Fields["error"].(string); !strings.HasPrefix(msg, tc.field+": ") {
				t.Errorf("message %q does not name %s", msg, tc.field)
			}
		})
	}
}

func TestCheckRequest(t *testing.T) {
	id := string(chat.NewID())
	for _, tc := range []struct {
		pattern, path string
		status        int // 0: accepted
	}{
		{"GET /channels/{target}/messages", "/channels/" + id + "/messages", 0},
		{"GET /channels/{target}/messages", "/channels/%00/messages", 404},
		{"GET /channels/{target}/messages", "/channels/nope/messages", 404},
		{"GET /channels/{target}/messages", "/channels/" + id + "/messages?before=%00", 422},
		{"GET /channels/{target}/messages", "/channels/" + id + "/messages?before=nope", 422},
		{"GET /channels/{target}/messages", "/channels/" + id + "/messages?sort=a%00", 422},
		{"GET /channels/{target}/messages", "/channels/" + id + "/messages?before=&limit=5", 0},
		{"GET /users/{target}", "/users/@me", 0},
		{"GET /servers/{target}", "/servers/@me", 404},
		{"GET /invites/{target}", "/invites/abcDEF12", 0},
		{"GET /invites/{target}", "/invites/ab%00", 404},
		{"GET /invites/{target}", "/invites/%C0%AF", 404},
		{"GET /channels/{target}/messages", "/channels/" + id + "/messages?sort=%C0%AF", 422},
		{"GET /users/{target}/default_avatar", "/users/anything/default_avatar", 0},
		{"PUT /channels/{target}/messages/{msg}/reactions/{emoji}", "/channels/" + id + "/messages/" + id + "/reactions/%F0%9F%91%8D", 0},
		{"PUT /channels/{target}/messages/{msg}/reactions/{emoji}", "/channels/" + id + "/messages/" + id + "/reactions/%00", 404},
	} {
		mux := http.NewServeMux()
		var got error
		mux.HandleFunc(tc.pattern, func(w http.ResponseWriter, r *http.Request) { got = checkRequest(r) })
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(strings.Fields(tc.pattern)[0], tc.path, nil))
		var ce *chat.Error
		switch {
		case tc.status == 0 && got != nil:
			t.Errorf("%s: refused with %v", tc.path, got)
		case tc.status != 0 && (!errors.As(got, &ce) || Status(ce) != tc.status):
			t.Errorf("%s: error %v, want status %d", tc.path, got, tc.status)
		}
	}
}

// FuzzInputRules checks the NUL rule against the JSON decoder itself: a
// body whose decoded strings (keys or values, at any depth) hold NUL is
// always refused, one is refused only when its text holds the escape
// (a duplicate key may hide the NUL from the decoded value, and is
// refused still), and the walk never panics.
func FuzzInputRules(f *testing.F) {
	for _, s := range []string{`{"a":"\u0000"}`, `{"\u0000":1}`, `["\\u0000"]`, `[{"a":[{"b":"x\u0000"}]}]`, `"\u0000"`, `{"a":"\\\u0000"}`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var v any
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		_, found := nulPath([]byte(in))
		if holdsNUL(v) && !found {
			t.Fatalf("NUL missed in %q", in)
		}
		if found && !strings.Contains(in, `u0000`) {
			t.Fatalf("NUL reported in %q", in)
		}
		var hb hostileBody
		if json.Unmarshal([]byte(in), &hb) == nil {
			_ = checkBody([]byte(in), &hb)
		}
	})
}

func holdsNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.IndexByte(v, 0) >= 0
	case []any:
		for _, e := range v {
			if holdsNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range v {
			if strings.IndexByte(k, 0) >= 0 || holdsNUL(e) {
				return true
			}
		}
	}
	return false
}
