// Package noncetest is the conformance suite of nonce.Guard.
package noncetest

import (
	"context"
	"crypto/rand"
	"sync"
	"sync/atomic"
	"testing"

	"ermine/internal/nonce"
)

// Run checks an implementation. open returns a fresh, empty Guard.
func Run(t *testing.T, open func(t *testing.T) nonce.Guard) {
	ctx := context.Background()
	t.Run("ReserveOnce", func(t *testing.T) {
		g := open(t)
		key := rand.Text()
		if ok, err := g.Reserve(ctx, key); err != nil || !ok {
			t.Fatalf("first reserve = %v, %v; want true", ok, err)
		}
		if ok, err := g.Reserve(ctx, key); err != nil || ok {
			t.Fatalf("second reserve = %v, %v; want false", ok, err)
		}
		if ok, err := g.Reserve(ctx, rand.Text()); err != nil || !ok {
			t.Fatalf("other key = %v, %v; want true", ok, err)
		}
	})
	t.Run("ReleaseAllowsRetry", func(t *testing.T) {
		g := open(t)
		key := rand.Text()
		mustReserve(t, g, key)
		if err := g.Release(ctx, key); err != nil {
			t.Fatal(err)
		}
		mustReserve(t, g, key)
		// Releasing an unknown key is harmless.
		if err := g.Release(ctx, rand.Text()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("KeysAreBytes", func(t *testing.T) {
		// Keys are author+"\x00"+nonce; a nonce may hold any text.
		g := open(t)
		a, b := "author\x00n:1", "author\x00n:1 "
		mustReserve(t, g, a)
		mustReserve(t, g, b)
		mustReserve(t, g, "other\x00n:1")
	})
	t.Run("ConcurrentReserve", func(t *testing.T) {
		g := open(t)
		key := rand.Text()
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if ok, err := g.Reserve(ctx, key); err == nil && ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d of 16 concurrent reservations succeeded; want 1", wins.Load())
		}
	})
	t.Run("CanceledContext", func(t *testing.T) {
		g := open(t)
		key := rand.Text()
		mustReserve(t, g, key)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		// A refused call may fail; it must never report a key as new
		// that was already reserved.
		if ok, _ := g.Reserve(cctx, key); ok {
			t.Fatal("reserved key reported new on a canceled context")
		}
	})
}

func mustReserve(t *testing.T, g nonce.Guard, key string) {
	t.Helper()
	if ok, err := g.Reserve(context.Background(), key); err != nil || !ok {
		t.Fatalf("reserve %q = %v, %v; want true", key, ok, err)
	}
}
