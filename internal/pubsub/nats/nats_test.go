package nats

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/test"

	"ermine/internal/pubsub"
	"ermine/internal/pubsub/pubsubtest"
)

// TestConformance runs the suite against a NATS server started in this
// process on a random port.
func TestConformance(t *testing.T) {
	opts := test.DefaultTestOptions
	opts.Port = -1
	srv := test.RunServer(&opts)
	t.Cleanup(srv.Shutdown)
	run(t, srv.ClientURL())
}

// TestConformanceExternal runs the suite against the server named by
// ERMINE_TEST_NATS, such as nats://127.0.0.1:4222.
func TestConformanceExternal(t *testing.T) {
	run(t, pubsubtest.Env(t, "ERMINE_TEST_NATS"))
}

// run opens every bus of a test with its own subject prefix, so parallel
// tests and other users of the server stay apart.
func run(t *testing.T, url string) {
	id := strconv.FormatInt(time.Now().UnixNano(), 36)
	pubsubtest.Run(t, func(t *testing.T) pubsub.Bus {
		return open(t, url, WithPrefix("ermt."+pubsubtest.Namespace(t, id)+"."))
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

func TestOpen(t *testing.T) {
	opts := test.DefaultTestOptions
	opts.Port = -1
	srv := test.RunServer(&opts)
	t.Cleanup(srv.Shutdown)

	tests := []struct {
		name    string
		url     string
		opts    []Option
		wantErr bool
	}{
		{"Default", srv.ClientURL(), nil, false},
		{"EmptyPrefix", srv.ClientURL(), []Option{WithPrefix("")}, false},
		{"WildcardPrefix", srv.ClientURL(), []Option{WithPrefix("a.>.")}, true},
		{"SpacePrefix", srv.ClientURL(), []Option{WithPrefix("a b.")}, true},
		{"NoServer", "nats://127.0.0.1:1", []Option{WithTimeout(time.Second), WithNATSOptions()}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Open(tt.url, tt.opts...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Open error = %v, want error %v", err, tt.wantErr)
			}
			if b != nil {
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestSlowSubscriberDrops checks that a full queue drops frames instead of
// stalling the connection, and that Dropped counts them.
func TestSlowSubscriberDrops(t *testing.T) {
	opts := test.DefaultTestOptions
	opts.Port = -1
	srv := test.RunServer(&opts)
	t.Cleanup(srv.Shutdown)

	b := open(t, srv.ClientURL(), WithQueueLen(1))
	release := make(chan struct{})
	sub, err := b.Subscribe(func(string, []byte) { <-release })
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Add("slow"); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if err := b.Publish(t.Context(), "slow", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for b.Dropped() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("Dropped stayed 0 with a blocked handler")
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	before := b.Dropped()
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if after := b.Dropped(); after < before {
		t.Errorf("Dropped fell from %d to %d after Close", before, after)
	}
	if err := sub.Add("slow"); !errors.Is(err, pubsub.ErrClosed) {
		t.Errorf("Add after Close = %v", err)
	}
}
