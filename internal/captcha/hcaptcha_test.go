package captcha

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"ermine/internal/chat"
)

// TestHCaptcha checks what is sent to siteverify and how each answer is
// read, against a loopback stand-in.
func TestHCaptcha(t *testing.T) {
	var got map[string]string
	status, body := http.StatusOK, `{"success":true}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Errorf("parse form: %v", err)
		}
		got = map[string]string{"secret": r.PostForm.Get("secret"), "response": r.PostForm.Get("response"), "sitekey": r.PostForm.Get("sitekey")}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	h := &HCaptcha{Secret: "s3cret", SiteKey: "site", VerifyURL: srv.URL}

	cases := []struct {
		name, answer, body string
		status             int
		want               error // nil: accepted; ErrCaptchaFailed: refused; otherwise any other error
	}{
		{"solved", "token", `{"success":true}`, http.StatusOK, nil},
		{"wrong", "token", `{"success":false,"error-codes":["invalid-input-response"]}`, http.StatusOK, chat.ErrCaptchaFailed},
		{"service error", "token", `oops`, http.StatusInternalServerError, errors.New("status")},
		{"not JSON", "token", `<html>`, http.StatusOK, errors.New("decode")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body, got = c.status, c.body, nil
			err := h.Verify(t.Context(), c.answer)
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("Verify = %v, want nil", err)
			case c.want == chat.ErrCaptchaFailed && !errors.Is(err, chat.ErrCaptchaFailed):
				t.Fatalf("Verify = %v, want CaptchaFailed", err)
			case c.want != nil && c.want != chat.ErrCaptchaFailed && (err == nil || errors.Is(err, chat.ErrCaptchaFailed)):
				t.Fatalf("Verify = %v, want a failure to reach the service (not the client's fault)", err)
			}
			if want := map[string]string{"secret": "s3cret", "response": c.answer, "sitekey": "site"}; got == nil || got["secret"] != want["secret"] || got["response"] != want["response"] || got["sitekey"] != want["sitekey"] {
				t.Errorf("siteverify got %v, want %v", got, want)
			}
		})
	}

	t.Run("empty answer asks nothing", func(t *testing.T) {
		got = nil
		if err := h.Verify(t.Context(), ""); !errors.Is(err, chat.ErrCaptchaFailed) {
			t.Fatalf("Verify(\"\") = %v, want CaptchaFailed", err)
		}
		if got != nil {
			t.Errorf("an empty answer was sent to siteverify: %v", got)
		}
	})
}
