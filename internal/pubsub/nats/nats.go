// Package nats is a pubsub.Bus over NATS core publish/subscribe, for
// deployments of several Ermine nodes. A topic maps to the subject
// prefix+topic; each topic in a Subscription's set is one NATS
// subscription, all feeding one bounded channel drained by one goroutine.
package nats

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"ermine/internal/pubsub"
)

// Defaults used when Open is given no option overriding them.
const (
	DefaultPrefix   = "ermine."
	DefaultQueueLen = 4096
	DefaultTimeout  = 5 * time.Second
)

// Option configures Open.
type Option func(*config)

type config struct {
	prefix   string
	queueLen int
	timeout  time.Duration
	nats     []nats.Option
}

// WithPrefix sets the string put before every topic to form its subject
// (DefaultPrefix when not given). Nodes sharing a bus must use the same
// prefix; different prefixes keep deployments apart on one server.
func WithPrefix(prefix string) Option { return func(c *config) { c.prefix = prefix } }

// WithQueueLen sets how many frames a Subscription buffers for its handler
// before dropping (DefaultQueueLen when n <= 0).
func WithQueueLen(n int) Option { return func(c *config) { c.queueLen = n } }

// WithTimeout bounds connecting and the server round trip that
// Subscription.Add waits for (DefaultTimeout when d <= 0).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithNATSOptions passes options (credentials, TLS, reconnect policy…) to
// nats.Connect, after Ermine's defaults.
func WithNATSOptions(opts ...nats.Option) Option {
	return func(c *config) { c.nats = append(c.nats, opts...) }
}

// Bus is a pubsub.Bus on one NATS connection.
type Bus struct {
	nc       *nats.Conn
	prefix   string
	queueLen int
	timeout  time.Duration
	closed   atomic.Bool

	mu      sync.Mutex
	subs    map[*subscription]struct{}
	retired uint64 // drops counted by closed NATS subscriptions
}

var _ pubsub.Bus = (*Bus)(nil)

// Open connects to the NATS server at url (a comma-separated list is
// allowed). The connection reconnects forever and resubscribes by itself.
func Open(url string, opts ...Option) (*Bus, error) {
	c := config{prefix: DefaultPrefix}
	for _, o := range opts {
		o(&c)
	}
	if c.queueLen <= 0 {
		c.queueLen = DefaultQueueLen
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if strings.ContainsAny(c.prefix, " \t\r\n*>") || strings.HasPrefix(c.prefix, ".") || strings.Contains(c.prefix, "..") {
		return nil, fmt.Errorf("nats bus: invalid subject prefix %q", c.prefix)
	}
	nopts := append([]nats.Option{
		nats.Name("ermine"),
		nats.Timeout(c.timeout),
		nats.MaxReconnects(-1),
	}, c.nats...)
	nc, err := nats.Connect(url, nopts...)
	if err != nil {
		return nil, fmt.Errorf("nats bus: connect: %w", err)
	}
	return &Bus{
		nc:       nc,
		prefix:   c.prefix,
		queueLen: c.queueLen,
		timeout:  c.timeout,
		subs:     make(map[*subscription]struct{}),
	}, nil
}

// Publish sends msg on subject prefix+topic. NATS buffers it on the
// connection; the call returns before the server has it.
func (b *Bus) Publish(ctx context.Context, topic string, msg []byte) error {
	if err := pubsub.CheckPublish(ctx, topic, b.closed.Load()); err != nil {
		return err
	}
	if err := b.nc.Publish(b.prefix+topic, msg); err != nil {
		if b.closed.Load() {
			return pubsub.ErrClosed
		}
		return fmt.Errorf("nats bus: publish %s: %w", topic, err)
	}
	return nil
}

// Subscribe opens a subscription with an empty topic set.
func (b *Bus) Subscribe(handler pubsub.Handler) (pubsub.Subscription, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed.Load() {
		return nil, pubsub.ErrClosed
	}
	s := &subscription{
		bus:     b,
		handler: handler,
		ch:      make(chan *nats.Msg, b.queueLen),
		done:    make(chan struct{}),
		subs:    make(map[string]*nats.Subscription),
	}
	b.subs[s] = struct{}{}
	go s.drain()
	return s, nil
}

// Dropped returns how many frames the NATS client dropped because a
// subscription's queue was full, over the bus's lifetime.
func (b *Bus) Dropped() uint64 {
	// Lock order is subscription, then bus: collect under the bus lock,
	// then visit each subscription without it.
	b.mu.Lock()
	subs := make([]*subscription, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()

	var n uint64
	for _, s := range subs {
		s.mu.Lock()
		for _, ns := range s.subs {
			n += dropped(ns)
		}
		s.mu.Unlock()
	}
	b.mu.Lock()
	n += b.retired
	b.mu.Unlock()
	return n
}

// Close closes every subscription and the connection. Later calls return
// nil.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed.Swap(true) {
		b.mu.Unlock()
		return nil
	}
	subs := make([]*subscription, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()

	var errs []error
	for _, s := range subs {
		errs = append(errs, s.Close())
	}
	b.nc.Close()
	return errors.Join(errs...)
}

// subscription is one handler's topic set on the bus's connection.
type subscription struct {
	bus     *Bus
	handler pubsub.Handler
	ch      chan *nats.Msg // shared by all NATS subscriptions of the set
	done    chan struct{}  // closed by Close
	closed  atomic.Bool

	mu   sync.Mutex // serialises Add, Remove and Close
	subs map[string]*nats.Subscription
}

// Add subscribes to the new topics and flushes the connection, so the
// server has registered them when Add returns.
func (s *subscription) Add(topics ...string) error {
	if err := pubsub.CheckTopics(topics...); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return pubsub.ErrClosed
	}
	b := s.bus
	added := false
	for _, t := range topics {
		if _, ok := s.subs[t]; ok {
			continue
		}
		ns, err := b.nc.ChanSubscribe(b.prefix+t, s.ch)
		if err != nil {
			return fmt.Errorf("nats bus: subscribe %s: %w", t, err)
		}
		s.subs[t] = ns
		added = true
	}
	if !added {
		return nil
	}
	if err := b.nc.FlushTimeout(b.timeout); err != nil {
		return fmt.Errorf("nats bus: flush subscriptions: %w", err)
	}
	return nil
}

// Remove unsubscribes from topics. The NATS client discards frames for a
// subscription as soon as it is removed.
func (s *subscription) Remove(topics ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return pubsub.ErrClosed
	}
	var errs []error
	for _, t := range topics {
		ns, ok := s.subs[t]
		if !ok {
			continue
		}
		delete(s.subs, t)
		errs = append(errs, s.unsubscribe(t, ns))
	}
	return errors.Join(errs...)
}

// Close unsubscribes from every topic and stops the drain goroutine.
func (s *subscription) Close() error {
	s.mu.Lock()
	if s.closed.Swap(true) {
		s.mu.Unlock()
		return nil
	}
	close(s.done)
	var errs []error
	for t, ns := range s.subs {
		errs = append(errs, s.unsubscribe(t, ns))
	}
	s.subs = nil
	s.mu.Unlock()

	b := s.bus
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
	return errors.Join(errs...)
}

// unsubscribe ends one NATS subscription, keeping its drop count. A
// connection already closed has dropped its subscriptions itself.
func (s *subscription) unsubscribe(topic string, ns *nats.Subscription) error {
	d := dropped(ns)
	b := s.bus
	b.mu.Lock()
	b.retired += d
	b.mu.Unlock()
	if err := ns.Unsubscribe(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) && !errors.Is(err, nats.ErrBadSubscription) {
		return fmt.Errorf("nats bus: unsubscribe %s: %w", topic, err)
	}
	return nil
}

// drain hands frames to the handler, one at a time, until Close.
func (s *subscription) drain() {
	n := len(s.bus.prefix)
	for {
		select {
		case m := <-s.ch:
			if s.closed.Load() {
				return
			}
			s.handler(m.Subject[n:], m.Data)
		case <-s.done:
			return
		}
	}
}

// dropped returns a NATS subscription's drop count, zero once it is gone.
func dropped(ns *nats.Subscription) uint64 {
	d, err := ns.Dropped()
	if err != nil || d < 0 {
		return 0
	}
	return uint64(d)
}
