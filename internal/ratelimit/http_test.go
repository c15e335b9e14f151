package ratelimit

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestAnswer(t *testing.T) {
	tests := []struct {
		name   string
		res    Result
		goOn   bool
		status int
		body   string
	}{
		{"allowed", Result{Limit: 3, Remaining: 2, ResetAfter: 9500 * time.Millisecond, Allowed: true}, true, 200, ""},
		{"refused", Result{Limit: 3, Remaining: 0, ResetAfter: 1234 * time.Millisecond}, false, 429, `{"retry_after":1234}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			if got := Answer(w, "k", tt.res); got != tt.goOn {
				t.Fatalf("Answer = %v", got)
			}
			if w.Code != tt.status || w.Body.String() != tt.body {
				t.Errorf("answer %d %q, want %d %q", w.Code, w.Body.String(), tt.status, tt.body)
			}
			h := w.Result().Header
			if h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Bucket") != BucketID("k") ||
				h.Get("X-RateLimit-Remaining") != map[bool]string{true: "2", false: "0"}[tt.goOn] ||
				h.Get("X-RateLimit-Reset-After") == "" {
				t.Errorf("headers = %v", h)
			}
			if !tt.goOn && h.Get("Content-Type") != "application/json" {
				t.Errorf("429 content type = %q", h.Get("Content-Type"))
			}
		})
	}
}
