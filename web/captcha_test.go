package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"ermine/internal/apitest"
)

// TestCaptcha runs e2e/captcha.mjs against an Ermine with captcha on and
// mail on, whose captcha check goes to a stand-in for hCaptcha's
// siteverify here: it accepts each right answer ("good-...") once, with
// the instance's secret and site key.
func TestCaptcha(t *testing.T) {
	bin := browser(t)

	const siteKey, secret = "ermine-site-key", "ermine-captcha-secret"
	var (
		mu       sync.Mutex
		answers  []string
		accepted = map[string]bool{}
	)
	verify := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		answer := r.PostForm.Get("response")
		mu.Lock()
		answers = append(answers, answer)
		ok := r.PostForm.Get("secret") == secret && r.PostForm.Get("sitekey") == siteKey &&
			strings.HasPrefix(answer, "good-") && !accepted[answer]
		if ok {
			accepted[answer] = true
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if ok {
			_, _ = w.Write([]byte(`{"success":true}`))
		} else {
			_, _ = w.Write([]byte(`{"success":false,"error-codes":["invalid-input-response"]}`))
		}
	}))
	t.Cleanup(verify.Close)

	box := apitest.StartSMTP(t, "ermine", "mail-secret")
	host, port, _ := strings.Cut(box.Addr(), ":")
	url := startErmine(t, buildErmine(t), "ERMINE_LIMITS_RATE_LIMITS=false",
		"ERMINE_CAPTCHA_HCAPTCHA_KEY="+siteKey, "ERMINE_CAPTCHA_HCAPTCHA_SECRET="+secret, "ERMINE_CAPTCHA_VERIFY_URL="+verify.URL,
		"ERMINE_EMAIL_HOST="+host, "ERMINE_EMAIL_PORT="+port, "ERMINE_EMAIL_TLS=none",
		"ERMINE_EMAIL_USERNAME=ermine", "ERMINE_EMAIL_PASSWORD=mail-secret", "ERMINE_EMAIL_FROM=Ermine <noreply@ermine.test>")
	runScript(t, bin, url, "captcha.mjs", "passed", "CAPTCHA_SITE_KEY="+siteKey)

	// The client sent nothing without an answer, then the wrong answer,
	// then a right one for registration and another for the reset.
	mu.Lock()
	defer mu.Unlock()
	if len(answers) != 3 || !strings.HasPrefix(answers[0], "bad-") || len(accepted) != 2 {
		t.Errorf("siteverify saw %q, accepted %v; want a wrong answer, then two right ones", answers, accepted)
	}
}
