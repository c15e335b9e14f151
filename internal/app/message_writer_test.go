package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// countingStore records how messages reach the store.
type countingStore struct {
	store.Store
	mu      sync.Mutex
	single  int
	batches []int
	stored  map[chat.ID]bool
	failIDs map[chat.ID]bool
}

func (s *countingStore) InsertMessage(_ context.Context, m *chat.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.single++
	if s.failIDs[m.ID] {
		return store.ErrConflict
	}
	s.stored[m.ID] = true
	return nil
}

func (s *countingStore) InsertMessages(_ context.Context, ms []*chat.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if s.failIDs[m.ID] {
			return store.ErrConflict
		}
	}
	s.batches = append(s.batches, len(ms))
	for _, m := range ms {
		s.stored[m.ID] = true
	}
	return nil
}

func TestMessageWriterStoresEveryMessage(t *testing.T) {
	st := &countingStore{stored: map[chat.ID]bool{}}
	w := &messageWriter{store: st}
	const n = 500
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.insert(context.Background(), &chat.Message{ID: chat.NewID()}); err != nil {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	if failed.Load() != 0 || len(st.stored) != n {
		t.Fatalf("stored %d of %d, %d failed", len(st.stored), n, failed.Load())
	}
	for _, b := range st.batches {
		if b > maxWriteBatch {
			t.Errorf("batch of %d, limit %d", b, maxWriteBatch)
		}
	}
	if w.busy || len(w.pending) != 0 {
		t.Errorf("writer left busy=%v with %d pending", w.busy, len(w.pending))
	}
}

func TestMessageWriterFailsOnlyTheBadMessage(t *testing.T) {
	bad := chat.NewID()
	st := &countingStore{stored: map[chat.ID]bool{}, failIDs: map[chat.ID]bool{bad: true}}
	w := &messageWriter{store: st}
	batch := []*writeRequest{
		{m: &chat.Message{ID: chat.NewID()}, done: make(chan error, 1)},
		{m: &chat.Message{ID: bad}, done: make(chan error, 1)},
		{m: &chat.Message{ID: chat.NewID()}, done: make(chan error, 1)},
	}
	w.write(batch)
	for i, r := range batch {
		err := <-r.done
		if wantFail := r.m.ID == bad; wantFail != errors.Is(err, store.ErrConflict) {
			t.Errorf("request %d: err = %v", i, err)
		}
	}
	if len(st.stored) != 2 {
		t.Errorf("stored %d, want the 2 good messages", len(st.stored))
	}
}
