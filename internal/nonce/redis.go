package nonce

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisTTL is how long Redis remembers a key: long past any client's
// retries, short enough that a busy instance's keys stay small (at 1,000
// sends a second, ten minutes is 600,000 keys, about 60 MB).
const RedisTTL = 10 * time.Minute

// Redis is a Guard shared by every node using the same Redis: each key is
// a Redis key prefix+key set with SET NX and an expiry.
type Redis struct {
	c      redis.UniversalClient
	prefix string
	ttl    time.Duration
}

var _ Guard = (*Redis)(nil)

// NewRedis returns a Guard keeping keys under prefix for ttl (RedisTTL
// when ttl <= 0).
func NewRedis(c redis.UniversalClient, prefix string, ttl time.Duration) *Redis {
	if ttl <= 0 {
		ttl = RedisTTL
	}
	return &Redis{c: c, prefix: prefix, ttl: ttl}
}

// Reserve implements Guard.
func (r *Redis) Reserve(ctx context.Context, key string) (bool, error) {
	ok, err := r.c.SetNX(ctx, r.prefix+key, 1, r.ttl).Result()
	if err != nil {
		return false, fmt.Errorf("nonce: reserve: %w", err)
	}
	return ok, nil
}

// Release implements Guard.
func (r *Redis) Release(ctx context.Context, key string) error {
	if err := r.c.Del(ctx, r.prefix+key).Err(); err != nil {
		return fmt.Errorf("nonce: release: %w", err)
	}
	return nil
}
