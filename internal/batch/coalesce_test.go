package batch

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestCoalescer checks values are kept per key (the newer one wins),
// written in chunks in key order, by the timer or by Close, and that a
// failed chunk is logged.
func TestCoalescer(t *testing.T) {
	var mu sync.Mutex
	var chunks [][]string
	written := map[string]int{}
	var logged []string
	c := &Coalescer[string, int]{What: "test writes", Delay: 20 * time.Millisecond, Chunk: 2,
		Newer: func(cur, v int) bool { return v > cur },
		Write: func(_ context.Context, keys []string, values map[string]int) error {
			mu.Lock()
			defer mu.Unlock()
			chunks = append(chunks, slices.Clone(keys))
			if slices.Contains(keys, "bad") {
				return errors.New("refused")
			}
			for _, k := range keys {
				written[k] = values[k]
			}
			return nil
		},
		Log: func(_ context.Context, msg string, _ ...any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, msg)
		}}

	c.Record("b", 1)
	c.Record("a", 5)
	c.Record("a", 3) // older: kept 5
	c.Record("c", 7)
	if n := c.Pending(); n != 3 {
		t.Fatalf("Pending = %d, want 3", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	flushed := func() bool { // written is read under mu: the timer's flush writes it
		mu.Lock()
		defer mu.Unlock()
		return len(written) == 3
	}
	for !flushed() {
		if time.Now().After(deadline) {
			t.Fatal("the timer never flushed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	if want := map[string]int{"a": 5, "b": 1, "c": 7}; len(written) != 3 || written["a"] != 5 || written["b"] != 1 || written["c"] != 7 {
		t.Errorf("written %v, want %v", written, want)
	}
	if len(chunks) != 2 || !slices.Equal(chunks[0], []string{"a", "b"}) || !slices.Equal(chunks[1], []string{"c"}) {
		t.Errorf("chunks %v, want [[a b] [c]]", chunks)
	}
	mu.Unlock()

	c.Record("bad", 1)
	c.Record("d", 2)
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if written["d"] != 0 || len(logged) != 1 || logged[0] != "test writes" {
		t.Errorf("a failed chunk: written %v, logged %v", written, logged)
	}
	if c.Pending() != 0 {
		t.Errorf("%d values pending after Close", c.Pending())
	}
}

// TestCoalescerDrop checks Drop forgets a pending value only when it is
// the one given.
func TestCoalescerDrop(t *testing.T) {
	var written []string
	c := &Coalescer[string, int]{Delay: time.Hour, Chunk: 10, Newer: func(cur, v int) bool { return v > cur },
		Write: func(_ context.Context, keys []string, _ map[string]int) error {
			written = append(written, keys...)
			return nil
		}}
	c.Record("a", 2)
	c.Record("b", 3)
	if c.Drop("a", 1) {
		t.Error("Drop of a value that is not the pending one reported true")
	}
	if !c.Drop("b", 3) {
		t.Error("Drop of the pending value reported false")
	}
	if c.Drop("z", 0) {
		t.Error("Drop of a key with nothing pending reported true")
	}
	c.Close()
	if !slices.Equal(written, []string{"a"}) {
		t.Errorf("written %v, want [a]", written)
	}
}
