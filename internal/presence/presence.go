// Package presence keeps which users are connected to the events
// gateway. A user is online while at least one of their authenticated
// connections is open; the gateway reports each connection opening and
// closing, and the app asks who is online when it renders users.
//
// Memory counts connections in this process only. With several gateway
// nodes each node knows only its own connections, so a user connected to
// another node looks offline here; a shared tracker (Redis) can implement
// Tracker when that matters.
package presence

import (
	"sync"

	"ermine/internal/chat"
)

// Tracker counts the open connections of each user. It is safe for
// concurrent use.
type Tracker interface {
	// Connect records one more connection of user and reports whether it
	// is the user's first, so the caller announces them online.
	Connect(user chat.ID) (first bool)
	// Disconnect records that one connection of user closed and reports
	// whether it was the user's last, so the caller announces them
	// offline. Disconnecting a user with no connection reports false.
	Disconnect(user chat.ID) (last bool)
	// Online reports whether user has at least one connection.
	Online(user chat.ID) bool
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
func (m *Memory) Connect(user chat.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conns[user]++
	return m.conns[user] == 1
}

// Disconnect implements Tracker.
func (m *Memory) Disconnect(user chat.ID) bool {
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

// Counts returns how many users are online and how many connections
// they hold, for the instance statistics.
func (m *Memory) Counts() (users, connections int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range m.conns {
		connections += n
	}
	return len(m.conns), connections
}
