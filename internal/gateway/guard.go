package gateway

import (
	"context"
	"sync"
	"time"

	"ermine/internal/ratelimit"
)

// authGuard limits failed authentication attempts per client address:
// after authAttempts failures within authWindow, the address may not try
// again until the window closes. Successful attempts are not counted, so
// many users reconnecting from one address (an office, after a restart)
// are not turned away.
type authGuard struct {
	limiter *ratelimit.Memory

	mu      sync.Mutex
	blocked map[string]time.Time // address → end of its block
}

// maxBlocked is how many blocked addresses are kept before expired ones
// are swept out.
const maxBlocked = 4096

func newAuthGuard() *authGuard {
	return &authGuard{limiter: ratelimit.NewMemory(nil), blocked: make(map[string]time.Time)}
}

// allowed reports whether addr may try to authenticate now.
func (a *authGuard) allowed(addr string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	until, ok := a.blocked[addr]
	if !ok {
		return true
	}
	if time.Now().Before(until) {
		return false
	}
	delete(a.blocked, addr)
	return true
}

// failed counts a failed attempt of addr and blocks it once it has used
// up its window, so at most authAttempts failures happen per window.
func (a *authGuard) failed(ctx context.Context, addr string) {
	res, err := a.limiter.Take(ctx, "events:"+addr, authAttempts, authWindow)
	if err != nil || res.Remaining > 0 {
		return
	}
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.blocked) >= maxBlocked {
		for k, until := range a.blocked {
			if !now.Before(until) {
				delete(a.blocked, k)
			}
		}
	}
	a.blocked[addr] = now.Add(res.ResetAfter)
}
