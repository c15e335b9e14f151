package nonce

import (
	"context"
	"sync"
)

// MemoryCapacity is how many recent keys NewMemory(0) remembers.
const MemoryCapacity = 16384

// Memory is a Guard for one process. It remembers a fixed number of the
// most recent keys and forgets the oldest first, so a retry that comes
// after capacity newer keys is not caught.
type Memory struct {
	mu   sync.Mutex
	set  map[string]struct{}
	ring []string // insertion order; next overwrites the oldest
	next int
}

var _ Guard = (*Memory)(nil)

// NewMemory returns a Memory remembering capacity keys (MemoryCapacity
// when capacity < 1).
func NewMemory(capacity int) *Memory {
	if capacity < 1 {
		capacity = MemoryCapacity
	}
	return &Memory{set: make(map[string]struct{}, capacity), ring: make([]string, capacity)}
}

// Reserve implements Guard; it never fails.
func (n *Memory) Reserve(_ context.Context, key string) (bool, error) {
	return n.reserve(key), nil
}

// Release implements Guard; it never fails.
func (n *Memory) Release(_ context.Context, key string) error {
	n.release(key)
	return nil
}

func (n *Memory) reserve(key string) bool {
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

func (n *Memory) release(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.set, key)
	// The ring slot stays; deleting a key that is no longer in the set is
	// harmless when the slot is reused.
}
