package ratelimit_test

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ermine/internal/ratelimit"
	"ermine/internal/ratelimit/limitertest"
	"ermine/internal/redistest"
)

// redisWindow is the window of the Redis variant of the suite: real time,
// so short enough to keep the tests fast (the parallel subtests sleep
// about one window each) and long enough that a loaded machine stalling a
// goroutine for a few hundred milliseconds does not close it early.
const redisWindow = 500 * time.Millisecond

// redisClient connects to ERMINE_TEST_REDIS (redistest.Client).
func redisClient(t *testing.T) *redis.Client { return redistest.Client(t) }

// uniquePrefix returns a key prefix no other test run uses, so runs can
// share one Redis database.
func uniquePrefix(t *testing.T) string {
	t.Helper()
	return "ermine-test:" + strings.ReplaceAll(t.Name(), "/", ":") + ":" + rand.Text() + ":"
}

func TestRedisConformance(t *testing.T) {
	c := redisClient(t)
	limitertest.Run(t, redisWindow, func(t *testing.T) (ratelimit.Limiter, func(time.Duration)) {
		// Redis expires a key only once its deadline has passed, so
		// sleep a little beyond d to be past it on the server too.
		return ratelimit.NewRedis(c, uniquePrefix(t)), func(d time.Duration) { time.Sleep(d + 5*time.Millisecond) }
	})
}

func TestRedisKeyExpires(t *testing.T) {
	c := redisClient(t)
	prefix := uniquePrefix(t)
	l := ratelimit.NewRedis(c, prefix)
	ctx := context.Background()
	if _, err := l.Take(ctx, "k", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	ttl, err := c.PTTL(ctx, prefix+"k").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 59*time.Second || ttl > time.Minute {
		t.Errorf("PTTL of the counter = %s, want just under a minute", ttl)
	}
}

func TestRedisRepairsKeyWithoutExpiry(t *testing.T) {
	c := redisClient(t)
	prefix := uniquePrefix(t)
	l := ratelimit.NewRedis(c, prefix)
	ctx := context.Background()
	if err := c.Set(ctx, prefix+"k", 7, 0).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Del(context.Background(), prefix+"k") })
	r, err := l.Take(ctx, "k", 5, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed || r.ResetAfter != time.Minute {
		t.Errorf("got %+v, want a refused call with a window of a minute", r)
	}
	ttl, err := c.PTTL(ctx, prefix+"k").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 {
		t.Errorf("PTTL = %s, want the counter given an expiry", ttl)
	}
}

// replyScripter is a redis.Scripter whose every script call gives one
// fixed reply, for the error paths that need no server.
type replyScripter struct {
	val any
	err error
}

func (s replyScripter) Eval(context.Context, string, []string, ...any) *redis.Cmd {
	return redis.NewCmdResult(s.val, s.err)
}

func (s replyScripter) EvalSha(context.Context, string, []string, ...any) *redis.Cmd {
	return redis.NewCmdResult(s.val, s.err)
}

func (s replyScripter) EvalRO(context.Context, string, []string, ...any) *redis.Cmd {
	return redis.NewCmdResult(s.val, s.err)
}

func (s replyScripter) EvalShaRO(context.Context, string, []string, ...any) *redis.Cmd {
	return redis.NewCmdResult(s.val, s.err)
}

func (s replyScripter) ScriptExists(_ context.Context, hashes ...string) *redis.BoolSliceCmd {
	return redis.NewBoolSliceResult(make([]bool, len(hashes)), s.err)
}

func (s replyScripter) ScriptLoad(context.Context, string) *redis.StringCmd {
	return redis.NewStringResult("", s.err)
}

func TestRedisErrors(t *testing.T) {
	errDown := errors.New("connection refused")
	tests := []struct {
		name   string
		client replyScripter
		want   error // matched with errors.Is, or nil for any error
	}{
		{"ServerDown", replyScripter{err: errDown}, errDown},
		{"ShortReply", replyScripter{val: []any{int64(1)}}, nil},
		{"NotAList", replyScripter{val: "OK"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := ratelimit.NewRedis(tc.client, "x:")
			r, err := l.Take(context.Background(), "k", 1, time.Second)
			if err == nil {
				t.Fatalf("Take = %+v, nil error; want an error", r)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v does not wrap %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "ratelimit: take") {
				t.Errorf("error %q lacks the ratelimit context", err)
			}
			if r != (ratelimit.Result{}) {
				t.Errorf("Result = %+v with an error, want zero", r)
			}
		})
	}
}
