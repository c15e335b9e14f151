package inproc

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"ermine/internal/pubsub"
	"ermine/internal/pubsub/pubsubtest"
)

func TestConformance(t *testing.T) {
	// Nodes of one test share a Bus, as nodes share a NATS or Redis server.
	var mu sync.Mutex
	buses := make(map[*testing.T]*Bus)
	pubsubtest.Run(t, func(t *testing.T) pubsub.Bus {
		mu.Lock()
		defer mu.Unlock()
		b, ok := buses[t]
		if !ok {
			b = New(0)
			buses[t] = b
			t.Cleanup(func() {
				if err := b.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
		}
		n := &node{bus: b}
		t.Cleanup(func() { _ = n.Close() })
		return n
	})
}

// node is one simulated node on a shared Bus: closing it closes only the
// subscriptions it opened.
type node struct {
	bus    *Bus
	mu     sync.Mutex
	subs   []pubsub.Subscription
	closed bool
}

func (n *node) Publish(ctx context.Context, topic string, msg []byte) error {
	n.mu.Lock()
	closed := n.closed
	n.mu.Unlock()
	if closed {
		return pubsub.ErrClosed
	}
	return n.bus.Publish(ctx, topic, msg)
}

func (n *node) Subscribe(h pubsub.Handler) (pubsub.Subscription, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, pubsub.ErrClosed
	}
	s, err := n.bus.Subscribe(h)
	if err == nil {
		n.subs = append(n.subs, s)
	}
	return s, err
}

func (n *node) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	var errs []error
	for _, s := range n.subs {
		errs = append(errs, s.Close())
	}
	n.subs = nil
	return errors.Join(errs...)
}

func TestSlowSubscriberDrops(t *testing.T) {
	const queueLen, published = 2, 10
	b := New(queueLen)
	t.Cleanup(func() { _ = b.Close() })

	started, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var got []string
	sub, err := b.Subscribe(func(_ string, msg []byte) {
		mu.Lock()
		got = append(got, string(msg))
		first := len(got) == 1
		mu.Unlock()
		if first {
			close(started)
			<-release
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Add("slow"); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	if err := b.Publish(ctx, "slow", []byte("0")); err != nil {
		t.Fatal(err)
	}
	<-started // the handler now blocks holding frame 0
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for i := 1; i < published; i++ {
			if err := b.Publish(ctx, "slow", []byte{'0' + byte(i)}); err != nil {
				t.Errorf("Publish: %v", err)
			}
		}
	}()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a slow subscriber")
	}
	if d, want := b.Dropped(), uint64(published-1-queueLen); d != want {
		t.Errorf("Dropped = %d, want %d", d, want)
	}
	close(release)

	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == 1+queueLen || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"0", "1", "2"}; len(got) != len(want) || got[0] != "0" || got[1] != "1" || got[2] != "2" {
		t.Errorf("delivered %q, want %q", got, want)
	}

	// Drops survive the subscription's Close in the bus total.
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if d, want := b.Dropped(), uint64(published-1-queueLen); d != want {
		t.Errorf("Dropped after Close = %d, want %d", d, want)
	}
}

func BenchmarkPublish(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int
	}{
		{"1Subscriber/16B", 16},
		{"1Subscriber/1000B", 1000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			bus := New(1 << 16)
			b.Cleanup(func() { _ = bus.Close() })
			var delivered sync.WaitGroup
			delivered.Add(b.N)
			sub, err := bus.Subscribe(func(string, []byte) { delivered.Done() })
			if err != nil {
				b.Fatal(err)
			}
			const topic = "01J0000000000000000000000A"
			if err := sub.Add(topic); err != nil {
				b.Fatal(err)
			}
			msg := make([]byte, bc.size)
			ctx := context.Background()
			b.SetBytes(int64(bc.size))
			b.ResetTimer()
			for range b.N {
				if err := bus.Publish(ctx, topic, msg); err != nil {
					b.Fatal(err)
				}
			}
			// Frames the queue dropped will never be handled.
			for range bus.Dropped() {
				delivered.Done()
			}
			delivered.Wait()
			b.ReportMetric(float64(bus.Dropped())/float64(b.N), "drops/op")
		})
	}
}

// Marks move with every frame published on a topic, whether anyone
// follows it or not, and only on the slot of that topic.
func TestMarks(t *testing.T) {
	b := New(0)
	defer b.Close()
	ctx := context.Background()
	a := "alpha"
	other := "beta"
	for i := 0; pubsub.MarkSlot(other) == pubsub.MarkSlot(a); i++ {
		other = "beta" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	m := b.Marks()
	if b.Changed(&m, a, other) {
		t.Fatal("changed before anything was published")
	}
	if err := b.Publish(ctx, other, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b.Changed(&m, a) {
		t.Fatal("a frame on another slot's topic changed a's mark")
	}
	if !b.Changed(&m, a, other) {
		t.Fatal("a frame on other did not change its mark")
	}
	m = b.Marks()
	if err := b.Publish(ctx, a, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if !b.Changed(&m, a) {
		t.Fatal("a frame on a, followed by nobody, did not change its mark")
	}
	// A bad topic publishes nothing and marks nothing.
	m = b.Marks()
	if err := b.Publish(ctx, "bad topic", []byte("x")); !errors.Is(err, pubsub.ErrInvalidTopic) {
		t.Fatalf("Publish(bad topic) = %v", err)
	}
	if m != b.Marks() {
		t.Fatal("a refused frame moved a mark")
	}
}

// A frame is marked before Publish reads the topic's subscriptions: a
// reader whose follow (which changes them) ends before the mark moves
// gets the frame. Here the subscriptions are held locked, as a follow
// holds them, while a frame is published: its mark moves meanwhile.
func TestMarkBeforeSubscriptionsAreRead(t *testing.T) {
	b := New(0)
	defer b.Close()
	m := b.Marks()
	b.mu.Lock()
	published := make(chan error, 1)
	go func() { published <- b.Publish(context.Background(), "topic", []byte("x")) }()
	deadline := time.Now().Add(5 * time.Second)
	for !b.Changed(&m, "topic") {
		if time.Now().After(deadline) {
			b.mu.Unlock()
			t.Fatal("the mark did not move before Publish read the subscriptions")
		}
		runtime.Gosched()
	}
	b.mu.Unlock()
	if err := <-published; err != nil {
		t.Fatal(err)
	}
}
