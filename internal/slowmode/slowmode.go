// Package slowmode keeps the windows during which a user may not send
// another message in a channel with slowmode (reference 0.12.0). The app
// opens a window on each send it lets through and refuses sends while one
// is open; it never stores windows itself.
//
// Memory keeps windows in this process only, which is right for one node.
// With several nodes behind a load balancer a user could send once per
// node, so nodes that share a Redis bus share windows through Redis.
package slowmode

import (
	"context"
	"sync"
	"time"

	"ermine/internal/chat"
)

// Window is an open slowmode window of one user in one channel.
type Window struct {
	Channel  chat.ID
	Duration time.Duration // the channel's slowmode when the window opened
	Left     time.Duration // until the user may send again; > 0
}

// Windows opens and lists slowmode windows. Implementations are safe for
// concurrent use, and Start is atomic: of two concurrent sends of one
// user in one channel, exactly one opens the window.
type Windows interface {
	// Start opens a window of d for user in channel and returns nil when
	// none was open, so the send may go ahead. When one is open it
	// returns it and opens nothing. d must be positive.
	Start(ctx context.Context, user, channel chat.ID, d time.Duration) (*Window, error)
	// Open lists user's open windows, in no particular order.
	Open(ctx context.Context, user chat.ID) ([]Window, error)
}

// Memory is Windows for one process. Use NewMemory.
type Memory struct {
	now   func() time.Time
	mu    sync.Mutex
	users map[chat.ID]map[chat.ID]entry
	ops   int
}

type entry struct {
	until    time.Time
	duration time.Duration
}

var _ Windows = (*Memory)(nil)

// sweepEvery is how many Starts pass between removals of every expired
// window, which bounds the memory of users who never send again.
const sweepEvery = 4096

// NewMemory returns an empty Memory reading the clock now (time.Now when
// nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, users: map[chat.ID]map[chat.ID]entry{}}
}

// Start implements Windows.
func (m *Memory) Start(_ context.Context, user, channel chat.ID, d time.Duration) (*Window, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ops++
	if m.ops%sweepEvery == 0 {
		for u, ws := range m.users {
			m.expire(u, ws, now)
		}
	}
	ws := m.users[user]
	if e, ok := ws[channel]; ok && e.until.After(now) {
		return &Window{Channel: channel, Duration: e.duration, Left: e.until.Sub(now)}, nil
	}
	if ws == nil {
		ws = map[chat.ID]entry{}
		m.users[user] = ws
	}
	ws[channel] = entry{until: now.Add(d), duration: d}
	return nil, nil
}

// Open implements Windows.
func (m *Memory) Open(_ context.Context, user chat.ID) ([]Window, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	ws := m.users[user]
	m.expire(user, ws, now)
	var out []Window
	for ch, e := range ws {
		out = append(out, Window{Channel: ch, Duration: e.duration, Left: e.until.Sub(now)})
	}
	return out, nil
}

// expire drops user's closed windows; m.mu is held.
func (m *Memory) expire(user chat.ID, ws map[chat.ID]entry, now time.Time) {
	for ch, e := range ws {
		if !e.until.After(now) {
			delete(ws, ch)
		}
	}
	if ws != nil && len(ws) == 0 {
		delete(m.users, user)
	}
}
