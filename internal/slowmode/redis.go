package slowmode

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"ermine/internal/chat"
)

// Redis is Windows shared by every node using the same Redis. Each window
// is a key prefix+"w:"+user+":"+channel holding the duration in
// milliseconds and expiring with the window (SET NX PX, as the reference
// does); a sorted set prefix+"u:"+user indexes a user's windows by
// expiry so Open needs no key scan.
type Redis struct {
	c      redis.UniversalClient
	prefix string
}

var _ Windows = (*Redis)(nil)

// NewRedis returns Windows kept in Redis under keys starting with prefix.
func NewRedis(c redis.UniversalClient, prefix string) *Redis {
	return &Redis{c: c, prefix: prefix}
}

func (r *Redis) key(user, channel chat.ID) string {
	return r.prefix + "w:" + string(user) + ":" + string(channel)
}

func (r *Redis) index(user chat.ID) string { return r.prefix + "u:" + string(user) }

// Start implements Windows.
func (r *Redis) Start(ctx context.Context, user, channel chat.ID, d time.Duration) (*Window, error) {
	key := r.key(user, channel)
	ok, err := r.c.SetNX(ctx, key, d.Milliseconds(), d).Result()
	if err != nil {
		return nil, fmt.Errorf("slowmode: set: %w", err)
	}
	if ok {
		// Index the window. The index lives as long as its longest window.
		now, err := r.c.Time(ctx).Result()
		if err != nil {
			return nil, fmt.Errorf("slowmode: time: %w", err)
		}
		until := now.Add(d)
		idx := r.index(user)
		_, err = r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.ZAdd(ctx, idx, redis.Z{Score: float64(until.UnixMilli()), Member: string(channel)})
			p.ZRemRangeByScore(ctx, idx, "-inf", strconv.FormatInt(now.UnixMilli(), 10))
			p.ExpireGT(ctx, idx, d)
			p.ExpireNX(ctx, idx, d)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("slowmode: index: %w", err)
		}
		return nil, nil
	}
	return r.window(ctx, user, channel)
}

// window reads the open window of user in channel; a window that closed
// meanwhile is reported as one millisecond left rather than none, since
// the caller has already been refused by SET NX.
func (r *Redis) window(ctx context.Context, user, channel chat.ID) (*Window, error) {
	key := r.key(user, channel)
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		get = p.Get(ctx, key)
		ttl = p.PTTL(ctx, key)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("slowmode: read: %w", err)
	}
	ms, _ := strconv.ParseInt(get.Val(), 10, 64)
	left := ttl.Val()
	if left <= 0 {
		left = time.Millisecond
	}
	return &Window{Channel: channel, Duration: time.Duration(ms) * time.Millisecond, Left: left}, nil
}

// Open implements Windows.
func (r *Redis) Open(ctx context.Context, user chat.ID) ([]Window, error) {
	now, err := r.c.Time(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("slowmode: time: %w", err)
	}
	channels, err := r.c.ZRangeByScore(ctx, r.index(user), &redis.ZRangeBy{
		Min: "(" + strconv.FormatInt(now.UnixMilli(), 10), Max: "+inf"}).Result()
	if err != nil {
		return nil, fmt.Errorf("slowmode: index: %w", err)
	}
	var out []Window
	for _, ch := range channels {
		w, err := r.window(ctx, user, chat.ID(ch))
		if err != nil {
			return nil, err
		}
		if w.Duration > 0 { // the key still exists
			out = append(out, *w)
		}
	}
	return out, nil
}
