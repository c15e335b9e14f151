package presence_test

import (
	"sync"
	"testing"

	"ermine/internal/presence"
)

func TestMemory(t *testing.T) {
	m := presence.NewMemory()
	steps := []struct {
		name    string
		connect bool
		want    bool // first or last
		online  bool
	}{
		{"first connection", true, true, true},
		{"second connection", true, false, true},
		{"one of two closes", false, false, true},
		{"last closes", false, true, false},
		{"close without connection", false, false, false},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var got bool
			if s.connect {
				got = m.Connect("U")
			} else {
				got = m.Disconnect("U")
			}
			if got != s.want {
				t.Errorf("reported %v, want %v", got, s.want)
			}
			if m.Online("U") != s.online {
				t.Errorf("Online = %v, want %v", m.Online("U"), s.online)
			}
		})
	}
}

func TestMemoryConcurrent(t *testing.T) {
	m := presence.NewMemory()
	var wg sync.WaitGroup
	var mu sync.Mutex
	firsts, lasts := 0, 0
	for range 50 {
		wg.Go(func() {
			f := m.Connect("U")
			l := m.Disconnect("U")
			mu.Lock()
			if f {
				firsts++
			}
			if l {
				lasts++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if firsts != lasts || firsts == 0 {
		t.Errorf("firsts %d, lasts %d: every online must be matched by an offline", firsts, lasts)
	}
	if m.Online("U") {
		t.Error("still online after every connection closed")
	}
}
