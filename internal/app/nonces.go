package app

import "sync"

// nonceCapacity is how many recent idempotency keys a node remembers.
const nonceCapacity = 16384

// nonces remembers the idempotency keys (the Idempotency-Key header or
// the body's nonce) of recent messages so that a retried send is refused
// with DuplicateNonce instead of posting twice. It lives in one node's
// memory: a retry that reaches another node, or comes after capacity
// newer keys, is not caught. Keys are scoped by author, so one user
// cannot block another's key. The oldest key is forgotten first.
type nonces struct {
	mu   sync.Mutex
	set  map[string]struct{}
	ring []string // insertion order; next overwrites the oldest
	next int
}

func newNonces(capacity int) *nonces {
	return &nonces{set: make(map[string]struct{}, capacity), ring: make([]string, capacity)}
}

// reserve records key and reports whether it was new.
func (n *nonces) reserve(key string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.set[key]; ok {
		return false
	}
	if old := n.ring[n.next]; old != "" {
		delete(n.set, old)
	}
	n.ring[n.next] = key
	n.next = (n.next + 1) % len(n.ring)
	n.set[key] = struct{}{}
	return true
}

// release forgets key, so a send that failed after reserving it may be
// retried with the same key.
func (n *nonces) release(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.set, key)
	// The ring slot stays; deleting a key that is no longer in the set is
	// harmless when the slot is reused.
}
