package presence

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"ermine/internal/chat"
)

// Redis is Leases kept in one Redis (not a Redis Cluster: the scripts
// touch keys they compute). Under prefix it keeps:
//
//   - "u:"+user, a hash from node name to the lease's expiry (Unix ms);
//   - "leases", a sorted set of user+"|"+node scored by expiry, so
//     Expire finds run-out leases without a scan;
//   - "online", the set of users online, which decides first and last:
//     a user is added when a lease is taken on them and removed when no
//     live lease is left.
//
// Every call is one Lua script reading the Redis clock, so the nodes'
// clocks do not matter and concurrent calls never interleave.
type Redis struct {
	c      redis.UniversalClient
	prefix string
}

var _ Leases = (*Redis)(nil)

// NewRedis returns Leases kept under keys starting with prefix.
func NewRedis(c redis.UniversalClient, prefix string) *Redis {
	return &Redis{c: c, prefix: prefix}
}

// The scripts share these helpers: now() in Unix ms from the Redis
// clock, and live(hash, now), whether a hash holds an unexpired lease.
const luaHelpers = `
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function live(h, t)
  local all = redis.call('HGETALL', h)
  for i = 2, #all, 2 do
    if tonumber(all[i]) > t then return true end
  end
  return false
end
`

// KEYS: prefix. ARGV: node, user, ttl ms. Returns 1 when the user was
// offline.
var acquireScript = redis.NewScript(luaHelpers + `
local p, node, user = KEYS[1], ARGV[1], ARGV[2]
local exp = now() + tonumber(ARGV[3])
redis.call('HSET', p .. 'u:' .. user, node, exp)
redis.call('ZADD', p .. 'leases', exp, user .. '|' .. node)
return redis.call('SADD', p .. 'online', user)
`)

// KEYS: prefix. ARGV: node, user. Returns 1 when the user is now offline.
var releaseScript = redis.NewScript(luaHelpers + `
local p, node, user = KEYS[1], ARGV[1], ARGV[2]
local h = p .. 'u:' .. user
redis.call('HDEL', h, node)
redis.call('ZREM', p .. 'leases', user .. '|' .. node)
if live(h, now()) then return 0 end
return redis.call('SREM', p .. 'online', user)
`)

// KEYS: prefix. ARGV: node, ttl ms, users... Returns the users that were
// offline.
var renewScript = redis.NewScript(luaHelpers + `
local p, node = KEYS[1], ARGV[1]
local exp = now() + tonumber(ARGV[2])
local came = {}
for i = 3, #ARGV do
  local user = ARGV[i]
  redis.call('HSET', p .. 'u:' .. user, node, exp)
  redis.call('ZADD', p .. 'leases', exp, user .. '|' .. node)
  if redis.call('SADD', p .. 'online', user) == 1 then came[#came + 1] = user end
end
return came
`)

// KEYS: prefix. ARGV: the most leases to collect. Returns how many it
// collected, then the users left offline.
var expireScript = redis.NewScript(luaHelpers + `
local p = KEYS[1]
local t = now()
local gone = {0}
local due = redis.call('ZRANGEBYSCORE', p .. 'leases', '-inf', t, 'LIMIT', 0, tonumber(ARGV[1]))
for _, m in ipairs(due) do
  redis.call('ZREM', p .. 'leases', m)
  local sep = string.find(m, '|', 1, true)
  local user, node = string.sub(m, 1, sep - 1), string.sub(m, sep + 1)
  local h = p .. 'u:' .. user
  local exp = tonumber(redis.call('HGET', h, node))
  if exp and exp <= t then redis.call('HDEL', h, node) end
  if not live(h, t) and redis.call('SREM', p .. 'online', user) == 1 then gone[#gone + 1] = user end
end
gone[1] = #due
return gone
`)

// renewBatch is how many users one Renew script takes; expireBatch how
// many leases one Expire script collects, so no script holds Redis long.
const (
	renewBatch  = 1000
	expireBatch = 1000
)

// Acquire implements Leases.
func (r *Redis) Acquire(ctx context.Context, node string, user chat.ID, ttl time.Duration) (bool, error) {
	n, err := acquireScript.Run(ctx, r.c, []string{r.prefix}, node, string(user), ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("presence: acquire: %w", err)
	}
	return n == 1, nil
}

// Release implements Leases.
func (r *Redis) Release(ctx context.Context, node string, user chat.ID) (bool, error) {
	n, err := releaseScript.Run(ctx, r.c, []string{r.prefix}, node, string(user)).Int()
	if err != nil {
		return false, fmt.Errorf("presence: release: %w", err)
	}
	return n == 1, nil
}

// Renew implements Leases.
func (r *Redis) Renew(ctx context.Context, node string, users []chat.ID, ttl time.Duration) ([]chat.ID, error) {
	var came []chat.ID
	for lo := 0; lo < len(users); lo += renewBatch {
		batch := users[lo:min(lo+renewBatch, len(users))]
		args := make([]any, 0, 2+len(batch))
		args = append(args, node, strconv.FormatInt(ttl.Milliseconds(), 10))
		for _, u := range batch {
			args = append(args, string(u))
		}
		got, err := renewScript.Run(ctx, r.c, []string{r.prefix}, args...).StringSlice()
		if err != nil {
			return came, fmt.Errorf("presence: renew: %w", err)
		}
		came = appendIDs(came, got)
	}
	return came, nil
}

// Expire implements Leases.
func (r *Redis) Expire(ctx context.Context) ([]chat.ID, error) {
	var gone []chat.ID
	for range 100 { // at most 100,000 leases a call; the rest next time
		got, err := expireScript.Run(ctx, r.c, []string{r.prefix}, expireBatch).Slice()
		if err != nil {
			return gone, fmt.Errorf("presence: expire: %w", err)
		}
		for _, v := range got[1:] {
			if s, ok := v.(string); ok {
				gone = append(gone, chat.ID(s))
			}
		}
		if n, _ := got[0].(int64); n < expireBatch {
			break
		}
	}
	return gone, nil
}

// Online implements Leases.
func (r *Redis) Online(ctx context.Context) ([]chat.ID, error) {
	got, err := r.c.SMembers(ctx, r.prefix+"online").Result()
	if err != nil {
		return nil, fmt.Errorf("presence: online: %w", err)
	}
	return appendIDs(nil, got), nil
}

func appendIDs(dst []chat.ID, ids []string) []chat.ID {
	for _, id := range ids {
		dst = append(dst, chat.ID(id))
	}
	return dst
}
