package nonce

import (
	"fmt"
	"testing"
)

func TestNonces(t *testing.T) {
	n := NewMemory(3)
	for _, k := range []string{"a", "b", "c"} {
		if !n.reserve(k) {
			t.Fatalf("reserve(%s) = false on first use", k)
		}
	}
	if n.reserve("a") {
		t.Fatal("reserve(a) twice = true")
	}
	n.reserve("d") // forgets a, the oldest
	if !n.reserve("a") {
		t.Fatal("a still remembered beyond capacity")
	}
	if n.reserve("c") {
		t.Fatal("c forgotten too early")
	}
	n.release("c")
	if !n.reserve("c") {
		t.Fatal("released key refused")
	}
}

func TestNoncesReuseAfterRelease(t *testing.T) {
	n := NewMemory(2)
	n.reserve("x")
	n.release("x")
	// The stale ring slot of x must not evict a live key later.
	n.reserve("y")
	n.reserve("x")
	n.reserve("z") // overwrites the first slot (stale x): x stays remembered
	if n.reserve("x") {
		t.Fatal("live key x was evicted by a stale slot")
	}
	for i := range 10 {
		n.reserve(fmt.Sprint(i))
	}
	if len(n.set) > 2 {
		t.Fatalf("set holds %d keys, capacity 2", len(n.set))
	}
}
