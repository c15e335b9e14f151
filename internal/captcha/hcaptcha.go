// Package captcha checks captcha answers with the service that issued the
// challenge: hCaptcha's siteverify, over HTTP. app decides when an answer
// is needed (registration, password reset, resending verification); this
// package only knows how to ask.
package captcha

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"ermine/internal/chat"
)

// HCaptchaVerifyURL is hCaptcha's verification endpoint.
const HCaptchaVerifyURL = "https://api.hcaptcha.com/siteverify"

// HCaptcha verifies hCaptcha answers with the site's secret.
type HCaptcha struct {
	Secret  string
	SiteKey string // sent along so hCaptcha checks the answer was for this site; optional
	// VerifyURL is HCaptchaVerifyURL when empty.
	VerifyURL string
	// Client makes the request; one with a 10-second timeout when nil.
	Client *http.Client
}

// Verify asks hCaptcha whether answer is a solved challenge.
func (h *HCaptcha) Verify(ctx context.Context, answer string) error {
	if answer == "" {
		return chat.ErrCaptchaFailed
	}
	endpoint, client := h.VerifyURL, h.Client
	if endpoint == "" {
		endpoint = HCaptchaVerifyURL
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	form := url.Values{"secret": {h.Secret}, "response": {answer}}
	if h.SiteKey != "" {
		form.Set("sitekey", h.SiteKey)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("captcha request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("captcha verify: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("captcha verify: status %s", res.Status)
	}
	var out struct {
		Success bool `json:"success"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&out); err != nil {
		return fmt.Errorf("captcha verify: %w", err)
	}
	if !out.Success {
		return chat.ErrCaptchaFailed
	}
	return nil
}
