// Package presence keeps which users are connected to the events
// gateway. A user is online while at least one of their authenticated
// connections is open, on any node; the gateway reports each connection
// opening and closing, and the app asks who is online when it renders
// users.
//
// Memory counts the connections of one process, which is all one node
// needs. Shared adds the other nodes: each node holds a lease on each of
// its users in a Leases store (Redis), renews the leases while the
// connections last, and mirrors the set of online users in memory so
// that Online stays a map lookup. A node that dies stops renewing; its
// leases run out and another node announces its users offline. Both
// trackers pass the suite in presencetest.
package presence

import (
	"context"
	"sync"

	"ermine/internal/chat"
)

// Tracker counts the open connections of each user. It is safe for
// concurrent use. Connect and Disconnect never fail: a tracker that
// cannot reach its shared store logs it and answers from this node's
// connections alone.
type Tracker interface {
	// Connect records one more connection of user and reports whether
	// the user was offline before, so the caller announces them online.
	Connect(ctx context.Context, user chat.ID) (first bool)
	// Disconnect records that one connection of user closed and reports
	// whether the user is now offline, so the caller announces them
	// offline. Disconnecting a user with no connection here reports
	// false.
	Disconnect(ctx context.Context, user chat.ID) (last bool)
	// Online reports whether user has at least one connection.
	Online(user chat.ID) bool
	// Counts returns how many users have a connection to this node and
	// how many connections they hold, for the instance statistics.
	Counts() (users, connections int)
}

// Expiring is a Tracker that can change users' presence by itself: when
// the node holding a user's connections dies, their lease runs out and
// OnExpire's function is called with them and online false, so the
// caller announces them offline (and with online true for users whose
// lease had to be taken again after it ran out). It is called from one
// goroutine, never concurrently.
type Expiring interface {
	Tracker
	OnExpire(func(ctx context.Context, users []chat.ID, online bool))
}

// Memory is a Tracker for one process. The zero value is not usable;
// call NewMemory.
type Memory struct {
	mu    sync.Mutex
	conns map[chat.ID]int
}

var _ Tracker = (*Memory)(nil)

// NewMemory returns a tracker with nobody online.
func NewMemory() *Memory {
	return &Memory{conns: make(map[chat.ID]int)}
}

// Connect implements Tracker.
func (m *Memory) Connect(_ context.Context, user chat.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conns[user]++
	return m.conns[user] == 1
}

// Disconnect implements Tracker.
func (m *Memory) Disconnect(_ context.Context, user chat.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.conns[user]
	if !ok {
		return false
	}
	if n <= 1 {
		delete(m.conns, user)
		return true
	}
	m.conns[user] = n - 1
	return false
}

// Online implements Tracker.
func (m *Memory) Online(user chat.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conns[user] > 0
}

// Counts implements Tracker.
func (m *Memory) Counts() (users, connections int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range m.conns {
		connections += n
	}
	return len(m.conns), connections
}

// users lists the users with a connection here.
func (m *Memory) users() []chat.ID {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]chat.ID, 0, len(m.conns))
	for u := range m.conns {
		out = append(out, u)
	}
	return out
}
