// Package pubsubtest is the conformance suite every pubsub.Bus passes:
// the contract in pubsub, checked the same way against each backend.
package pubsubtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ermine/internal/pubsub"
)

// Timeout bounds every wait for a delivery.
const Timeout = 10 * time.Second

// quiet is how long a check that nothing arrives waits.
const quiet = 150 * time.Millisecond

// Run checks a Bus against the contract. open returns a bus and registers
// its Close with t.Cleanup. Within one test, every bus open returns must
// share a backend (two calls are two nodes of one deployment), while
// different tests must not see each other's frames: subtests run in
// parallel.
func Run(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open func(t *testing.T) pubsub.Bus)
	}{
		{"Delivery", testDelivery},
		{"AddRemove", testAddRemove},
		{"SharedTopic", testSharedTopic},
		{"AcrossNodes", testAcrossNodes},
		{"Order", testOrder},
		{"CloseSubscription", testCloseSubscription},
		{"CloseBus", testCloseBus},
		{"InvalidTopic", testInvalidTopic},
		{"ConcurrentPublishers", testConcurrentPublishers},
		{"Serialised", testSerialised},
		{"LargeMessage", testLargeMessage},
		{"ManyTopics", testManyTopics},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open)
		})
	}
}

// frame is one handler call as a recorder saw it.
type frame struct {
	topic string
	msg   string
}

// recorder is a handler that keeps what it receives.
type recorder struct {
	mu     sync.Mutex
	frames []frame
	signal chan struct{}
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 1)} }

func (r *recorder) handle(topic string, msg []byte) {
	r.mu.Lock()
	r.frames = append(r.frames, frame{topic, string(msg)})
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

func (r *recorder) got() []frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]frame(nil), r.frames...)
}

// wait returns the frames once at least n have arrived, failing t after
// Timeout.
func (r *recorder) wait(t *testing.T, n int) []frame {
	t.Helper()
	deadline := time.NewTimer(Timeout)
	defer deadline.Stop()
	for {
		if got := r.got(); len(got) >= n {
			return got
		}
		select {
		case <-r.signal:
		case <-deadline.C:
			t.Fatalf("received %d frames, want %d: %v", len(r.got()), n, abbreviate(r.got()))
		}
	}
}

// exactly waits for want, then for quiet, and fails unless exactly want
// arrived in that order.
func (r *recorder) exactly(t *testing.T, want ...frame) {
	t.Helper()
	r.wait(t, len(want))
	time.Sleep(quiet)
	got := r.got()
	if len(got) != len(want) {
		t.Fatalf("received %v, want %v", abbreviate(got), abbreviate(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("frame %d = %v, want %v", i, abbreviate(got[i:i+1]), abbreviate(want[i:i+1]))
		}
	}
}

// abbreviate shortens frames for failure messages.
func abbreviate(fs []frame) string {
	var b bytes.Buffer
	for i, f := range fs {
		if i == 10 {
			fmt.Fprintf(&b, " …%d more", len(fs)-i)
			break
		}
		m := f.msg
		if len(m) > 20 {
			m = m[:20] + "…"
		}
		fmt.Fprintf(&b, " %s:%q", f.topic, m)
	}
	return "[" + b.String() + " ]"
}

func subscribe(t *testing.T, bus pubsub.Bus, h pubsub.Handler, topics ...string) pubsub.Subscription {
	t.Helper()
	sub, err := bus.Subscribe(h)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	t.Cleanup(func() {
		if err := sub.Close(); err != nil {
			t.Errorf("Subscription.Close: %v", err)
		}
	})
	if len(topics) > 0 {
		if err := sub.Add(topics...); err != nil {
			t.Fatalf("Add(%v): %v", topics, err)
		}
	}
	return sub
}

func publish(t *testing.T, bus pubsub.Bus, topic, msg string) {
	t.Helper()
	if err := bus.Publish(context.Background(), topic, []byte(msg)); err != nil {
		t.Fatalf("Publish(%s): %v", topic, err)
	}
}

func testDelivery(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus := open(t)
	a, b := newRecorder(), newRecorder()
	subscribe(t, bus, a.handle, "01HZXAAAAAAAAAAAAAAAAAAAAA")
	subscribe(t, bus, b.handle, "01HZXBBBBBBBBBBBBBBBBBBBBB!")

	publish(t, bus, "01HZXAAAAAAAAAAAAAAAAAAAAA", `{"type":"Message"}`)
	publish(t, bus, "01HZXCCCCCCCCCCCCCCCCCCCCCu", "nobody listens")
	publish(t, bus, "01HZXBBBBBBBBBBBBBBBBBBBBB!", "to b")

	a.exactly(t, frame{"01HZXAAAAAAAAAAAAAAAAAAAAA", `{"type":"Message"}`})
	b.exactly(t, frame{"01HZXBBBBBBBBBBBBBBBBBBBBB!", "to b"})
}

func testAddRemove(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus := open(t)
	r := newRecorder()
	sub := subscribe(t, bus, r.handle)

	steps := []struct {
		name    string
		do      func() error
		publish []string // topics published on, message = step name
		want    []string // topics that must be delivered
	}{
		{"EmptySet", func() error { return nil }, []string{"x"}, nil},
		{"AddTwiceInOneCall", func() error { return sub.Add("x", "x") }, []string{"x"}, []string{"x"}},
		{"AddAgain", func() error { return sub.Add("x", "y") }, []string{"x", "y", "z"}, []string{"x", "y"}},
		{"Remove", func() error { return sub.Remove("x") }, []string{"x", "y"}, []string{"y"}},
		{"RemoveTwice", func() error { return sub.Remove("x", "x", "never") }, []string{"x", "y"}, []string{"y"}},
		{"ReAdd", func() error { return sub.Add("x") }, []string{"x"}, []string{"x"}},
		{"RemoveAll", func() error { return sub.Remove("x", "y") }, []string{"x", "y"}, nil},
		{"EmptyCalls", func() error {
			if err := sub.Add(); err != nil {
				return err
			}
			return sub.Remove()
		}, []string{"x"}, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := len(r.got())
			if err := st.do(); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			for _, topic := range st.publish {
				publish(t, bus, topic, st.name)
			}
			r.wait(t, before+len(st.want))
			time.Sleep(quiet)
			got := r.got()[before:]
			var want []frame
			for _, topic := range st.want {
				want = append(want, frame{topic, st.name})
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("received %v, want %v", abbreviate(got), abbreviate(want))
			}
		})
	}
}

func testSharedTopic(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus := open(t)
	a, b, c := newRecorder(), newRecorder(), newRecorder()
	subscribe(t, bus, a.handle, "shared")
	subscribe(t, bus, b.handle, "shared", "onlyb")
	subscribe(t, bus, c.handle, "other")

	publish(t, bus, "shared", "one")
	publish(t, bus, "onlyb", "two")

	a.exactly(t, frame{"shared", "one"})
	b.exactly(t, frame{"shared", "one"}, frame{"onlyb", "two"})
	c.exactly(t)
}

func testAcrossNodes(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	node1, node2 := open(t), open(t)
	r1, r2 := newRecorder(), newRecorder()
	subscribe(t, node1, r1.handle, "topic1")
	subscribe(t, node2, r2.handle, "topic2", "both")

	publish(t, node1, "topic2", "from1")
	publish(t, node2, "topic1", "from2")
	r1.wait(t, 1)
	r2.wait(t, 1)

	sub := subscribe(t, node1, r1.handle, "both")
	publish(t, node2, "both", "everyone")
	r1.exactly(t, frame{"topic1", "from2"}, frame{"both", "everyone"})
	r2.exactly(t, frame{"topic2", "from1"}, frame{"both", "everyone"})

	if err := sub.Remove("both"); err != nil {
		t.Fatal(err)
	}
	publish(t, node2, "both", "again")
	r2.wait(t, 3)
	r1.exactly(t, frame{"topic1", "from2"}, frame{"both", "everyone"})
}

func testOrder(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus, other := open(t), open(t)
	const n = 500
	local, remote := newRecorder(), newRecorder()
	subscribe(t, bus, local.handle, "ordered")
	subscribe(t, other, remote.handle, "ordered")
	for i := range n {
		publish(t, bus, "ordered", strconv.Itoa(i))
	}
	for name, r := range map[string]*recorder{"local": local, "remote": remote} {
		got := r.wait(t, n)
		for i, f := range got {
			if f.msg != strconv.Itoa(i) {
				t.Fatalf("%s: frame %d = %q, want %q", name, i, f.msg, strconv.Itoa(i))
			}
		}
	}
}

func testCloseSubscription(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus := open(t)
	closed, open2 := newRecorder(), newRecorder()
	sub := subscribe(t, bus, closed.handle, "t")
	subscribe(t, bus, open2.handle, "t")

	publish(t, bus, "t", "before")
	closed.wait(t, 1)
	if err := sub.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := sub.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	publish(t, bus, "t", "after")
	open2.exactly(t, frame{"t", "before"}, frame{"t", "after"})
	closed.exactly(t, frame{"t", "before"})

	if err := sub.Add("u"); !errors.Is(err, pubsub.ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
	if err := sub.Remove("t"); !errors.Is(err, pubsub.ErrClosed) {
		t.Errorf("Remove after Close = %v, want ErrClosed", err)
	}
}

func testCloseBus(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus, other := open(t), open(t)
	r := newRecorder()
	sub := subscribe(t, bus, r.handle, "t")
	publish(t, other, "t", "before")
	r.wait(t, 1)

	if err := bus.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := bus.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	publish(t, other, "t", "after")
	r.exactly(t, frame{"t", "before"})

	ctx := context.Background()
	if err := bus.Publish(ctx, "t", []byte("x")); !errors.Is(err, pubsub.ErrClosed) {
		t.Errorf("Publish after Close = %v, want ErrClosed", err)
	}
	if _, err := bus.Subscribe(r.handle); !errors.Is(err, pubsub.ErrClosed) {
		t.Errorf("Subscribe after Close = %v, want ErrClosed", err)
	}
	if err := sub.Add("u"); !errors.Is(err, pubsub.ErrClosed) {
		t.Errorf("Add after bus Close = %v, want ErrClosed", err)
	}
}

func testInvalidTopic(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus := open(t)
	r := newRecorder()
	sub := subscribe(t, bus, r.handle)
	ctx := context.Background()
	for _, topic := range []string{"", "a.b", "a b", "*", ">", "a\nb", "ünï", "a/b"} {
		t.Run(strconv.Quote(topic), func(t *testing.T) {
			if err := bus.Publish(ctx, topic, []byte("x")); !errors.Is(err, pubsub.ErrInvalidTopic) {
				t.Errorf("Publish = %v, want ErrInvalidTopic", err)
			}
			if err := sub.Add("good", topic); !errors.Is(err, pubsub.ErrInvalidTopic) {
				t.Errorf("Add = %v, want ErrInvalidTopic", err)
			}
		})
	}
	// A rejected Add adds nothing, not even its valid topics.
	publish(t, bus, "good", "x")
	r.exactly(t)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := bus.Publish(cancelled, "good", []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Publish with cancelled context = %v, want context.Canceled", err)
	}
}

func testConcurrentPublishers(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus := open(t)
	const publishers, each = 8, 100
	r := newRecorder()
	topics := make([]string, publishers)
	for i := range topics {
		topics[i] = fmt.Sprintf("pub%d", i)
	}
	subscribe(t, bus, r.handle, topics...)

	// A second subscription churns its topic set meanwhile.
	churn := subscribe(t, bus, func(string, []byte) {})
	stop := make(chan struct{})
	var churned sync.WaitGroup
	churned.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := churn.Add(topics[0], "churn"); err != nil {
				t.Errorf("churn Add: %v", err)
				return
			}
			if err := churn.Remove(topics[0], "churn"); err != nil {
				t.Errorf("churn Remove: %v", err)
				return
			}
		}
	})

	var wg sync.WaitGroup
	for p := range publishers {
		wg.Go(func() {
			for i := range each {
				if err := bus.Publish(context.Background(), topics[p], []byte(strconv.Itoa(i))); err != nil {
					t.Errorf("Publish: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	got := r.wait(t, publishers*each)
	close(stop)
	churned.Wait()

	next := make(map[string]int)
	for _, f := range got {
		if want := strconv.Itoa(next[f.topic]); f.msg != want {
			t.Fatalf("topic %s: got %q, want %q", f.topic, f.msg, want)
		}
		next[f.topic]++
	}
	for _, topic := range topics {
		if next[topic] != each {
			t.Errorf("topic %s: %d frames, want %d", topic, next[topic], each)
		}
	}
}

func testSerialised(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus := open(t)
	const topics, each = 16, 20
	var inside, overlaps, calls atomic.Int64
	done := make(chan struct{})
	handler := func(string, []byte) {
		if inside.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(50 * time.Microsecond)
		inside.Add(-1)
		if calls.Add(1) == topics*each {
			close(done)
		}
	}
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("s%d", i)
	}
	subscribe(t, bus, handler, names...)

	var wg sync.WaitGroup
	for _, topic := range names {
		wg.Go(func() {
			for range each {
				if err := bus.Publish(context.Background(), topic, []byte("x")); err != nil {
					t.Errorf("Publish: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-done:
	case <-time.After(Timeout):
		t.Fatalf("handler called %d times, want %d", calls.Load(), topics*each)
	}
	if n := overlaps.Load(); n > 0 {
		t.Errorf("handler ran concurrently %d times", n)
	}
}

func testLargeMessage(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus, other := open(t), open(t)
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i*7 + i>>11)
	}
	want := string(big)
	r := newRecorder()
	subscribe(t, other, r.handle, "big")
	if err := bus.Publish(context.Background(), "big", big); err != nil {
		t.Fatalf("Publish 1 MiB: %v", err)
	}
	got := r.wait(t, 1)
	if got[0].msg != want {
		t.Fatalf("received %d bytes that differ from the %d published", len(got[0].msg), len(want))
	}
}

func testManyTopics(t *testing.T, open func(t *testing.T) pubsub.Bus) {
	bus := open(t)
	const n = 1000
	topics := make([]string, n)
	for i := range topics {
		topics[i] = fmt.Sprintf("01J%023d", i)
	}
	r := newRecorder()
	sub := subscribe(t, bus, r.handle, topics...)
	for _, topic := range topics {
		publish(t, bus, topic, topic)
	}
	got := r.wait(t, n)
	seen := make(map[string]bool, n)
	for _, f := range got {
		if f.msg != f.topic || seen[f.topic] {
			t.Fatalf("unexpected frame %v", abbreviate([]frame{f}))
		}
		seen[f.topic] = true
	}

	if err := sub.Remove(topics[:n-1]...); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	for _, topic := range topics {
		publish(t, bus, topic, "gone")
	}
	r.wait(t, n+1)
	time.Sleep(quiet)
	got = r.got()[n:]
	if len(got) != 1 || got[0] != (frame{topics[n-1], "gone"}) {
		t.Fatalf("after Remove received %v, want only the kept topic", abbreviate(got))
	}
}

// Env returns the environment variable name, which points a test at an
// external server. When it is unset the test is skipped, or fails when the
// CI variable is set: CI must not silently skip a backend.
func Env(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not set (required when CI is set)", name)
		}
		t.Skipf("%s not set", name)
	}
	return v
}

// Namespace returns a name unique to t within run, made of [0-9A-Za-z_],
// for prefixing the subjects or channels of the buses one test opens on a
// shared server. run should be fresh per process, such as the start time.
func Namespace(t *testing.T, run string) string {
	b := []byte(run + "_" + t.Name())
	for i, c := range b {
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			b[i] = '_'
		}
	}
	return string(b)
}
