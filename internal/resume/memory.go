package resume

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Memory is Streams kept in this process, for a single node.
type Memory struct {
	now func() time.Time

	mu        sync.Mutex
	streams   map[string]*memStream
	lastPurge time.Time
	nodes     map[string]time.Time // node → end of its last Beat
}

type memStream struct {
	h       Header
	frames  []Frame
	expires time.Time
}

var _ Streams = (*Memory)(nil)

// NewMemory returns empty Streams in memory; now is the clock (time.Now
// when nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, streams: make(map[string]*memStream), nodes: make(map[string]time.Time)}
}

// live returns the unexpired stream id. m.mu held.
func (m *Memory) live(id string) *memStream {
	s := m.streams[id]
	if s == nil {
		return nil
	}
	if !m.now().Before(s.expires) {
		delete(m.streams, id)
		return nil
	}
	return s
}

// Open implements Streams. Expired streams are dropped here, at most
// once a minute.
func (m *Memory) Open(_ context.Context, id, user, format, node string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if now.Sub(m.lastPurge) > time.Minute {
		m.lastPurge = now
		for k, s := range m.streams {
			if !now.Before(s.expires) {
				delete(m.streams, k)
			}
		}
	}
	m.streams[id] = &memStream{h: Header{User: user, Format: format, Node: node}, expires: now.Add(ttl)}
	return nil
}

// Append implements Streams.
func (m *Memory) Append(_ context.Context, id string, frames []Frame, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.live(id); s != nil {
		s.add(frames)
		s.expires = m.now().Add(ttl)
	}
	return nil
}

// add appends copies of frames and keeps the last MaxFrames.
func (s *memStream) add(frames []Frame) {
	for _, f := range frames {
		s.frames = append(s.frames, Frame{Seq: f.Seq, Data: slices.Clone(f.Data)})
	}
	if n := len(s.frames) - MaxFrames; n > 0 {
		s.frames = slices.Delete(s.frames, 0, n)
	}
}

// Prepare implements Streams.
func (m *Memory) Prepare(_ context.Context, id, nonce, scope string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.live(id); s != nil {
		s.h.Prepared, s.h.Scope = nonce, scope
	}
	return nil
}

// Seal implements Streams.
func (m *Memory) Seal(_ context.Context, id, nonce string, frames []Frame, last uint64, intact bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.live(id); s != nil {
		s.add(frames)
		s.h.Sealed, s.h.Last, s.h.Intact = nonce, last, intact
	}
	return nil
}

// Fetch implements Streams.
func (m *Memory) Fetch(_ context.Context, id string) (Header, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.live(id); s != nil {
		return s.h, true, nil
	}
	return Header{}, false, nil
}

// Frames implements Streams.
func (m *Memory) Frames(_ context.Context, id string, after uint64) ([]Frame, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.live(id)
	if s == nil {
		return nil, nil
	}
	i, _ := slices.BinarySearchFunc(s.frames, after+1, func(f Frame, seq uint64) int {
		switch {
		case f.Seq < seq:
			return -1
		case f.Seq > seq:
			return 1
		}
		return 0
	})
	out := make([]Frame, 0, len(s.frames)-i)
	for _, f := range s.frames[i:] {
		out = append(out, Frame{Seq: f.Seq, Data: slices.Clone(f.Data)})
	}
	return out, nil
}

// Delete implements Streams.
func (m *Memory) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.streams, id)
	return nil
}

// Beat implements Streams.
func (m *Memory) Beat(_ context.Context, node string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ttl <= 0 {
		delete(m.nodes, node)
		return nil
	}
	m.nodes[node] = m.now().Add(ttl)
	return nil
}

// Alive implements Streams.
func (m *Memory) Alive(_ context.Context, node string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	end, ok := m.nodes[node]
	if ok && !m.now().Before(end) {
		delete(m.nodes, node)
		ok = false
	}
	return ok, nil
}
