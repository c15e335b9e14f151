package redis

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"ermine/internal/pubsub"
	"ermine/internal/pubsub/pubsubtest"
)

// TestConformance runs the suite against the server named by
// ERMINE_TEST_REDIS, such as redis://127.0.0.1:6379/0, with a channel
// prefix of its own per test.
func TestConformance(t *testing.T) {
	url := pubsubtest.Env(t, "ERMINE_TEST_REDIS")
	id := strconv.FormatInt(time.Now().UnixNano(), 36)
	pubsubtest.Run(t, func(t *testing.T) pubsub.Bus {
		return open(t, url, WithPrefix("ermt:"+pubsubtest.Namespace(t, id)+":"))
	})
}

func open(t *testing.T, url string, opts ...Option) *Bus {
	t.Helper()
	b, err := Open(url, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		url  string
	}{
		{"BadScheme", "http://127.0.0.1:6379"},
		{"NoServer", "redis://127.0.0.1:1/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b, err := Open(tt.url, WithTimeout(time.Second)); err == nil {
				_ = b.Close()
				t.Fatal("Open succeeded")
			}
		})
	}
}

// TestSlowSubscriberDrops checks that a full queue drops frames instead of
// stalling the reader, and that Dropped counts them.
func TestSlowSubscriberDrops(t *testing.T) {
	url := pubsubtest.Env(t, "ERMINE_TEST_REDIS")
	prefix := "ermt:" + pubsubtest.Namespace(t, strconv.FormatInt(time.Now().UnixNano(), 36)) + ":"
	b := open(t, url, WithPrefix(prefix), WithQueueLen(1))

	release := make(chan struct{})
	sub, err := b.Subscribe(func(string, []byte) { <-release })
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Add("slow"); err != nil {
		t.Fatal(err)
	}
	const published = 20
	for range published {
		if err := b.Publish(t.Context(), "slow", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	// One frame is in the handler and one queued; the batch swap lets at
	// most one more wait, so at least published-3 are dropped.
	deadline := time.Now().Add(5 * time.Second)
	for b.Dropped() < published-3 {
		if time.Now().After(deadline) {
			t.Fatalf("Dropped = %d, want at least %d", b.Dropped(), published-3)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if d := b.Dropped(); d < published-3 {
		t.Errorf("Dropped after Close = %d", d)
	}
	if err := sub.Add("slow"); !errors.Is(err, pubsub.ErrClosed) {
		t.Errorf("Add after Close = %v", err)
	}
}

// TestAddRegisters checks the Add guarantee at the server: as soon as Add
// returns, PUBSUB NUMSUB counts the subscription.
func TestAddRegisters(t *testing.T) {
	url := pubsubtest.Env(t, "ERMINE_TEST_REDIS")
	prefix := "ermt:" + pubsubtest.Namespace(t, strconv.FormatInt(time.Now().UnixNano(), 36)) + ":"
	b := open(t, url, WithPrefix(prefix))
	sub, err := b.Subscribe(func(string, []byte) {})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		topic := "t" + strconv.Itoa(i)
		if err := sub.Add("x"+topic, topic); err != nil {
			t.Fatal(err)
		}
		n, err := b.rdb.PubSubNumSub(t.Context(), prefix+topic).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n[prefix+topic] != 1 {
			t.Fatalf("NUMSUB %s = %d right after Add, want 1", topic, n[prefix+topic])
		}
	}
}
