// Package nonce keeps the idempotency keys of recent message sends (the
// Idempotency-Key header or the body's nonce) so that a retried send is
// refused with DuplicateNonce instead of posting twice.
//
// Memory remembers keys in this process; Redis remembers them for every
// node sharing one Redis, so a retry that a load balancer sends to
// another node is caught too. Both pass the suite in noncetest.
package nonce

import "context"

// Guard reserves idempotency keys. Implementations are safe for
// concurrent use, and Reserve is atomic: of two concurrent reservations
// of one key exactly one succeeds.
type Guard interface {
	// Reserve records key and reports whether it was new. The caller
	// scopes keys (by author) so one user cannot block another's key.
	Reserve(ctx context.Context, key string) (bool, error)
	// Release forgets key, so a send that failed after reserving it may
	// be retried with the same key.
	Release(ctx context.Context, key string) error
}
