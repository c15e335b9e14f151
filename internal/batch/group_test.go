package batch

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

var errBad = errors.New("bad value")

// counting records how values reach the store; values in fail are refused.
type counting struct {
	mu      sync.Mutex
	single  int
	batches []int
	stored  map[int]bool
	fail    map[int]bool
}

func (s *counting) one(_ context.Context, v int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.single++
	if s.fail[v] {
		return errBad
	}
	s.stored[v] = true
	return nil
}

func (s *counting) all(_ context.Context, vs []int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vs {
		if s.fail[v] {
			return errBad
		}
	}
	s.batches = append(s.batches, len(vs))
	for _, v := range vs {
		s.stored[v] = true
	}
	return nil
}

func TestGroupCommitStoresEveryValue(t *testing.T) {
	for _, parallel := range []int{0, 1, 4} {
		st := &counting{stored: map[int]bool{}}
		g := &GroupCommit[int]{Max: 128, Parallel: parallel, One: st.one, All: st.all}
		const n = 500
		var wg sync.WaitGroup
		var failed atomic.Int64
		for i := range n {
			wg.Go(func() {
				if err := g.Write(i); err != nil {
					failed.Add(1)
				}
			})
		}
		wg.Wait()
		if failed.Load() != 0 || len(st.stored) != n {
			t.Fatalf("parallel %d: stored %d of %d, %d failed", parallel, len(st.stored), n, failed.Load())
		}
		for _, b := range st.batches {
			if b > g.Max {
				t.Errorf("parallel %d: batch of %d, limit %d", parallel, b, g.Max)
			}
		}
		if g.leaders != 0 || len(g.pending) != 0 {
			t.Errorf("parallel %d: writer left %d leaders with %d pending", parallel, g.leaders, len(g.pending))
		}
	}
}

// TestGroupCommitParallel checks that batches are written up to Parallel
// at once, never more, and that every value is stored once.
func TestGroupCommitParallel(t *testing.T) {
	for _, parallel := range []int{1, 3} {
		var mu sync.Mutex
		stored := map[int]int{}
		var inFlight, most atomic.Int64
		release := make(chan struct{})
		write := func(vs ...int) {
			n := inFlight.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-release // held until every writer has queued
			inFlight.Add(-1)
			mu.Lock()
			defer mu.Unlock()
			for _, v := range vs {
				stored[v]++
			}
		}
		g := &GroupCommit[int]{Max: 4, Parallel: parallel,
			One: func(_ context.Context, v int) error { write(v); return nil },
			All: func(_ context.Context, vs []int) error { write(vs...); return nil }}
		const n = 40
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if err := g.Write(i); err != nil {
					t.Error(err)
				}
			})
		}
		for int(most.Load()) < parallel { // wait until the first batches are written
			runtime.Gosched()
		}
		close(release)
		wg.Wait()
		if m := most.Load(); m != int64(parallel) {
			t.Errorf("parallel %d: %d batches were written at once", parallel, m)
		}
		for i := range n {
			if stored[i] != 1 {
				t.Errorf("parallel %d: value %d stored %d times", parallel, i, stored[i])
			}
		}
		if g.leaders != 0 || len(g.pending) != 0 {
			t.Errorf("parallel %d: writer left %d leaders with %d pending", parallel, g.leaders, len(g.pending))
		}
	}
}

func TestGroupCommitFailsOnlyTheBadValue(t *testing.T) {
	st := &counting{stored: map[int]bool{}, fail: map[int]bool{2: true}}
	g := &GroupCommit[int]{Max: 128, One: st.one, All: st.all}
	batch := []*request[int]{
		{v: 1, done: make(chan error, 1)},
		{v: 2, done: make(chan error, 1)},
		{v: 3, done: make(chan error, 1)},
	}
	g.write(batch)
	for i, r := range batch {
		err := <-r.done
		if wantFail := r.v == 2; wantFail != errors.Is(err, errBad) {
			t.Errorf("request %d: err = %v", i, err)
		}
	}
	if len(st.stored) != 2 {
		t.Errorf("stored %d, want the 2 good values", len(st.stored))
	}
}
