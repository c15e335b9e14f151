package shared_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ermine/internal/pubsub/inproc"
	"ermine/internal/redistest"
	"ermine/internal/shared"
	"ermine/internal/shared/sharedtest"
)

func TestMemoryConformance(t *testing.T) {
	sharedtest.Run(t, func(t *testing.T) sharedtest.Cluster {
		s := shared.Memory()
		return sharedtest.Cluster{Node: func(*testing.T) *shared.State { return s }}
	})
}

// testLease is short so the dead-node case takes about a second.
const testLease = 600 * time.Millisecond

func TestRedisConformance(t *testing.T) {
	opt := redistest.Options(t)
	sharedtest.Run(t, func(t *testing.T) sharedtest.Cluster {
		// One cluster: one key prefix and one bus, each node its own
		// Redis client, as separate processes have.
		prefix := "ermine-test:shared:" + rand.Text() + ":"
		bus := inproc.New(0)
		t.Cleanup(func() { bus.Close() })
		return sharedtest.Cluster{
			Shared: true,
			Lease:  testLease,
			Node: func(t *testing.T) *shared.State {
				s, err := shared.Redis(context.Background(), redis.NewClient(opt),
					shared.RedisOptions{Prefix: prefix, Bus: bus, Lease: testLease})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			},
		}
	})
}

func TestRedisUnreachable(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	_, err := shared.Redis(context.Background(), c, shared.RedisOptions{Bus: inproc.New(0)})
	if err == nil {
		t.Fatal("Redis on a closed port: no error")
	}
}
