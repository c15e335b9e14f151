// Package slowmodetest is the conformance suite of slowmode.Windows.
package slowmodetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/slowmode"
)

// Run checks an implementation. open returns a fresh one and a function
// that lets time pass by at least d (sleeping for real implementations).
// unit is the shortest window the implementation measures reliably.
func Run(t *testing.T, unit time.Duration, open func(t *testing.T) (slowmode.Windows, func(d time.Duration))) {
	ctx := context.Background()
	t.Run("StartThenRefuse", func(t *testing.T) {
		w, wait := open(t)
		user, ch, other := chat.NewID(), chat.NewID(), chat.NewID()
		if got, err := w.Start(ctx, user, ch, 4*unit); err != nil || got != nil {
			t.Fatalf("first start = %v, %v; want nil", got, err)
		}
		got, err := w.Start(ctx, user, ch, 4*unit)
		if err != nil || got == nil {
			t.Fatalf("second start = %v, %v; want the open window", got, err)
		}
		if got.Channel != ch || got.Duration != 4*unit || got.Left <= 0 || got.Left > 4*unit {
			t.Fatalf("window = %+v", got)
		}
		// Other channels and other users are independent.
		if got, _ := w.Start(ctx, user, other, 4*unit); got != nil {
			t.Fatalf("other channel refused: %+v", got)
		}
		if got, _ := w.Start(ctx, chat.NewID(), ch, 4*unit); got != nil {
			t.Fatalf("other user refused: %+v", got)
		}
		open, err := w.Open(ctx, user)
		if err != nil || len(open) != 2 {
			t.Fatalf("open = %+v, %v; want 2 windows", open, err)
		}
		wait(5 * unit)
		if got, err := w.Start(ctx, user, ch, 4*unit); err != nil || got != nil {
			t.Fatalf("start after the window = %v, %v; want nil", got, err)
		}
	})
	t.Run("OpenExpires", func(t *testing.T) {
		w, wait := open(t)
		user := chat.NewID()
		if open, err := w.Open(ctx, user); err != nil || len(open) != 0 {
			t.Fatalf("open before any = %+v, %v", open, err)
		}
		short, long := chat.NewID(), chat.NewID()
		mustStart(t, w, user, short, 2*unit)
		mustStart(t, w, user, long, 20*unit)
		wait(4 * unit)
		open, err := w.Open(ctx, user)
		if err != nil || len(open) != 1 || open[0].Channel != long || open[0].Duration != 20*unit {
			t.Fatalf("open = %+v, %v; want only the long window", open, err)
		}
	})
	t.Run("ConcurrentStartsOpenOnce", func(t *testing.T) {
		w, _ := open(t)
		user, ch := chat.NewID(), chat.NewID()
		var wg sync.WaitGroup
		var mu sync.Mutex
		passed := 0
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := w.Start(ctx, user, ch, 20*unit)
				if err != nil {
					t.Error(err)
					return
				}
				if got == nil {
					mu.Lock()
					passed++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if passed != 1 {
			t.Fatalf("%d sends passed, want 1", passed)
		}
	})
}

func mustStart(t *testing.T, w slowmode.Windows, user, ch chat.ID, d time.Duration) {
	t.Helper()
	if got, err := w.Start(context.Background(), user, ch, d); err != nil || got != nil {
		t.Fatalf("start = %v, %v", got, err)
	}
}
