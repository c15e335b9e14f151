package files_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"ermine/internal/apitest"
)

// TestHostileUploads sends what a broken or hostile client might and
// checks each gets its documented error and leaves nothing behind: no
// temporary file, no stored bytes, no record.
func TestHostileUploads(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			n := start(t, backend)
			u := n.NewUser("mallory")
			ct, good := multipartBody(t, [3]string{"file", "a.txt", "hello"})
			ct2, dup := multipartBody(t, [3]string{"file", "a.txt", "one"}, [3]string{"file", "b.txt", "two"})
			ct3, nofile := multipartBody(t, [3]string{"other", "", "value"}, [3]string{"picture", "a.png", "x"})
			ct4, empty := multipartBody(t, [3]string{"file", "empty.txt", ""})
			ct5, big := multipartBody(t, [3]string{"file", "big.bin", strings.Repeat("x", 500_001)})
			ct6, huge := multipartBody(t, [3]string{"file", "huge.bin", strings.Repeat("y", 600_000)})
			tests := []struct {
				name    string
				tag     string
				ctype   string
				body    []byte
				session string
				header  map[string]string
				status  int
				errType string
				field   string // an extra field of the error and its value
			}{
				{"no token", "attachments", ct, good, "", nil, 401, "NotAuthenticated", ""},
				{"bad token", "attachments", ct, good, strings.Repeat("x", 64), nil, 401, "InvalidSession", ""},
				{"unknown tag", "secrets", ct, good, u.Token, nil, 404, "NotFound", ""},
				{"not multipart", "attachments", "application/json", []byte(`{"file":"x"}`), u.Token, nil, 400, "FailedValidation", ""},
				{"no boundary", "attachments", "multipart/form-data", good, u.Token, nil, 400, "FailedValidation", ""},
				{"truncated", "attachments", ct, good[:len(good)-20], u.Token, nil, 400, "FailedValidation", ""},
				{"cut inside the file", "attachments", ct, good[:bytes.Index(good, []byte("hello"))+2], u.Token, nil, 400, "FailedValidation", ""},
				{"missing file field", "attachments", ct3, nofile, u.Token, nil, 400, "FailedValidation", ""},
				{"two file fields", "attachments", ct2, dup, u.Token, nil, 400, "FailedValidation", ""},
				{"zero bytes", "attachments", ct4, empty, u.Token, nil, 422, "FileTooSmall", ""},
				{"one byte over the emoji limit", "emojis", ct5, big, u.Token, nil, 422, "FileTooLarge", "500000"},
				{"declared length over the limit", "emojis", ct6, huge, u.Token, nil, 422, "FileTooLarge", "500000"},
				{"text as an avatar", "avatars", ct, good, u.Token, nil, 400, "FileTypeNotAllowed", ""},
				{"bomb as an avatar", "avatars", "", pngBomb(100_000, 100_000), u.Token, nil, 400, "FileTypeNotAllowed", ""},
				{"bomb within 16k sides", "icons", "", pngBomb(16_000, 16_000), u.Token, nil, 400, "FileTypeNotAllowed", ""},
				{"corrupt image as an icon", "icons", "", pngCorrupt(64, 64), u.Token, nil, 400, "FileTypeNotAllowed", ""},
				{"svg as an emoji", "emojis", "", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), u.Token, nil, 400, "FileTypeNotAllowed", ""},
				{"truncated jpeg as a banner", "banners", "", jpegWithExif(t, quadrants(64, 64), 6)[:300], u.Token, nil, 400, "FileTypeNotAllowed", ""},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					ctype, body := tc.ctype, tc.body
					if ctype == "" { // a file to put in a well-formed form
						ctype, body = multipartBody(t, [3]string{"file", "f", string(tc.body)})
					}
					res := n.Do(apitest.Request{Method: http.MethodPost, Path: "/autumn/" + tc.tag, Body: body,
						Header: merge(map[string]string{"Content-Type": ctype}, tc.header), Session: tc.session})
					if res.Status != tc.status || errType(t, res.Body) != tc.errType {
						t.Fatalf("got %d %s, want %d %s", res.Status, res.Body, tc.status, tc.errType)
					}
					if tc.field != "" && !strings.Contains(string(res.Body), `"max":`+tc.field) {
						t.Fatalf("body %s lacks max %s", res.Body, tc.field)
					}
					n.spoolEmpty()
					if keys := n.keys(""); len(keys) != 0 {
						t.Fatalf("stored blobs after a refused upload: %v", keys)
					}
				})
			}
		})
	}
}

func merge(a, b map[string]string) map[string]string {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// TestOversizedStream sends a body far beyond the limit without a
// declared length: the service must stop reading at the limit.
func TestOversizedStream(t *testing.T) {
	n := start(t, backends[0])
	u := n.NewUser("bob")
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big\"\r\n\r\n"))
		chunk := bytes.Repeat([]byte("z"), 64<<10)
		for range 200 { // 12.8 MB, far past the emoji limit
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		_ = pw.Close()
	}()
	req, err := http.NewRequest(http.MethodPost, n.URL+"/autumn/emojis", pr)
	must(t, err)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	req.Header.Set("X-Session-Token", u.Token)
	res, err := n.client.Do(req)
	must(t, err)
	defer res.Body.Close()
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", res.StatusCode)
	}
	_ = pr.Close()
	n.spoolEmpty()
}

// TestWrongTagAndUnknownIDs checks the GET routes refuse what does not
// exist or is asked for under another tag.
func TestWrongTagAndUnknownIDs(t *testing.T) {
	n := start(t, backends[0])
	u := n.NewUser("carol")
	id := n.uploadID("avatars", u.Token, "me.png", pngWithText(t, quadrants(20, 20), 0))
	n.use(id)
	for _, p := range []string{
		"/autumn/avatars/" + id,
		"/autumn/avatars/" + id + "/me.png",
	} {
		if res := n.get(p); res.status != http.StatusOK {
			t.Fatalf("GET %s: %d", p, res.status)
		}
	}
	for _, p := range []string{
		"/autumn/icons/" + id, // another tag
		"/autumn/attachments/" + id + "/me.png",
		"/autumn/avatars/" + strings.Repeat("A", 42), // unknown id
		"/autumn/avatars/" + strings.Repeat("A", 500),
		"/autumn/avatars/download/" + strings.Repeat("A", 42) + "/me.png",
		"/autumn/secrets/" + id, // unknown tag
		"/autumn/avatars/" + id + "/me.png/more",
	} {
		res := n.get(p)
		if res.status != http.StatusNotFound || errType(t, res.body) != "NotFound" {
			t.Fatalf("GET %s: %d %s", p, res.status, res.body)
		}
	}
	if res := n.request(http.MethodDelete, "/autumn/avatars/"+id); res.status != http.StatusNotFound && res.status != http.StatusMethodNotAllowed {
		t.Fatalf("DELETE: %d", res.status)
	}
}

// TestUploadRateLimit checks the eleventh upload of a user to one tag
// within ten seconds is refused with the standard headers, while other
// tags and users are unaffected.
func TestUploadRateLimit(t *testing.T) {
	n := start(t, backends[0])
	u := n.NewUser("dave")
	other := n.NewUser("erin")
	ct, body := multipartBody(t, [3]string{"file", "a.txt", "same bytes"})
	send := func(tag, token string) *apitest.Response {
		return n.Do(apitest.Request{Method: http.MethodPost, Path: "/autumn/" + tag, Body: body,
			Header: map[string]string{"Content-Type": ct}, Session: token})
	}
	for i := range 10 {
		res := send("attachments", u.Token)
		if res.Status != http.StatusOK {
			t.Fatalf("upload %d: %d %s", i, res.Status, res.Body)
		}
		if got := res.Header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(9-i) {
			t.Fatalf("upload %d: remaining %q", i, got)
		}
	}
	res := send("attachments", u.Token)
	if res.Status != http.StatusTooManyRequests || !strings.Contains(string(res.Body), `"retry_after":`) {
		t.Fatalf("eleventh upload: %d %s", res.Status, res.Body)
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Bucket", "X-RateLimit-Remaining", "X-RateLimit-Reset-After"} {
		if res.Header.Get(h) == "" {
			t.Errorf("429 without %s", h)
		}
	}
	if res.Header.Get("X-RateLimit-Limit") != "10" {
		t.Errorf("limit %q", res.Header.Get("X-RateLimit-Limit"))
	}
	if res := send("banners", u.Token); res.Status == http.StatusTooManyRequests {
		t.Fatal("another tag is limited too")
	}
	if res := send("attachments", other.Token); res.Status != http.StatusOK {
		t.Fatalf("another user: %d", res.Status)
	}
}

// TestCORS checks browsers on any origin may upload and read the
// rate-limit headers.
func TestCORS(t *testing.T) {
	n := start(t, backends[0])
	res := n.request(http.MethodOptions, "/autumn/attachments",
		"Origin", "https://app.example", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "x-session-token")
	if res.status != http.StatusNoContent {
		t.Fatalf("preflight: %d", res.status)
	}
	h := res.header
	if h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "X-Session-Token") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "X-Bot-Token") ||
		!strings.Contains(h.Get("Access-Control-Expose-Headers"), "X-RateLimit-Remaining") {
		t.Fatalf("preflight headers: %v", h)
	}
}
