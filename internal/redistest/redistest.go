// Package redistest connects tests to the Redis of ERMINE_TEST_REDIS: the
// suites of the rate limiter, slowmode windows and shared state share it.
package redistest

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Options reads ERMINE_TEST_REDIS, skipping the test when it is unset,
// or failing it under CI, where Redis must be tested.
func Options(t testing.TB) *redis.Options {
	t.Helper()
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
	return opt
}

// Client connects to ERMINE_TEST_REDIS (see Options), checks it answers,
// and closes the client when the test ends.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(Options(t))
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close redis client: %v", err)
		}
	})
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("ping ERMINE_TEST_REDIS: %v", err)
	}
	return c
}
