package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// takeScript counts one call atomically. KEYS[1] is the counter, ARGV[1]
// the window in milliseconds. The first call of a window sets the expiry,
// so the window runs from it and later calls never extend it. A counter
// found without an expiry (written by something else) is given one, so a
// key can never stay limited for ever. It returns {count, ttl in ms}.
const takeScript = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
	ttl = tonumber(ARGV[1])
end
return {n, ttl}
`

// Redis is a Limiter whose counters live in Redis, so every node of a
// cluster shares the same limits. Each Take is one script call (INCR, then
// PEXPIRE on a window's first call, then PTTL), run atomically by Redis, so
// its semantics match Memory's: a fixed window from the first call,
// counted exactly under concurrency. Times have millisecond resolution and
// follow the Redis server's clock.
type Redis struct {
	client redis.Scripter
	prefix string
	script *redis.Script
}

// NewRedis returns a Redis limiter using client (a *redis.Client,
// *redis.ClusterClient or *redis.Ring) that stores counters under
// prefix+key. Each key is a single Redis key, so it works with Redis
// Cluster.
func NewRedis(client redis.Scripter, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix, script: redis.NewScript(takeScript)}
}

// Take implements Limiter. Errors from Redis are wrapped; a done context's
// error can be checked with errors.Is.
func (r *Redis) Take(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	if err := check(limit, window); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	ms := strconv.FormatInt(window.Milliseconds(), 10)
	v, err := r.script.Run(ctx, r.client, []string{r.prefix + key}, ms).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: take %q: %w", key, err)
	}
	if len(v) != 2 {
		return Result{}, fmt.Errorf("ratelimit: take %q: script returned %d values, want 2", key, len(v))
	}
	ttl := time.Duration(v[1]) * time.Millisecond
	if ttl <= 0 {
		// Redis reports 0 in the last millisecond before the key
		// expires; the window is still open for that instant.
		ttl = time.Millisecond
	}
	if ttl > window {
		ttl = window
	}
	return result(v[0], limit, ttl), nil
}
