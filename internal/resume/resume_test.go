package resume_test

import (
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"ermine/internal/redistest"
	"ermine/internal/resume"
	"ermine/internal/resume/resumetest"
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
	resumetest.Run(t, time.Second, func(t *testing.T) (resume.Streams, func(time.Duration)) {
		c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
		return resume.NewMemory(c.Now), c.Add
	})
}

func TestRedisConformance(t *testing.T) {
	c := redistest.Client(t)
	resumetest.Run(t, 100*time.Millisecond, func(t *testing.T) (resume.Streams, func(time.Duration)) {
		return resume.NewRedis(c, "ermine-test:resume:"+rand.Text()+":"), time.Sleep
	})
}
