package batch

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
	st := &counting{stored: map[int]bool{}}
	g := &GroupCommit[int]{Max: 128, One: st.one, All: st.all}
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
		t.Fatalf("stored %d of %d, %d failed", len(st.stored), n, failed.Load())
	}
	for _, b := range st.batches {
		if b > g.Max {
			t.Errorf("batch of %d, limit %d", b, g.Max)
		}
	}
	if g.leaders != 0 || len(g.pending) != 0 {
		t.Errorf("writer left %d leaders with %d pending", g.leaders, len(g.pending))
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

// TestGroupCommitWriters checks that at most Writers batches are written
// at once, that Writers of them are when callers keep coming, and that
// every value is stored exactly once whichever way its request ends
// (in another leader's batch, or leading one itself).
func TestGroupCommitWriters(t *testing.T) {
	for _, writers := range []int{0, 1, 2, 3} {
		var mu sync.Mutex
		stored := map[int]int{}
		var now, most atomic.Int64
		all := func(_ context.Context, vs []int) error {
			n := now.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(200 * time.Microsecond)
			mu.Lock()
			for _, v := range vs {
				stored[v]++
			}
			mu.Unlock()
			now.Add(-1)
			return nil
		}
		one := func(ctx context.Context, v int) error { return all(ctx, []int{v}) }
		g := &GroupCommit[int]{Max: 8, Writers: writers, One: one, All: all}
		const n = 2000
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if err := g.Write(i); err != nil {
					t.Errorf("write %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		for i := range n {
			if stored[i] != 1 {
				t.Fatalf("writers %d: value %d stored %d times", writers, i, stored[i])
			}
		}
		want := int64(max(writers, 1))
		if m := most.Load(); m > want || (want > 1 && m < 2) {
			t.Errorf("writers %d: %d batches written at once at the most", writers, m)
		}
		if g.leaders != 0 || len(g.pending) != 0 {
			t.Errorf("writers %d: left %d leaders with %d pending", writers, g.leaders, len(g.pending))
		}
	}
}
