package presence

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"strings"
	"sync"
	"time"

	"ermine/internal/chat"
	"ermine/internal/pubsub"
)

// Leases records which nodes hold connections of which users, shared by
// every node of an instance. A lease names one node and one user and
// runs out unless renewed. A user is online while some node holds a live
// lease on them, or until Expire finds that none does. Implementations
// are safe for concurrent use and make each call atomic.
type Leases interface {
	// Acquire gives node a lease of ttl on user and reports whether the
	// user was offline before (first comes online).
	Acquire(ctx context.Context, node string, user chat.ID, ttl time.Duration) (first bool, err error)
	// Release ends node's lease on user and reports whether no live
	// lease on user is left, so the user is now offline.
	Release(ctx context.Context, node string, user chat.ID) (last bool, err error)
	// Renew extends node's leases on users to ttl from now, acquiring
	// those it lost, and returns the users that were offline before.
	Renew(ctx context.Context, node string, users []chat.ID, ttl time.Duration) (came []chat.ID, err error)
	// Expire ends the leases that ran out and returns the users left
	// offline by it. Each such user is returned by exactly one call, on
	// whichever node makes it.
	Expire(ctx context.Context) (gone []chat.ID, err error)
	// Online lists the users that are online.
	Online(ctx context.Context) ([]chat.ID, error)
}

// DefaultLease is how long a node's lease on a user lasts without
// renewal: users of a node that dies go offline within about this long.
const DefaultLease = 30 * time.Second

// Topic is the bus topic on which nodes tell each other that users came
// online or went offline, to keep their mirrors current between
// resyncs.
const Topic = "presence!"

// SharedOptions configures NewShared.
type SharedOptions struct {
	// Node names this process among the nodes; random when empty. A
	// restarted node must not reuse the name of a live one.
	Node string
	// Lease is the lease length (DefaultLease when zero). Leases are
	// renewed, expired leases collected and the mirror resynced every
	// Lease/3.
	Lease time.Duration
	// Bus carries mirror updates between the nodes. Required.
	Bus pubsub.Bus
	Log *slog.Logger
}

// Shared is a Tracker for several nodes. It counts this node's
// connections in a Memory, holds a lease on every user with a
// connection here, and mirrors the users online anywhere.
type Shared struct {
	local  *Memory
	leases Leases
	bus    pubsub.Bus
	sub    pubsub.Subscription
	node   string
	lease  time.Duration
	log    *slog.Logger
	seed   maphash.Seed
	// stripes serialise the lease calls of one user on this node, so a
	// quick connect and disconnect cannot reach Redis in reverse order.
	stripes [64]sync.Mutex

	mu      sync.RWMutex
	online  map[chat.ID]struct{}  // users online anywhere, as last heard
	changed map[chat.ID]time.Time // when each entry changed by an update
	watch   func(ctx context.Context, users []chat.ID, online bool)

	stop chan struct{}
	done chan struct{}
}

var _ Expiring = (*Shared)(nil)

// NewShared returns a Shared tracker on leases, subscribed to Topic and
// with its mirror loaded; its renewal loop runs until Close.
func NewShared(ctx context.Context, leases Leases, o SharedOptions) (*Shared, error) {
	if o.Bus == nil {
		return nil, errors.New("presence: a bus is required")
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Node == "" {
		o.Node = rand.Text()[:16]
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Shared{local: NewMemory(), leases: leases, bus: o.Bus, node: o.Node, lease: o.Lease, log: o.Log,
		seed: maphash.MakeSeed(), online: map[chat.ID]struct{}{}, changed: map[chat.ID]time.Time{},
		stop: make(chan struct{}), done: make(chan struct{})}
	sub, err := o.Bus.Subscribe(s.receive)
	if err != nil {
		return nil, fmt.Errorf("presence: subscribe: %w", err)
	}
	if err := sub.Add(Topic); err != nil {
		_ = sub.Close()
		return nil, fmt.Errorf("presence: subscribe: %w", err)
	}
	s.sub = sub
	if err := s.resync(ctx); err != nil {
		_ = sub.Close()
		return nil, err
	}
	go s.loop()
	return s, nil
}

// Node is this tracker's node name.
func (s *Shared) Node() string { return s.node }

// OnExpire implements Expiring: fn hears of users whose presence this
// node changed by itself (a dead node's users going offline, or users
// whose lease had to be taken again coming back).
func (s *Shared) OnExpire(fn func(ctx context.Context, users []chat.ID, online bool)) {
	s.mu.Lock()
	s.watch = fn
	s.mu.Unlock()
}

func (s *Shared) stripe(user chat.ID) *sync.Mutex {
	return &s.stripes[maphash.String(s.seed, string(user))%uint64(len(s.stripes))]
}

// Connect implements Tracker.
func (s *Shared) Connect(ctx context.Context, user chat.ID) bool {
	mu := s.stripe(user)
	mu.Lock()
	defer mu.Unlock()
	if !s.local.Connect(ctx, user) {
		return false
	}
	first, err := s.leases.Acquire(ctx, s.node, user, s.lease)
	if err != nil {
		// The next renewal takes the lease; until then, answer as one
		// node would.
		s.log.WarnContext(ctx, "presence: acquire lease", "user", user, "err", err)
		first = true
	}
	if first {
		s.set(true, user)
		s.tell(ctx, true, user)
	}
	return first
}

// Disconnect implements Tracker.
func (s *Shared) Disconnect(ctx context.Context, user chat.ID) bool {
	mu := s.stripe(user)
	mu.Lock()
	defer mu.Unlock()
	if !s.local.Disconnect(ctx, user) {
		return false
	}
	last, err := s.leases.Release(ctx, s.node, user)
	if err != nil {
		// The lease runs out by itself; the node that collects it
		// announces the user offline if nobody else holds them.
		s.log.WarnContext(ctx, "presence: release lease", "user", user, "err", err)
		return false
	}
	if last {
		s.set(false, user)
		s.tell(ctx, false, user)
	}
	return last
}

// Online implements Tracker.
func (s *Shared) Online(user chat.ID) bool {
	if s.local.Online(user) {
		return true
	}
	s.mu.RLock()
	_, ok := s.online[user]
	s.mu.RUnlock()
	return ok
}

// Counts implements Tracker: this node's users and connections.
func (s *Shared) Counts() (users, connections int) { return s.local.Counts() }

// Close stops renewing. The leases of users still connected run out by
// themselves; a clean shutdown disconnects them first.
func (s *Shared) Close() error {
	select {
	case <-s.stop:
		return nil
	default:
	}
	close(s.stop)
	<-s.done
	return s.sub.Close()
}

func (s *Shared) loop() {
	defer close(s.done)
	t := time.NewTicker(s.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
		s.tick(ctx)
		cancel()
	}
}

// tick renews this node's leases, collects expired ones and resyncs the
// mirror.
func (s *Shared) tick(ctx context.Context) {
	came, err := s.leases.Renew(ctx, s.node, s.local.users(), s.lease)
	if err != nil {
		s.log.WarnContext(ctx, "presence: renew leases", "err", err)
	}
	gone, err := s.leases.Expire(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "presence: expire leases", "err", err)
	}
	for _, change := range []struct {
		users  []chat.ID
		online bool
	}{{came, true}, {gone, false}} {
		if len(change.users) == 0 {
			continue
		}
		s.set(change.online, change.users...)
		s.tell(ctx, change.online, change.users...)
		s.mu.RLock()
		watch := s.watch
		s.mu.RUnlock()
		if watch != nil {
			watch(ctx, change.users, change.online)
		}
	}
	if err := s.resync(ctx); err != nil {
		s.log.WarnContext(ctx, "presence: resync", "err", err)
	}
}

// resync replaces the mirror with the leases' list, keeping updates heard
// while the list was being read.
func (s *Shared) resync(ctx context.Context) error {
	start := time.Now()
	list, err := s.leases.Online(ctx)
	if err != nil {
		return fmt.Errorf("presence: list online users: %w", err)
	}
	next := make(map[chat.ID]struct{}, len(list))
	for _, u := range list {
		next[u] = struct{}{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for u, at := range s.changed {
		if !at.After(start) {
			delete(s.changed, u)
			continue
		}
		if _, ok := s.online[u]; ok {
			next[u] = struct{}{}
		} else {
			delete(next, u)
		}
	}
	s.online = next
	return nil
}

// set records users online or offline in the mirror.
func (s *Shared) set(online bool, users ...chat.ID) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range users {
		if online {
			s.online[u] = struct{}{}
		} else {
			delete(s.online, u)
		}
		s.changed[u] = now
	}
}

// tell publishes a mirror update: '+' or '-' and the user ids separated
// by spaces.
func (s *Shared) tell(ctx context.Context, online bool, users ...chat.ID) {
	var b strings.Builder
	b.WriteByte("-+"[btoi(online)])
	for i, u := range users {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(u))
	}
	if err := s.bus.Publish(context.WithoutCancel(ctx), Topic, []byte(b.String())); err != nil {
		s.log.WarnContext(ctx, "presence: publish update", "err", err)
	}
}

// receive applies a mirror update from any node, this one included.
func (s *Shared) receive(_ string, msg []byte) {
	if len(msg) < 2 || (msg[0] != '+' && msg[0] != '-') {
		return
	}
	var users []chat.ID
	for f := range strings.FieldsSeq(string(msg[1:])) {
		users = append(users, chat.ID(f))
	}
	s.set(msg[0] == '+', users...)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
