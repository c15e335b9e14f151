package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Limiter counts calls per key in fixed windows.
//
// Take counts one call against key. If key has no open window, a window of
// length window opens now; it closes window after that first call, and the
// next call after it opens a fresh one. The window does not slide: later
// calls, allowed or refused, never extend it. Every call counts, including
// refused ones; since the window is fixed this is observably the same as
// counting only allowed calls, and it keeps the shared (Redis) version a
// single increment.
//
// The call is allowed when it is among the first limit calls of the window.
// Result.Remaining is how many more calls the window allows (never
// negative) and Result.ResetAfter the time until it closes, in (0, window].
//
// Take returns ErrInvalid when limit < 1 or window < 1 ms, the context's
// error when ctx is done before the call is counted, and a wrapped backend
// error when the counter cannot be reached; the Result is then zero, and
// the caller decides whether to fail open or closed. Implementations are
// safe for concurrent use, and concurrent calls on one key are counted
// exactly: with limit n, exactly n of them are allowed in one window.
type Limiter interface {
	Take(ctx context.Context, key string, limit int, window time.Duration) (Result, error)
}

// Result is the state of a key's window after one Take.
type Result struct {
	// Limit is the number of calls the window allows.
	Limit int
	// Remaining is how many more calls the window allows, at least 0.
	Remaining int
	// ResetAfter is the time until the window closes and the key is
	// replenished; for a refused call it is when to retry.
	ResetAfter time.Duration
	// Allowed reports whether this call is within the limit.
	Allowed bool
}

// ErrInvalid is returned by Take for a limit below 1 or a window shorter
// than a millisecond (the resolution of the shared counter).
var ErrInvalid = errors.New("ratelimit: invalid limit or window")

// check validates the arguments of Take.
func check(limit int, window time.Duration) error {
	if limit < 1 || window < time.Millisecond {
		return fmt.Errorf("limit %d, window %s: %w", limit, window, ErrInvalid)
	}
	return nil
}

// result builds the Result of the count-th call of a window.
func result(count int64, limit int, resetAfter time.Duration) Result {
	remaining := int64(limit) - count
	if remaining < 0 {
		remaining = 0
	}
	return Result{
		Limit:      limit,
		Remaining:  int(remaining),
		ResetAfter: resetAfter,
		Allowed:    count <= int64(limit),
	}
}
