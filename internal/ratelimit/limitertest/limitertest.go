// Package limitertest is the conformance suite every ratelimit.Limiter
// must pass: the in-memory one with a fake clock and the Redis one with
// real time.
package limitertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"ermine/internal/ratelimit"
)

// slack is how far a real clock may lag behind what the suite expects:
// scheduling, the network round trip and Redis's millisecond rounding.
const slack = 50 * time.Millisecond

// New returns a fresh, empty limiter for one subtest together with a
// function that moves its clock forward by at least d: a fake clock
// advances exactly, a real one sleeps (a little longer is fine).
type New func(t *testing.T) (ratelimit.Limiter, func(d time.Duration))

// Run checks a Limiter against the contract documented on
// ratelimit.Limiter. window is the window the suite uses: ratelimit.Window
// with a fake clock, a few hundred milliseconds with a real one (the suite
// then sleeps about four windows in all, spread over parallel subtests).
// Subtests run in parallel, each with its own limiter from newLimiter.
func Run(t *testing.T, window time.Duration, newLimiter New) {
	t.Helper()
	if window < 20*time.Millisecond {
		t.Fatalf("limitertest: window %s too short to measure", window)
	}
	tests := []struct {
		name string
		test func(*testing.T, time.Duration, New)
	}{
		{"AllowsLimitThenRefuses", testAllowsLimitThenRefuses},
		{"ResetAfterCountsDown", testResetAfterCountsDown},
		{"KeysAreIndependent", testKeysAreIndependent},
		{"ResetsAfterWindow", testResetsAfterWindow},
		{"WindowStartsAtFirstCall", testWindowStartsAtFirstCall},
		{"RefusalsDoNotExtendWindow", testRefusalsDoNotExtendWindow},
		{"ConcurrentCallsCountedExactly", testConcurrent},
		{"InvalidArguments", testInvalid},
		{"CanceledContext", testCanceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.test(t, window, newLimiter)
		})
	}
}

// take calls l.Take and fails the test on error.
func take(t *testing.T, l ratelimit.Limiter, key string, limit int, window time.Duration) ratelimit.Result {
	t.Helper()
	r, err := l.Take(context.Background(), key, limit, window)
	if err != nil {
		t.Fatalf("Take(%q, %d, %s): %v", key, limit, window, err)
	}
	if r.Limit != limit {
		t.Errorf("Take(%q).Limit = %d, want %d", key, r.Limit, limit)
	}
	if r.ResetAfter <= 0 || r.ResetAfter > window {
		t.Errorf("Take(%q).ResetAfter = %s, want in (0, %s]", key, r.ResetAfter, window)
	}
	return r
}

// exhaust takes limit calls on key and checks they are all allowed with
// Remaining counting down to 0.
func exhaust(t *testing.T, l ratelimit.Limiter, key string, limit int, window time.Duration) {
	t.Helper()
	for i := 1; i <= limit; i++ {
		r := take(t, l, key, limit, window)
		if !r.Allowed || r.Remaining != limit-i {
			t.Fatalf("call %d of %d on %q: Allowed=%t Remaining=%d, want true %d",
				i, limit, key, r.Allowed, r.Remaining, limit-i)
		}
	}
}

// refused checks that one more call on key is refused.
func refused(t *testing.T, l ratelimit.Limiter, key string, limit int, window time.Duration) ratelimit.Result {
	t.Helper()
	r := take(t, l, key, limit, window)
	if r.Allowed || r.Remaining != 0 {
		t.Fatalf("call over the limit on %q: Allowed=%t Remaining=%d, want false 0", key, r.Allowed, r.Remaining)
	}
	return r
}

func testAllowsLimitThenRefuses(t *testing.T, window time.Duration, newLimiter New) {
	for _, limit := range []int{1, 3, 20} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			l, _ := newLimiter(t)
			key := fmt.Sprintf("limit-%d", limit)
			exhaust(t, l, key, limit, window)
			for range 3 {
				refused(t, l, key, limit, window)
			}
		})
	}
}

func testResetAfterCountsDown(t *testing.T, window time.Duration, newLimiter New) {
	l, advance := newLimiter(t)
	first := take(t, l, "countdown", 5, window)
	if first.ResetAfter < window-slack {
		t.Errorf("first call: ResetAfter = %s, want about %s", first.ResetAfter, window)
	}
	step := window / 4
	advance(step)
	second := take(t, l, "countdown", 5, window)
	if second.ResetAfter >= first.ResetAfter || second.ResetAfter > window-step {
		t.Errorf("after %s: ResetAfter = %s, want below %s and at most %s",
			step, second.ResetAfter, first.ResetAfter, window-step)
	}
	advance(step)
	third := take(t, l, "countdown", 5, window)
	if third.ResetAfter >= second.ResetAfter || third.ResetAfter > window-2*step {
		t.Errorf("after %s: ResetAfter = %s, want below %s and at most %s",
			2*step, third.ResetAfter, second.ResetAfter, window-2*step)
	}
}

func testKeysAreIndependent(t *testing.T, window time.Duration, newLimiter New) {
	l, _ := newLimiter(t)
	exhaust(t, l, "a", 2, window)
	refused(t, l, "a", 2, window)
	// Another key, one extending the exhausted key and one differing
	// only in case all start fresh.
	for _, key := range []string{"b", "a2", "A"} {
		r := take(t, l, key, 2, window)
		if !r.Allowed || r.Remaining != 1 {
			t.Errorf("key %q after exhausting %q: Allowed=%t Remaining=%d, want true 1", key, "a", r.Allowed, r.Remaining)
		}
	}
	refused(t, l, "a", 2, window)
}

func testResetsAfterWindow(t *testing.T, window time.Duration, newLimiter New) {
	l, advance := newLimiter(t)
	exhaust(t, l, "reset", 3, window)
	refused(t, l, "reset", 3, window)
	advance(window)
	r := take(t, l, "reset", 3, window)
	if !r.Allowed || r.Remaining != 2 {
		t.Fatalf("after the window: Allowed=%t Remaining=%d, want true 2", r.Allowed, r.Remaining)
	}
	if r.ResetAfter < window-slack {
		t.Errorf("after the window: ResetAfter = %s, want a fresh window of about %s", r.ResetAfter, window)
	}
	exhaust(t, l, "reset-other", 1, window) // the suite's keys stay independent after a reset
	for range 2 {
		take(t, l, "reset", 3, window)
	}
	refused(t, l, "reset", 3, window)
}

func testWindowStartsAtFirstCall(t *testing.T, window time.Duration, newLimiter New) {
	l, advance := newLimiter(t)
	half := window / 2
	take(t, l, "fixed", 2, window)
	advance(half)
	take(t, l, "fixed", 2, window) // a sliding window would now last until 1.5 windows
	refused(t, l, "fixed", 2, window)
	advance(window - half)
	r := take(t, l, "fixed", 2, window)
	if !r.Allowed || r.Remaining != 1 {
		t.Errorf("one window after the first call: Allowed=%t Remaining=%d, want true 1", r.Allowed, r.Remaining)
	}
}

func testRefusalsDoNotExtendWindow(t *testing.T, window time.Duration, newLimiter New) {
	l, advance := newLimiter(t)
	half := window / 2
	exhaust(t, l, "refusals", 1, window)
	advance(half)
	for range 5 {
		r := refused(t, l, "refusals", 1, window)
		if r.ResetAfter > window-half {
			t.Errorf("refused call: ResetAfter = %s, want at most %s", r.ResetAfter, window-half)
		}
	}
	advance(window - half)
	r := take(t, l, "refusals", 1, window)
	if !r.Allowed {
		t.Error("refused calls extended the window")
	}
}

func testConcurrent(t *testing.T, _ time.Duration, newLimiter New) {
	l, _ := newLimiter(t)
	// No time passes on purpose here, but a real clock under the race
	// detector may take longer than a short window: use a long one.
	const window = time.Minute
	const limit, callers, calls = 25, 8, 10
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
		seen    = make(map[int]int) // Remaining of allowed calls -> how often
	)
	for range callers {
		wg.Go(func() {
			for range calls {
				r, err := l.Take(context.Background(), "concurrent", limit, window)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					mu.Lock()
					allowed++
					seen[r.Remaining]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != limit {
		t.Errorf("%d concurrent calls with limit %d: %d allowed", callers*calls, limit, allowed)
	}
	for rem, n := range seen {
		if n != 1 {
			t.Errorf("Remaining %d reported to %d allowed calls, want each value once", rem, n)
		}
	}
}

func testInvalid(t *testing.T, window time.Duration, newLimiter New) {
	l, _ := newLimiter(t)
	tests := []struct {
		name   string
		limit  int
		window time.Duration
	}{
		{"ZeroLimit", 0, window},
		{"NegativeLimit", -1, window},
		{"ZeroWindow", 1, 0},
		{"SubMillisecondWindow", 1, time.Microsecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := l.Take(context.Background(), "invalid", tc.limit, tc.window)
			if !errors.Is(err, ratelimit.ErrInvalid) {
				t.Errorf("Take(limit %d, window %s) error = %v, want ErrInvalid", tc.limit, tc.window, err)
			}
		})
	}
	// Invalid calls are not counted.
	exhaust(t, l, "invalid", 1, window)
}

func testCanceled(t *testing.T, window time.Duration, newLimiter New) {
	l, _ := newLimiter(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Take(ctx, "canceled", 1, window); !errors.Is(err, context.Canceled) {
		t.Errorf("Take with a canceled context: error = %v, want context.Canceled", err)
	}
	exhaust(t, l, "canceled", 1, window) // the canceled call was not counted
}
