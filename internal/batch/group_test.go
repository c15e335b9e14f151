package batch

import (
	"context"
	"errors"
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
	if g.busy || len(g.pending) != 0 {
		t.Errorf("writer left busy=%v with %d pending", g.busy, len(g.pending))
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
