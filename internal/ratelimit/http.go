package ratelimit

import (
	"net/http"
	"strconv"
)

// Answer writes the outcome of a Take on key to an HTTP response: the four
// X-RateLimit headers (counts, and milliseconds until the window resets)
// and, when the call was refused, the 429 answer {"retry_after": ms}. It
// reports whether the request may go on.
func Answer(w http.ResponseWriter, key string, res Result) bool {
	h := w.Header()
	reset := strconv.FormatInt(res.ResetAfter.Milliseconds(), 10)
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Bucket", BucketID(key))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	h.Set("X-RateLimit-Reset-After", reset)
	if res.Allowed {
		return true
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte(`{"retry_after":` + reset + `}`))
	return false
}
