// Package shared gathers the state the nodes of one instance must agree
// on and that does not belong in the database: who is online
// (presence), the idempotency keys of recent sends (nonce), rate-limit
// windows (ratelimit), slowmode windows (slowmode) and the held streams
// of resumable events connections (resume). Each has a
// single-process implementation and a Redis one; Memory and Redis build
// the whole set, and sharedtest is the one suite both pass.
//
// Redis is the shared engine because each of these is a short-lived key
// that must expire by itself and change atomically: SET NX with an
// expiry (nonces, slowmode), INCR with an expiry (rate limits) and Lua
// scripts over a hash and a sorted set (presence leases), each one round
// trip. PostgreSQL would add a write to every request and expire
// nothing by itself; NATS key-value buckets (Debian ships NATS 2.9) have
// no per-key expiry and no atomic increment.
//
// What other nodes need otherwise is already shared: messages, voice
// participants and everything else durable live in the database, and
// typing indicators are events on the bus with no state behind them.
package shared

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"ermine/internal/nonce"
	"ermine/internal/presence"
	"ermine/internal/pubsub"
	"ermine/internal/ratelimit"
	"ermine/internal/resume"
	"ermine/internal/slowmode"
)

// State is one node's handle on the shared state.
type State struct {
	Presence  presence.Tracker
	Nonces    nonce.Guard
	Limiter   ratelimit.Limiter
	Slowmodes slowmode.Windows
	Streams   resume.Streams

	closers []func() error
}

// Close stops the state's background work (presence renewal) and
// releases its connection.
func (s *State) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	return errors.Join(errs...)
}

// Memory returns state kept in this process, for a single node.
func Memory() *State {
	return &State{
		Presence:  presence.NewMemory(),
		Nonces:    nonce.NewMemory(0),
		Limiter:   ratelimit.NewMemory(nil),
		Slowmodes: slowmode.NewMemory(nil),
		Streams:   resume.NewMemory(nil),
	}
}

// RedisOptions configures Redis.
type RedisOptions struct {
	// Prefix starts every key ("ermine:" when empty), so instances or
	// test runs can share one Redis database.
	Prefix string
	// Bus carries presence updates between the nodes. Required.
	Bus pubsub.Bus
	// Lease is the presence lease (presence.DefaultLease when zero).
	Lease time.Duration
	// Node names this node; random when empty.
	Node string
	Log  *slog.Logger
}

// Redis returns state shared through the Redis client c, which it
// closes on Close.
func Redis(ctx context.Context, c redis.UniversalClient, o RedisOptions) (*State, error) {
	if o.Prefix == "" {
		o.Prefix = "ermine:"
	}
	if err := c.Ping(ctx).Err(); err != nil {
		return nil, errors.Join(errors.New("shared state: cannot reach Redis"), err)
	}
	p, err := presence.NewShared(ctx, presence.NewRedis(c, o.Prefix+"presence:"), presence.SharedOptions{
		Node: o.Node, Lease: o.Lease, Bus: o.Bus, Log: o.Log})
	if err != nil {
		return nil, err
	}
	return &State{
		Presence:  p,
		Nonces:    nonce.NewRedis(c, o.Prefix+"nonce:", 0),
		Limiter:   ratelimit.NewRedis(c, o.Prefix+"rl:"),
		Slowmodes: slowmode.NewRedis(c, o.Prefix+"slowmode:"),
		Streams:   resume.NewRedis(c, o.Prefix+"resume:"),
		closers:   []func() error{c.Close, p.Close},
	}, nil
}
