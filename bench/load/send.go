package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/testbed"
)

// result is one finished request.
type result struct {
	latency time.Duration
	status  int // 0 when the request failed before an answer
}

// sendLoad sends messages for o.duration and reports what happened.
func sendLoad(ctx context.Context, n *testbed.Node, o options, out io.Writer) error {
	w, err := seed(ctx, n, "sender", o.users, o.servers, o.channels)
	if err != nil {
		return err
	}
	// Count Message events on every channel: an accepted message must also
	// have been published.
	var published atomic.Int64
	sub, err := n.Bus.Subscribe(func(_ string, msg []byte) {
		if f, err := event.Unmarshal(msg); err == nil && f.Type == chat.EvMessage {
			published.Add(1)
		}
	})
	if err != nil {
		return err
	}
	defer sub.Close()
	topics := make([]string, len(w.channels))
	for i, c := range w.channels {
		topics[i] = event.Of(c)
	}
	if err := sub.Add(topics...); err != nil {
		return err
	}

	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		MaxIdleConns: o.workers, MaxIdleConnsPerHost: o.workers, IdleConnTimeout: time.Minute,
	}}
	defer client.CloseIdleConnections()

	// Requests go round-robin over every (user, channel) pair so that no
	// pair meets its rate limit before all pairs have.
	pairs := len(w.users) * len(w.channels)
	var next atomic.Int64
	body := []byte(`{"content":"a message of the load generator, long enough to look like chat"}`)
	// Requests run on reqCtx, not the run's deadline, so the ones in flight
	// when time is up finish and are counted.
	reqCtx := ctx
	sendOne := func() result {
		i := int(next.Add(1)-1) % pairs
		u, c := w.users[i%len(w.users)], w.channels[(i/len(w.users))%len(w.channels)]
		req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, n.URL+"/channels/"+string(c)+"/messages", bytes.NewReader(body))
		if err != nil {
			return result{}
		}
		req.Header.Set("X-Session-Token", u.Token)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return result{latency: time.Since(start)}
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return result{latency: time.Since(start), status: res.StatusCode}
	}

	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	start := time.Now()
	var results []result
	if o.rate == 0 {
		results = closedLoop(ctx, o.workers, sendOne)
	} else {
		results = openLoop(ctx, o.workers, o.rate, sendOne)
	}
	elapsed := time.Since(start)

	ok := 0
	statuses := map[int]int{}
	for _, r := range results {
		statuses[r.status]++
		if r.status == http.StatusOK {
			ok++
		}
	}
	// Events are delivered asynchronously; give the last ones a moment.
	deadline := time.Now().Add(5 * time.Second)
	for published.Load() < int64(ok) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	mode := "closed loop"
	if o.rate > 0 {
		mode = fmt.Sprintf("open loop at %d/s", o.rate)
	}
	fmt.Fprintf(out, "send (%s, %d workers, %d users x %d channels in %d servers, %s):\n",
		mode, o.workers, o.users, o.channels, o.servers, n.StoreName)
	fmt.Fprintf(out, "  requests %d in %.2fs, accepted %d = %.0f messages/s, statuses %v\n",
		len(results), elapsed.Seconds(), ok, float64(ok)/elapsed.Seconds(), statuses)
	fmt.Fprintf(out, "  Message events published %d of %d accepted\n", published.Load(), ok)
	fmt.Fprintf(out, "  latency %s\n", percentiles(results))
	if int(published.Load()) != ok {
		return fmt.Errorf("%d messages accepted but %d events published", ok, published.Load())
	}
	return nil
}

// closedLoop runs workers that each send again as soon as an answer comes.
func closedLoop(ctx context.Context, workers int, send func() result) []result {
	var mu sync.Mutex
	var all []result
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []result
			for ctx.Err() == nil {
				mine = append(mine, send())
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all
}

// openLoop offers rate requests per second whatever the answers, with at
// most workers in flight. Latency counts from when a request was due, so
// a request that waited for a free worker is charged the wait
// (no coordinated omission).
func openLoop(ctx context.Context, workers, rate int, send func() result) []result {
	type job struct{ due time.Time }
	jobs := make(chan job, workers*4)
	var mu sync.Mutex
	var all []result
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []result
			for j := range jobs {
				r := send()
				r.latency = time.Since(j.due)
				mine = append(mine, r)
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	for i := 0; ; i++ {
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(d):
			}
		}
		if ctx.Err() != nil {
			break
		}
		jobs <- job{due: due}
	}
	close(jobs)
	wg.Wait()
	return all
}

// percentiles describes the latency distribution of results.
func percentiles(results []result) string {
	if len(results) == 0 {
		return "no requests"
	}
	lat := make([]time.Duration, len(results))
	for i, r := range results {
		lat[i] = r.latency
	}
	return testbed.Describe(lat)
}
