package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ermine/internal/testbed"
)

// sender posts messages as the first user, message seq through node
// seq mod len(urls).
type sender struct {
	kind    target
	urls    []string
	token   string
	padding string
	http    *http.Client
}

func newSender(addrs []string, w *world, content int) *sender {
	urls := make([]string, len(addrs))
	for i, a := range addrs {
		switch w.kind {
		case targetCentrifugo:
			urls[i] = "http://" + a + "/api/publish"
		case targetFloor:
			urls[i] = "http://" + a + "/publish"
		default:
			urls[i] = "http://" + a + "/channels/" + string(w.channel) + "/messages"
		}
	}
	return &sender{
		kind:  w.kind,
		urls:  urls,
		token: w.users[0].Token,
		// "fanout seq=NNNNNN " is 18 bytes; padding brings the content
		// to the size asked for.
		padding: strings.Repeat("x", max(content-18, 1)),
		http:    &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}},
	}
}

// send posts message seq and returns once the server answered.
func (s *sender) send(ctx context.Context, seq int) error {
	var v any = map[string]string{"content": fmt.Sprintf("fanout seq=%06d %s", seq, s.padding)}
	if s.kind == targetCentrifugo {
		v = map[string]any{"channel": centrifugoChannel, "data": v}
	}
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.urls[seq%len(s.urls)], bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	switch s.kind {
	case targetErmine:
		req.Header.Set("X-Session-Token", s.token)
	case targetCentrifugo:
		req.Header.Set("X-API-Key", centrifugoAPIKey)
	}
	res, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode/100 != 2 || s.kind == targetCentrifugo && bytes.Contains(b, []byte(`"error"`)) {
		return fmt.Errorf("send message: %s %s", res.Status, b)
	}
	return nil
}

// result is what one phase measured.
type result struct {
	sent, failed int
	delivered    int64
	lost         int64 // deliveries of sent messages that never arrived
	dups         int64
	latencies    []time.Duration // sorted
	elapsed      time.Duration
	firstErr     error
}

// collect counts the deliveries of messages [first, first+n) of those
// whose send succeeded.
func (r *result) collect(rec *recorder, first, n int, ok []bool) {
	for i := range n {
		got := int64(rec.got[first+i].Load())
		r.delivered += got
		if ok[i] {
			r.lost += int64(rec.conns) - got
		}
	}
	r.dups = rec.dups.Load()
}

// await waits until every connection received each message of
// [first, first+n) whose send succeeded, at most for timeout.
func await(ctx context.Context, rec *recorder, first, n int, ok []bool, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for i := range n {
		// Connections the server closed never receive it.
		for ok[i] && int(rec.got[first+i].Load()) < rec.conns-int(rec.closed.Load()) {
			if time.Now().After(deadline) || ctx.Err() != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// maxInFlight bounds the sends of the latency phase under way at once.
const maxInFlight = 64

// latencyPhase sends n messages at rate per second, numbered from first,
// each at its tick whether or not earlier sends have finished (open
// loop), then waits up to 10 seconds for their deliveries.
func latencyPhase(ctx context.Context, s *sender, rec *recorder, first, n, rate int) *result {
	res := &result{}
	ok := make([]bool, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	inFlight := make(chan struct{}, maxInFlight)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	start := time.Now()
	for i := range n {
		select {
		case <-ctx.Done():
			return res
		case <-tick.C:
		}
		select {
		case inFlight <- struct{}{}:
		default:
			res.failed++
			res.firstErr = fmt.Errorf("%d sends already in flight", maxInFlight)
			continue
		}
		seq := first + i
		rec.sentAt[seq].Store(time.Now().UnixNano())
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.send(ctx, seq)
			<-inFlight
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.failed++
				if res.firstErr == nil {
					res.firstErr = err
				}
				return
			}
			ok[i] = true
			res.sent++
		}()
	}
	wg.Wait()
	await(ctx, rec, first, n, ok, 10*time.Second)
	res.elapsed = time.Since(start)
	res.collect(rec, first, n, ok)
	count := min(rec.latNext.Load(), int64(len(rec.lat)))
	res.latencies = make([]time.Duration, count)
	for i := range res.latencies {
		res.latencies[i] = time.Duration(rec.lat[i].Load()) * time.Microsecond
	}
	slices.Sort(res.latencies)
	return res
}

// saturationPhase sends n messages numbered from first as fast as
// senders requests at a time allow, never more than window messages
// ahead of the slowest connection, and waits up to 30 seconds for the
// last deliveries.
func saturationPhase(ctx context.Context, s *sender, rec *recorder, first, n, window, senders int) *result {
	res := &result{}
	ok := make([]bool, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var next atomic.Int64
	start := time.Now()
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if i >= window {
					// Wait for the message window places back, or give up
					// on it after 30 seconds: the window is then unknown.
					mu.Lock()
					behind := ok[i-window]
					mu.Unlock()
					if behind {
						await(ctx, rec, first+i-window, 1, []bool{true}, 30*time.Second)
					}
				}
				seq := first + i
				rec.sentAt[seq].Store(time.Now().UnixNano())
				err := s.send(ctx, seq)
				mu.Lock()
				if err != nil {
					res.failed++
					if res.firstErr == nil {
						res.firstErr = err
					}
				} else {
					ok[i] = true
					res.sent++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	await(ctx, rec, first, n, ok, 30*time.Second)
	res.elapsed = time.Since(start)
	res.collect(rec, first, n, ok)
	return res
}

// report prints a phase's figures.
func (r *result) report(out io.Writer, title string, conns int) {
	fmt.Fprintf(out, "%s:\n", title)
	fmt.Fprintf(out, "  sent %d (failed %d) in %s; delivered %d of %d; lost %d; duplicates %d\n",
		r.sent, r.failed, r.elapsed.Round(time.Millisecond), r.delivered, int64(r.sent)*int64(conns), r.lost, r.dups)
	if r.firstErr != nil {
		fmt.Fprintf(out, "  first send error: %v\n", r.firstErr)
	}
	if len(r.latencies) > 0 {
		fmt.Fprintf(out, "  send→receive: p50 %s  p90 %s  p99 %s  max %s  (%d deliveries)\n",
			percentile(r.latencies, 0.5), percentile(r.latencies, 0.9), percentile(r.latencies, 0.99),
			r.latencies[len(r.latencies)-1], len(r.latencies))
	}
}

// percentile is the p-quantile of sorted durations, to 0.1 ms.
func percentile(sorted []time.Duration, p float64) time.Duration {
	return testbed.Percentile(sorted, p).Round(100 * time.Microsecond)
}
