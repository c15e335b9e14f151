package slowmode_test

import (
	"context"
	"crypto/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ermine/internal/slowmode"
	"ermine/internal/slowmode/slowmodetest"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestMemoryConformance(t *testing.T) {
	slowmodetest.Run(t, time.Second, func(t *testing.T) (slowmode.Windows, func(time.Duration)) {
		c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
		return slowmode.NewMemory(c.Now), c.Add
	})
}

func TestRedisConformance(t *testing.T) {
	url := os.Getenv("ERMINE_TEST_REDIS")
	if url == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("ERMINE_TEST_REDIS must be set when CI is set (e.g. redis://127.0.0.1:6379/0)")
		}
		t.Skip("ERMINE_TEST_REDIS not set (e.g. redis://127.0.0.1:6379/0); skipping Redis tests")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("parse ERMINE_TEST_REDIS: %v", err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("ping %s: %v", url, err)
	}
	slowmodetest.Run(t, 100*time.Millisecond, func(t *testing.T) (slowmode.Windows, func(time.Duration)) {
		return slowmode.NewRedis(c, "ermine-test:slowmode:"+rand.Text()+":"), time.Sleep
	})
}
