package push_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ermine/internal/push"
	"ermine/internal/push/pushtest"
)

func sender(t *testing.T, private bool) (*push.WebPush, *pushtest.Service) {
	keys, err := push.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	svc := pushtest.Start(t, keys.Public)
	return push.New(push.Options{Keys: keys, Subject: "mailto:admin@ermine.test", AllowPrivate: private}), svc
}

func sub(s pushtest.Subscription) push.Subscription {
	return push.Subscription{Endpoint: s.Endpoint, P256DH: s.P256DH, Auth: s.Auth}
}

func TestSendDecrypts(t *testing.T) {
	t.Parallel()
	w, svc := sender(t, true)
	s := svc.Subscribe()
	if err := w.Send(t.Context(), sub(s), []byte(`{"hello":"world"}`)); err != nil {
		t.Fatal(err)
	}
	m := svc.Wait(5 * time.Second)
	if string(m.Payload) != `{"hello":"world"}` || m.Endpoint != s.Endpoint || m.Claims["sub"] != "mailto:admin@ermine.test" {
		t.Errorf("got %+v", m)
	}
}

func TestSendStatuses(t *testing.T) {
	t.Parallel()
	w, svc := sender(t, true)
	for _, tt := range []struct {
		status int
		want   error
	}{{http.StatusGone, push.ErrGone}, {http.StatusNotFound, push.ErrGone}, {http.StatusBadRequest, push.ErrRejected},
		{http.StatusTooManyRequests, nil}, {http.StatusServiceUnavailable, nil}} {
		s := svc.Subscribe()
		svc.SetStatus(s, tt.status)
		err := w.Send(t.Context(), sub(s), []byte("x"))
		svc.Wait(5 * time.Second)
		switch {
		case err == nil:
			t.Errorf("status %d: no error", tt.status)
		case tt.want != nil && !errors.Is(err, tt.want):
			t.Errorf("status %d: err = %v, want %v", tt.status, err, tt.want)
		case tt.want == nil && (errors.Is(err, push.ErrGone) || errors.Is(err, push.ErrRejected)):
			t.Errorf("status %d: err = %v, want a retryable error", tt.status, err)
		}
	}
}

func TestSendRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	w, svc := sender(t, false)
	err := w.Send(t.Context(), sub(svc.Subscribe()), []byte("x"))
	if !errors.Is(err, push.ErrRejected) {
		t.Fatalf("err = %v, want ErrRejected", err)
	}
	for ep, want := range map[string]bool{"https://push.example/x": true, "http://push.example/x": false,
		"ftp://x/y": false, "https://user@push.example/": false, "/relative": false} {
		if push.ValidEndpoint(ep, false) != want {
			t.Errorf("ValidEndpoint(%q) = %v", ep, !want)
		}
	}
}

// flaky fails the first n sends of each payload with a retryable error.
type flaky struct {
	mu    sync.Mutex
	n     int
	tries map[string]int
	done  chan string
	err   error
}

func (f *flaky) Send(_ context.Context, _ push.Subscription, p []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries[string(p)]++
	if f.tries[string(p)] <= f.n {
		return errors.New("push service unavailable")
	}
	if f.err == nil {
		f.done <- string(p)
	}
	return f.err
}

func TestQueueRetries(t *testing.T) {
	t.Parallel()
	f := &flaky{n: 2, tries: map[string]int{}, done: make(chan string, 1)}
	q := push.NewQueue(push.QueueOptions{Sender: f, Backoff: time.Millisecond, Attempts: 3})
	defer q.Close()
	if !q.Enqueue(push.Job{Key: "s", Payload: []byte("a")}) {
		t.Fatal("not queued")
	}
	select {
	case p := <-f.done:
		if p != "a" || f.tries["a"] != 3 {
			t.Errorf("delivered %q after %d tries", p, f.tries["a"])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("never delivered")
	}
}

func TestQueueGone(t *testing.T) {
	t.Parallel()
	f := &flaky{tries: map[string]int{}, err: push.ErrGone}
	gone := make(chan string, 1)
	q := push.NewQueue(push.QueueOptions{Sender: f, Gone: func(_ context.Context, j push.Job) { gone <- j.Key }})
	q.Enqueue(push.Job{Key: "session", Payload: []byte("a")})
	select {
	case k := <-gone:
		if k != "session" || f.tries["a"] != 1 {
			t.Errorf("gone %q after %d tries", k, f.tries["a"])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("gone never reported")
	}
	q.Close()
	if q.Enqueue(push.Job{Key: "x"}) {
		t.Error("a closed queue took a job")
	}
}

func TestQueueGivesUpAndNeverBlocks(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	block := make(chan struct{})
	q := push.NewQueue(push.QueueOptions{Workers: 1, Size: 2, Sender: senderFunc(func(ctx context.Context) error {
		calls.Add(1)
		select {
		case <-block:
		case <-ctx.Done():
		}
		return errors.New("down")
	})})
	start := time.Now()
	n := 0
	for range 10 {
		if q.Enqueue(push.Job{Key: "k"}) {
			n++
		}
	}
	if time.Since(start) > time.Second || n > 3 {
		t.Errorf("queued %d of 10 in %s", n, time.Since(start))
	}
	close(block)
	q.Close() // abandons waiting retries
}

type senderFunc func(ctx context.Context) error

func (f senderFunc) Send(ctx context.Context, _ push.Subscription, _ []byte) error { return f(ctx) }

// endpointSender answers per endpoint: a stalled push service never
// answers (until the attempt's deadline); any other delivers at once.
type endpointSender struct {
	delivered chan string
	stalled   atomic.Int32
}

func (s *endpointSender) Send(ctx context.Context, sub push.Subscription, _ []byte) error {
	if strings.HasPrefix(sub.Endpoint, "https://stalled.example/") {
		s.stalled.Add(1)
		<-ctx.Done()
		return ctx.Err()
	}
	s.delivered <- sub.Endpoint
	return nil
}

// TestQueueStalledServiceDelaysOnlyItsOwn fills the queue with
// notifications for a push service that never answers, then one for
// another service: that one is delivered at once, not after the stalled
// ones' timeouts, and each attempt ends at its deadline.
func TestQueueStalledServiceDelaysOnlyItsOwn(t *testing.T) {
	t.Parallel()
	s := &endpointSender{delivered: make(chan string, 10)}
	q := push.NewQueue(push.QueueOptions{Sender: s, Workers: 4, Timeout: 3 * time.Second, Attempts: 2, Backoff: time.Millisecond})
	defer q.Close()
	for i := range 50 {
		if !q.Enqueue(push.Job{Key: "stalled", Sub: push.Subscription{Endpoint: "https://stalled.example/" + strconv.Itoa(i)}}) {
			t.Fatal("not queued")
		}
	}
	time.Sleep(50 * time.Millisecond) // the workers have taken the stalled jobs
	start := time.Now()
	for i := range 3 {
		q.Enqueue(push.Job{Key: "ok", Sub: push.Subscription{Endpoint: "https://ok.example/" + strconv.Itoa(i)}})
	}
	for range 3 {
		select {
		case <-s.delivered:
		case <-time.After(time.Second):
			t.Fatalf("another service's notification waited more than a second behind a stalled one (%d stalled attempts under way)", s.stalled.Load())
		}
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("delivered after %s", d)
	}
	if n := s.stalled.Load(); n > 2 {
		t.Errorf("%d attempts to the stalled service at once, want at most 2", n)
	}
}

// TestQueueAttemptTimeout: an attempt that gets no answer ends at the
// attempt timeout, and is retried.
func TestQueueAttemptTimeout(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var deadlines atomic.Int32
	done := make(chan struct{})
	q := push.NewQueue(push.QueueOptions{Timeout: 50 * time.Millisecond, Attempts: 2, Backoff: time.Millisecond,
		Sender: senderFunc(func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); ok {
				deadlines.Add(1)
			}
			<-ctx.Done()
			if calls.Add(1) == 2 {
				close(done)
			}
			return ctx.Err()
		})})
	defer q.Close()
	start := time.Now()
	q.Enqueue(push.Job{Key: "k", Sub: push.Subscription{Endpoint: "https://slow.example/x"}})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%d attempts in 5 s", calls.Load())
	}
	if d := time.Since(start); d > 2*time.Second || deadlines.Load() != 2 {
		t.Errorf("two attempts took %s, %d with a deadline", d, deadlines.Load())
	}
}
