// Package redis is a pubsub.Bus over Redis PUBLISH/SUBSCRIBE, for
// deployments that already run Redis. A topic maps to the channel
// prefix+topic; each Subscription holds one dedicated pub/sub connection
// whose reader goroutine feeds a bounded queue drained by another.
package redis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"ermine/internal/pubsub"
)

// Defaults used when Open is given no option overriding them.
const (
	DefaultPrefix   = "ermine:"
	DefaultQueueLen = 4096
	DefaultTimeout  = 5 * time.Second
)

// Option configures Open.
type Option func(*config)

type config struct {
	prefix   string
	queueLen int
	timeout  time.Duration
}

// WithPrefix sets the string put before every topic to form its channel
// (DefaultPrefix when not given). Nodes sharing a bus must use the same
// prefix; different prefixes keep deployments apart on one server.
func WithPrefix(prefix string) Option { return func(c *config) { c.prefix = prefix } }

// WithQueueLen sets how many frames a Subscription queues for its handler
// before dropping (DefaultQueueLen when n <= 0).
func WithQueueLen(n int) Option { return func(c *config) { c.queueLen = n } }

// WithTimeout bounds the connection check in Open and how long
// Subscription.Add waits for the server to confirm (DefaultTimeout when
// d <= 0).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Bus is a pubsub.Bus on a Redis client: publishes use its pool, each
// Subscription a connection of its own.
type Bus struct {
	rdb      *redis.Client
	prefix   string
	queueLen int
	timeout  time.Duration
	closed   atomic.Bool

	mu      sync.Mutex
	subs    map[*subscription]struct{}
	retired uint64 // drops counted by closed subscriptions
}

var _ pubsub.Bus = (*Bus)(nil)

// Open connects to the Redis server at url (redis://[user:pass@]host:port/db
// or rediss:// for TLS) and checks it answers.
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
	ropts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis bus: parse url: %w", err)
	}
	rdb := redis.NewClient(ropts)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redis bus: ping: %w", err)
	}
	return &Bus{
		rdb:      rdb,
		prefix:   c.prefix,
		queueLen: c.queueLen,
		timeout:  c.timeout,
		subs:     make(map[*subscription]struct{}),
	}, nil
}

// Publish sends msg on channel prefix+topic and returns once the server
// has passed it to the subscribed connections.
func (b *Bus) Publish(ctx context.Context, topic string, msg []byte) error {
	if err := pubsub.CheckPublish(ctx, topic, b.closed.Load()); err != nil {
		return err
	}
	if err := b.rdb.Publish(ctx, b.prefix+topic, msg).Err(); err != nil {
		if b.closed.Load() {
			return pubsub.ErrClosed
		}
		return fmt.Errorf("redis bus: publish %s: %w", topic, err)
	}
	return nil
}

// Subscribe opens a subscription with an empty topic set. Its connection
// is made in the background and re-made, resubscribing, after failures.
func (b *Bus) Subscribe(handler pubsub.Handler) (pubsub.Subscription, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed.Load() {
		return nil, pubsub.ErrClosed
	}
	s := &subscription{
		bus:     b,
		ps:      b.rdb.Subscribe(context.Background()),
		q:       pubsub.NewQueue(b.queueLen, handler),
		done:    make(chan struct{}),
		topics:  make(map[string]struct{}),
		waiters: make(map[string][]chan struct{}),
	}
	b.subs[s] = struct{}{}
	go s.read()
	return s, nil
}

// Dropped returns how many frames were dropped because a subscription's
// queue was full, over the bus's lifetime.
func (b *Bus) Dropped() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.retired
	for s := range b.subs {
		n += s.q.Dropped()
	}
	return n
}

// Close closes every subscription and the client. Later calls return nil.
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
	if err := b.rdb.Close(); err != nil {
		errs = append(errs, fmt.Errorf("redis bus: close: %w", err))
	}
	return errors.Join(errs...)
}

// subscription is one handler's topic set on a dedicated connection.
type subscription struct {
	bus    *Bus
	ps     *redis.PubSub
	q      *pubsub.Queue
	done   chan struct{} // closed by Close
	closed atomic.Bool

	op sync.Mutex // serialises Add, Remove and Close

	mu      sync.Mutex                 // guards the fields below, shared with read
	topics  map[string]struct{}        // the set; frames on other channels are dropped
	waiters map[string][]chan struct{} // channel → Adds awaiting its confirmation
}

// Add subscribes to the new topics and waits until the server confirms
// each, so that frames published afterwards are delivered.
func (s *subscription) Add(topics ...string) error {
	if err := pubsub.CheckTopics(topics...); err != nil {
		return err
	}
	s.op.Lock()
	defer s.op.Unlock()
	if s.closed.Load() {
		return pubsub.ErrClosed
	}
	b := s.bus
	var channels []string
	var confirmed []chan struct{}
	s.mu.Lock()
	for _, t := range topics {
		if _, ok := s.topics[t]; ok {
			continue
		}
		s.topics[t] = struct{}{}
		ch, c := b.prefix+t, make(chan struct{})
		s.waiters[ch] = append(s.waiters[ch], c)
		channels = append(channels, ch)
		confirmed = append(confirmed, c)
	}
	s.mu.Unlock()
	if len(channels) == 0 {
		return nil
	}

	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	if err := s.ps.Subscribe(ctx, channels...); err != nil {
		return fmt.Errorf("redis bus: subscribe: %w", err)
	}
	for i, c := range confirmed {
		select {
		case <-c:
		case <-s.done:
			return pubsub.ErrClosed
		case <-ctx.Done():
			s.mu.Lock()
			for _, ch := range channels[i:] {
				delete(s.waiters, ch)
			}
			s.mu.Unlock()
			return fmt.Errorf("redis bus: subscribe %s: no confirmation: %w", channels[i], ctx.Err())
		}
	}
	return nil
}

// Remove unsubscribes from topics. Frames on them that are still on the
// wire are dropped by the reader, so Remove takes effect at once.
func (s *subscription) Remove(topics ...string) error {
	s.op.Lock()
	defer s.op.Unlock()
	if s.closed.Load() {
		return pubsub.ErrClosed
	}
	b := s.bus
	var channels []string
	s.mu.Lock()
	for _, t := range topics {
		if _, ok := s.topics[t]; !ok {
			continue
		}
		delete(s.topics, t)
		channels = append(channels, b.prefix+t)
	}
	s.mu.Unlock()
	// UNSUBSCRIBE with no channels would leave every channel.
	if len(channels) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	if err := s.ps.Unsubscribe(ctx, channels...); err != nil {
		return fmt.Errorf("redis bus: unsubscribe: %w", err)
	}
	return nil
}

// Close closes the connection and discards queued frames.
func (s *subscription) Close() error {
	s.op.Lock()
	defer s.op.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	close(s.done)
	s.q.Close()
	err := s.ps.Close()

	b := s.bus
	b.mu.Lock()
	delete(b.subs, s)
	b.retired += s.q.Dropped()
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("redis bus: close subscription: %w", err)
	}
	return nil
}

// read receives from the connection until Close, queueing frames and
// releasing the Adds waiting for confirmations. The client reconnects and
// resubscribes by itself; read only paces retries while the server is away.
func (s *subscription) read() {
	const minBackoff, maxBackoff = 50 * time.Millisecond, 2 * time.Second
	ctx := context.Background()
	prefix := s.bus.prefix
	backoff := minBackoff
	for {
		m, err := s.ps.Receive(ctx)
		if err != nil {
			if s.closed.Load() {
				return
			}
			select {
			case <-time.After(backoff):
			case <-s.done:
				return
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = minBackoff
		switch m := m.(type) {
		case *redis.Message:
			if len(m.Channel) < len(prefix) {
				continue
			}
			topic := m.Channel[len(prefix):]
			s.mu.Lock()
			_, ok := s.topics[topic]
			s.mu.Unlock()
			if ok {
				s.q.Push(topic, []byte(m.Payload))
			}
		case *redis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			s.mu.Lock()
			for _, c := range s.waiters[m.Channel] {
				close(c)
			}
			delete(s.waiters, m.Channel)
			s.mu.Unlock()
		}
	}
}
