package resume

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is Streams shared by every node using the same Redis. A stream is
// a hash prefix+"{id}" (its header) and a list prefix+"{id}:f" (its
// frames, each an 8-byte big-endian number followed by the packet), both
// expiring together; the braces keep them in one slot of a cluster.
// Writes after the hash is gone do nothing (a Lua script checks it in the
// same step). A node's Beat is the key prefix+"node:"+node, expiring
// with it.
type Redis struct {
	c      redis.UniversalClient
	prefix string
}

var _ Streams = (*Redis)(nil)

// NewRedis returns Streams kept in Redis under keys starting with prefix.
func NewRedis(c redis.UniversalClient, prefix string) *Redis {
	return &Redis{c: c, prefix: prefix}
}

func (r *Redis) keys(id string) []string {
	h := r.prefix + "{" + id + "}"
	return []string{h, h + ":f"}
}

// Open implements Streams.
func (r *Redis) Open(ctx context.Context, id, user, format, node string, ttl time.Duration) error {
	k := r.keys(id)
	_, err := r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, k...)
		p.HSet(ctx, k[0], "user", user, "format", format, "node", node)
		p.PExpire(ctx, k[0], ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("resume: open: %w", err)
	}
	return nil
}

// appendScript adds ARGV[3...] to the list, keeps the last ARGV[2] and
// sets both keys' expiry to ARGV[1] ms, if the header exists.
var appendScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV >= 3 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 3))
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`)

// sealScript adds ARGV[5...] to the list as appendScript does, keeping
// the header's expiry, and records the seal (nonce, last, intact).
var sealScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV >= 5 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 5))
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[4]), -1)
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
redis.call('HSET', KEYS[1], 'sealed', ARGV[1], 'last', ARGV[2], 'intact', ARGV[3])
return 1`)

// prepareScript records a takeover's scope if the header exists.
var prepareScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'prepared', ARGV[1], 'scope', ARGV[2])
return 1`)

// encodeFrames renders frames as list items after the leading args.
func encodeFrames(args []any, frames []Frame) []any {
	for _, f := range frames {
		b := make([]byte, 8, 8+len(f.Data))
		binary.BigEndian.PutUint64(b, f.Seq)
		args = append(args, append(b, f.Data...))
	}
	return args
}

// Append implements Streams.
func (r *Redis) Append(ctx context.Context, id string, frames []Frame, ttl time.Duration) error {
	args := encodeFrames([]any{ttl.Milliseconds(), MaxFrames}, frames)
	if err := appendScript.Run(ctx, r.c, r.keys(id), args...).Err(); err != nil {
		return fmt.Errorf("resume: append: %w", err)
	}
	return nil
}

// Prepare implements Streams.
func (r *Redis) Prepare(ctx context.Context, id, nonce, scope string) error {
	if err := prepareScript.Run(ctx, r.c, r.keys(id)[:1], nonce, scope).Err(); err != nil {
		return fmt.Errorf("resume: prepare: %w", err)
	}
	return nil
}

// Seal implements Streams.
func (r *Redis) Seal(ctx context.Context, id, nonce string, frames []Frame, last uint64, intact bool) error {
	flag := "0"
	if intact {
		flag = "1"
	}
	args := encodeFrames([]any{nonce, strconv.FormatUint(last, 10), flag, MaxFrames}, frames)
	if err := sealScript.Run(ctx, r.c, r.keys(id), args...).Err(); err != nil {
		return fmt.Errorf("resume: seal: %w", err)
	}
	return nil
}

// Fetch implements Streams.
func (r *Redis) Fetch(ctx context.Context, id string) (Header, bool, error) {
	m, err := r.c.HGetAll(ctx, r.keys(id)[0]).Result()
	if err != nil {
		return Header{}, false, fmt.Errorf("resume: fetch: %w", err)
	}
	if len(m) == 0 {
		return Header{}, false, nil
	}
	last, _ := strconv.ParseUint(m["last"], 10, 64)
	return Header{User: m["user"], Format: m["format"], Node: m["node"], Prepared: m["prepared"], Scope: m["scope"],
		Sealed: m["sealed"], Last: last, Intact: m["intact"] == "1"}, true, nil
}

// errBadFrame reports a list item too short to hold a number.
var errBadFrame = errors.New("resume: malformed frame in Redis")

// Frames implements Streams.
func (r *Redis) Frames(ctx context.Context, id string, after uint64) ([]Frame, error) {
	items, err := r.c.LRange(ctx, r.keys(id)[1], 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("resume: frames: %w", err)
	}
	var out []Frame
	for _, it := range items {
		if len(it) < 8 {
			return nil, errBadFrame
		}
		seq := binary.BigEndian.Uint64([]byte(it[:8]))
		if seq > after {
			out = append(out, Frame{Seq: seq, Data: []byte(it[8:])})
		}
	}
	return out, nil
}

// Delete implements Streams.
func (r *Redis) Delete(ctx context.Context, id string) error {
	if err := r.c.Del(ctx, r.keys(id)...).Err(); err != nil {
		return fmt.Errorf("resume: delete: %w", err)
	}
	return nil
}

// nodeKey is the key of node's Beat.
func (r *Redis) nodeKey(node string) string { return r.prefix + "node:" + node }

// Beat implements Streams.
func (r *Redis) Beat(ctx context.Context, node string, ttl time.Duration) error {
	var err error
	if ttl <= 0 {
		err = r.c.Del(ctx, r.nodeKey(node)).Err()
	} else {
		err = r.c.Set(ctx, r.nodeKey(node), "1", ttl).Err()
	}
	if err != nil {
		return fmt.Errorf("resume: beat: %w", err)
	}
	return nil
}

// Alive implements Streams.
func (r *Redis) Alive(ctx context.Context, node string) (bool, error) {
	n, err := r.c.Exists(ctx, r.nodeKey(node)).Result()
	if err != nil {
		return false, fmt.Errorf("resume: alive: %w", err)
	}
	return n == 1, nil
}
