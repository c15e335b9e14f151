// Package inproc is the in-process pubsub.Bus, Ermine's default when one
// node serves everything. Publish costs a map lookup and a non-blocking
// queue push per subscription of the topic.
package inproc

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"ermine/internal/pubsub"
)

// DefaultQueueLen is the per-subscription queue bound used when New is
// given no positive length.
const DefaultQueueLen = 4096

// Bus is an in-process pubsub.Bus. The zero value is not usable; call New.
type Bus struct {
	queueLen int

	mu     sync.RWMutex
	topics map[string][]*subscription // the subscriptions of each topic
	subs   map[*subscription]struct{}
	closed bool

	retired atomic.Uint64 // drops counted by closed subscriptions

	// marks counts the frames published per slot of topics (see
	// pubsub.Marker): every frame is published in this process.
	marks [pubsub.MarkSlots]atomic.Uint64
}

var (
	_ pubsub.Bus    = (*Bus)(nil)
	_ pubsub.Marker = (*Bus)(nil)
)

// New returns a bus whose subscriptions each queue up to queueLen frames
// for their handler (DefaultQueueLen when queueLen <= 0) and drop beyond.
func New(queueLen int) *Bus {
	if queueLen <= 0 {
		queueLen = DefaultQueueLen
	}
	return &Bus{
		queueLen: queueLen,
		topics:   make(map[string][]*subscription),
		subs:     make(map[*subscription]struct{}),
	}
}

// Publish queues msg for every subscription of topic. It never blocks on
// a subscriber: a full queue drops msg and counts it in Dropped.
func (b *Bus) Publish(ctx context.Context, topic string, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !pubsub.ValidTopic(topic) {
		return pubsub.CheckTopics(topic)
	}
	// Marked before the subscriptions are read: a reader that follows
	// topic and then finds its mark unchanged (Changed) followed it
	// before this frame looked for subscriptions, and gets it.
	b.marks[pubsub.MarkSlot(topic)].Add(1)
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return pubsub.ErrClosed
	}
	for _, s := range b.topics[topic] {
		s.q.Push(topic, msg)
	}
	b.mu.RUnlock()
	return nil
}

// Marks returns the marks of every topic now (pubsub.Marker).
func (b *Bus) Marks() pubsub.Marks {
	var m pubsub.Marks
	for i := range m {
		m[i] = b.marks[i].Load()
	}
	return m
}

// Changed reports whether a frame was published on any of topics since m
// was taken, or on a topic sharing a mark with one of them.
func (b *Bus) Changed(m *pubsub.Marks, topics ...string) bool {
	for _, t := range topics {
		i := pubsub.MarkSlot(t)
		if b.marks[i].Load() != m[i] {
			return true
		}
	}
	return false
}

// Subscribe opens a subscription with an empty topic set.
func (b *Bus) Subscribe(handler pubsub.Handler) (pubsub.Subscription, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, pubsub.ErrClosed
	}
	s := &subscription{
		bus: b,
		q:   pubsub.NewQueue(b.queueLen, handler),
	}
	b.subs[s] = struct{}{}
	return s, nil
}

// Dropped returns how many frames were dropped because a subscription's
// queue was full, over the bus's lifetime.
func (b *Bus) Dropped() uint64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.retired.Load()
	for s := range b.subs {
		n += s.q.Dropped()
	}
	return n
}

// Close closes every subscription. Later calls return nil.
func (b *Bus) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	for s := range b.subs {
		b.closeLocked(s)
	}
	return nil
}

// closeLocked detaches s from the bus and stops its queue. b.mu is held.
func (b *Bus) closeLocked(s *subscription) {
	if s.closed {
		return
	}
	s.closed = true
	for t, list := range b.topics {
		if slices.Contains(list, s) {
			b.unlink(t, s)
		}
	}
	s.q.Close()
	b.retired.Add(s.q.Dropped())
	delete(b.subs, s)
}

// unlink removes s from topic's subscriber list. b.mu is held.
func (b *Bus) unlink(topic string, s *subscription) {
	list := slices.DeleteFunc(b.topics[topic], func(x *subscription) bool { return x == s })
	if len(list) == 0 {
		delete(b.topics, topic)
	} else {
		b.topics[topic] = list
	}
}

// subscription is one handler's topic set, kept only in the bus's lists
// of each topic's subscriptions (a node's one subscription follows a
// topic per connected user: a set of its own would double that); its
// fields other than q are guarded by bus.mu.
type subscription struct {
	bus    *Bus
	q      *pubsub.Queue
	closed bool
}

// Add puts topics into the set. Delivery starts as soon as Add returns.
func (s *subscription) Add(topics ...string) error {
	if err := pubsub.CheckTopics(topics...); err != nil {
		return err
	}
	b := s.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.closed {
		return pubsub.ErrClosed
	}
	for _, t := range topics {
		if list := b.topics[t]; !slices.Contains(list, s) {
			b.topics[t] = append(list, s)
		}
	}
	return nil
}

// Remove takes topics out of the set.
func (s *subscription) Remove(topics ...string) error {
	b := s.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.closed {
		return pubsub.ErrClosed
	}
	for _, t := range topics {
		b.unlink(t, s)
	}
	return nil
}

// Close ends the subscription. Later calls return nil.
func (s *subscription) Close() error {
	b := s.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closeLocked(s)
	return nil
}
