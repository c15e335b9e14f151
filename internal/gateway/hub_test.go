package gateway

import (
	"crypto/rand"
	"slices"
	"strings"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/pubsub"
)

// recordingSub is a subscription that records the topics added to and
// removed from it.
type recordingSub struct {
	pubsub.Subscription
	added, removed []string
}

func (s *recordingSub) Add(topics ...string) error {
	s.added = append(s.added, topics...)
	return nil
}

func (s *recordingSub) Remove(topics ...string) error {
	s.removed = append(s.removed, topics...)
	return nil
}

// subscribed returns the topics added and not removed since, each as
// many times as it was added less removed.
func (s *recordingSub) subscribed() map[string]int {
	n := map[string]int{}
	for _, t := range s.added {
		n[t]++
	}
	for _, t := range s.removed {
		if n[t]--; n[t] == 0 {
			delete(n, t)
		}
	}
	return n
}

// TestHubAddKeepsTopicsSorted adds topics in order, out of order, with
// duplicates and ones already followed: the connection's list stays
// sorted and distinct, each new topic reaches the bus once.
func TestHubAddKeepsTopicsSorted(t *testing.T) {
	sub := &recordingSub{}
	h := newHub()
	h.sub = sub
	c, d := &conn{}, &conn{}
	steps := [][]string{
		{"m", "c"},
		{"a", "b", "d", "x"},      // sorted, merged in
		{"z", "c", "k", "k", "a"}, // unsorted, a duplicate, two followed
		{},
		{"b"},                    // all followed
		{"e!m", "e", "y", "e!m"}, // member topics after their id
	}
	var want []string
	for _, s := range steps {
		if err := h.add(c, s...); err != nil {
			t.Fatal(err)
		}
		want = append(want, s...)
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(c.topics, want) {
			t.Fatalf("after %q: topics %q, want %q", s, c.topics, want)
		}
	}
	if got := slices.Sorted(slices.Values(sub.added)); !slices.Equal(got, want) {
		t.Fatalf("subscribed %q, want each of %q once", got, want)
	}
	// Another connection following some of them subscribes nothing new.
	if err := h.add(d, "x", "a", "new"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.topics, []string{"a", "new", "x"}) || sub.added[len(sub.added)-1] != "new" || len(sub.added) != len(want)+1 {
		t.Fatalf("second connection: topics %q, subscribed %q", d.topics, sub.added)
	}
	for _, topic := range want {
		if h.topics[topic].len() != 1+btoi(topic == "x" || topic == "a") {
			t.Fatalf("topic %q has %d followers", topic, h.topics[topic].len())
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestHubSwap moves topics from one connection to another in place: the
// bus hears of nothing, each topic keeps its other followers (in the
// slice and in the map), and a swap of a topic the old connection does
// not follow changes nothing.
func TestHubSwap(t *testing.T) {
	sub := &recordingSub{}
	h := newHub()
	h.sub = sub
	old, c := &conn{}, &conn{}
	others := make([]*conn, followersInSlice+1) // "crowd" keeps them in a map
	for i := range others {
		others[i] = &conn{}
		if err := h.add(others[i], "crowd"); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.add(old, "a", "b", "crowd", "keep", "own"); err != nil {
		t.Fatal(err)
	}
	if err := h.add(c, "own", "res"); err != nil {
		t.Fatal(err)
	}
	subscribed := len(sub.added)
	followers := func(topic string) []*conn { return h.followers(nil, topic) }

	if h.swap(old, c, []string{"a", "missing"}) {
		t.Fatal("swap of a topic old does not follow succeeded")
	}
	if !slices.Equal(old.topics, []string{"a", "b", "crowd", "keep", "own"}) || !slices.Equal(c.topics, []string{"own", "res"}) {
		t.Fatalf("after a failed swap: old %q, c %q", old.topics, c.topics)
	}
	if !h.swap(old, c, []string{"a", "b", "crowd", "own"}) {
		t.Fatal("swap failed")
	}
	if !slices.Equal(old.topics, []string{"keep"}) || !slices.Equal(c.topics, []string{"a", "b", "crowd", "own", "res"}) {
		t.Fatalf("after the swap: old %q, c %q", old.topics, c.topics)
	}
	for _, topic := range []string{"a", "b", "own"} {
		if got := followers(topic); !slices.Equal(got, []*conn{c}) {
			t.Fatalf("%q followed by %d connections, want c alone", topic, len(got))
		}
	}
	crowd := followers("crowd")
	if len(crowd) != len(others)+1 || !slices.Contains(crowd, c) || slices.Contains(crowd, old) {
		t.Fatalf("crowd: %d followers, c in it %v, old in it %v", len(crowd), slices.Contains(crowd, c), slices.Contains(crowd, old))
	}
	if got := followers("keep"); !slices.Equal(got, []*conn{old}) {
		t.Fatal("keep lost old")
	}
	if len(sub.added) != subscribed {
		t.Fatalf("the swap subscribed %q", sub.added[subscribed:])
	}
	// A connection that has left takes nothing.
	old.gone = true // as removeAll leaves it
	if h.swap(old, c, []string{"keep"}) {
		t.Fatal("swap from a connection that left succeeded")
	}
}

// checkHub checks that each connection of want follows exactly the
// topics given for it, and so does dispatch: it reaches each follower of
// a topic once and no one else (not a connection that handed the topic
// over). The bus subscription holds exactly the topics followed.
func checkHub(t *testing.T, h *hub, sub *recordingSub, want map[*conn][]string) {
	t.Helper()
	followed := map[string]int{} // topic → followers wanted
	for c, topics := range want {
		if !slices.Equal(c.topics, topics) {
			t.Fatalf("a connection's list is %q, want %q", c.topics, topics)
		}
		for _, topic := range topics {
			followed[topic]++
		}
	}
	h.mu.RLock()
	inHub := len(h.topics)
	h.mu.RUnlock()
	if inHub != len(followed) {
		t.Fatalf("the hub holds %d topics, want %d", inHub, len(followed))
	}
	for topic, n := range followed {
		got := h.followers(nil, topic)
		if len(got) != n {
			t.Fatalf("dispatch of %q reaches %d connections, want %d", topic, len(got), n)
		}
		for c, topics := range want {
			_, wanted := slices.BinarySearch(topics, topic)
			if k := countOf(got, c); k != btoi(wanted) {
				t.Fatalf("dispatch of %q reaches a connection %d times, want %d", topic, k, btoi(wanted))
			}
		}
	}
	subscribed := sub.subscribed()
	if len(subscribed) != len(followed) {
		t.Fatalf("subscribed to %d topics, want the %d followed", len(subscribed), len(followed))
	}
	for topic, n := range subscribed {
		if n != 1 || followed[topic] == 0 {
			t.Fatalf("subscribed %d times to %q, followed by %d", n, topic, followed[topic])
		}
	}
}

func countOf(cs []*conn, c *conn) int {
	n := 0
	for _, d := range cs {
		if d == c {
			n++
		}
	}
	return n
}

// numbered returns the topics prefix00 to prefix(n-1).
func numbered(prefix string, n int) []string {
	topics := make([]string, n)
	for i := range topics {
		topics[i] = prefix + string(rune('0'+i/10)) + string(rune('0'+i%10))
	}
	return topics
}

// sortedUnion returns the lists joined, sorted and without repeats.
func sortedUnion(lists ...[]string) []string {
	var all []string
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// TestHubSwapCases swaps topics between two connections in the shapes a
// resume meets: the holder's whole list, its list less its own few
// topics (the new connection following those already), the new
// connection following some of the topics or others; a part of the
// list, which is moved one topic at a time; and swaps that must change
// nothing. Others follow some of the topics, in a slice or (crowd) in a
// map. Afterwards dispatch reaches each follower once, the holder's
// leaving does not touch the new connection's follows, and the new
// connection's leaving unsubscribes what no one else follows.
func TestHubSwapCases(t *testing.T) {
	channels := numbered("ch", 40) // the user's channels, "ch00" to "ch39"
	own := []string{"me", "me!private", "stream!resume"}
	tests := []struct {
		name           string
		old, c, topics []string
		ok             bool
		adopt          bool   // the whole list changes hands (swap's O(1) path)
		left           string // "old" or "c": that one has left before the swap
	}{
		{name: "resume", old: sortedUnion(channels, own), c: own, topics: channels, ok: true, adopt: true},
		{name: "all of old's", old: channels, topics: channels, ok: true, adopt: true},
		{name: "all of old's, c following some", old: channels, c: []string{"ch05", "ch39", "zz"}, topics: channels, ok: true, adopt: true},
		{
			name:   "old keeping some, c following some of them and others",
			old:    sortedUnion(channels, []string{"crowd", "crowd-kept", "keep", "keep-both"}),
			c:      []string{"ch03", "crowd", "keep-both", "mine"},
			topics: sortedUnion(channels[:35], []string{"crowd"}), ok: true, adopt: true,
		},
		{name: "part", old: sortedUnion(channels, own), c: own, topics: channels[5:15], ok: true},
		{name: "part, c following some", old: channels, c: []string{"ch07", "zz"}, topics: channels[:12], ok: true},
		{name: "missing", old: channels, c: own, topics: []string{"ch00", "ch01", "ch01x", "ch02"}},
		{name: "unsorted", old: channels, c: own, topics: []string{"ch01", "ch00", "ch02"}},
		{name: "repeated", old: channels, c: own, topics: []string{"ch00", "ch00", "ch01"}},
		{name: "old gone", old: sortedUnion(channels, own), c: own, topics: channels, left: "old"},
		{name: "c gone", old: sortedUnion(channels, own), c: own, topics: channels, left: "c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := &recordingSub{}
			h := newHub()
			h.sub = sub
			old, c := &conn{}, &conn{}
			want := map[*conn][]string{}
			follow := func(d *conn, topics ...string) {
				t.Helper()
				if err := h.add(d, topics...); err != nil {
					t.Fatal(err)
				}
				want[d] = sortedUnion(want[d], topics)
			}
			// A crowd (held in a map) and one other (in a slice) follow
			// some of the topics.
			crowd := make([]*conn, followersInSlice+1)
			for i := range crowd {
				crowd[i] = &conn{}
				follow(crowd[i], "ch00", "crowd", "crowd-kept", "ch20")
			}
			other := &conn{}
			follow(other, "ch01", "keep-both", "mine", "zz", "me")
			follow(old, tt.old...)
			if len(tt.c) > 0 {
				follow(c, tt.c...)
			}
			switch tt.left {
			case "old":
				if err := h.removeAll(old); err != nil {
					t.Fatal(err)
				}
				delete(want, old)
			case "c":
				if err := h.removeAll(c); err != nil {
					t.Fatal(err)
				}
				delete(want, c)
			}
			checkHub(t, h, sub, want)
			before := c.follower
			oldFollower := old.follower

			if got := h.swap(old, c, slices.Clone(tt.topics)); got != tt.ok {
				t.Fatalf("swap reported %v, want %v", got, tt.ok)
			}
			if !tt.ok {
				if c.follower != before || old.follower != oldFollower {
					t.Fatal("a swap that failed exchanged followers")
				}
				checkHub(t, h, sub, want) // nothing changed
				return
			}
			if adopted := c.follower == oldFollower; adopted != tt.adopt {
				t.Fatalf("c took old's follower: %v, want %v", adopted, tt.adopt)
			}
			kept := slices.DeleteFunc(slices.Clone(want[old]), func(s string) bool {
				_, ok := slices.BinarySearch(tt.topics, s)
				return ok
			})
			want[c] = sortedUnion(want[c], tt.topics)
			want[old] = kept
			if len(kept) == 0 {
				want[old] = []string{}
			}
			checkHub(t, h, sub, want)

			// The holder leaves: c keeps every topic.
			if err := h.removeAll(old); err != nil {
				t.Fatal(err)
			}
			delete(want, old)
			checkHub(t, h, sub, want)
			if h.swap(old, c, nil) || h.swap(c, old, want[c][:1]) {
				t.Fatal("a swap with a connection that left succeeded")
			}
			checkHub(t, h, sub, want)

			// c leaves; then the others: nothing is left.
			if err := h.removeAll(c); err != nil {
				t.Fatal(err)
			}
			delete(want, c)
			checkHub(t, h, sub, want)
			for d := range want {
				if err := h.removeAll(d); err != nil {
					t.Fatal(err)
				}
				delete(want, d)
			}
			checkHub(t, h, sub, want)
		})
	}
}

// TestHubSwapChain resumes a connection again and again, each time from
// the connection the last resume made, as a client whose network keeps
// dropping does; followers change hands each time. Between resumes the
// connection follows and leaves topics of its own.
func TestHubSwapChain(t *testing.T) {
	sub := &recordingSub{}
	h := newHub()
	h.sub = sub
	channels := numbered("ch", 30)
	own := []string{"me", "me!private", "stream!resume"}
	holder := &conn{}
	if err := h.add(holder, sortedUnion(channels, own)...); err != nil {
		t.Fatal(err)
	}
	other := &conn{}
	if err := h.add(other, "ch00", "me"); err != nil {
		t.Fatal(err)
	}
	want := map[*conn][]string{holder: sortedUnion(channels, own), other: {"ch00", "me"}}
	checkHub(t, h, sub, want)
	for i := range 6 {
		c := &conn{}
		if err := h.add(c, own...); err != nil {
			t.Fatal(err)
		}
		want[c] = own
		topics := slices.Clone(want[holder])
		topics = slices.DeleteFunc(topics, func(s string) bool { return slices.Contains(own, s) })
		if !h.swap(holder, c, topics) {
			t.Fatalf("resume %d failed", i)
		}
		want[c], want[holder] = want[holder], own
		checkHub(t, h, sub, want)
		if err := h.removeAll(holder); err != nil {
			t.Fatal(err)
		}
		delete(want, holder)
		checkHub(t, h, sub, want)
		// The new connection changes its follows.
		extra := "extra" + string(rune('a'+i))
		if err := h.add(c, extra); err != nil {
			t.Fatal(err)
		}
		if err := h.remove(c, channels[i]); err != nil {
			t.Fatal(err)
		}
		want[c] = slices.DeleteFunc(sortedUnion(want[c], []string{extra}), func(s string) bool { return s == channels[i] })
		checkHub(t, h, sub, want)
		holder = c
	}
}

// TestHubSwapDispatch runs dispatch's reads beside swaps back and forth
// (under -race): every read of a swapped topic finds exactly one of the
// two connections, never both and never neither.
func TestHubSwapDispatch(t *testing.T) {
	sub := &recordingSub{}
	h := newHub()
	h.sub = sub
	channels := numbered("ch", 50)
	own := []string{"me", "stream!resume"}
	a, b := &conn{}, &conn{}
	if err := h.add(a, sortedUnion(channels, own)...); err != nil {
		t.Fatal(err)
	}
	if err := h.add(b, own...); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	bad := make(chan string, 1)
	go func() {
		defer close(bad)
		var buf []*conn
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			buf = h.followers(buf[:0], channels[i%len(channels)])
			if len(buf) != 1 || buf[0] != a && buf[0] != b {
				bad <- channels[i%len(channels)]
				return
			}
		}
	}()
	for i := range 2000 {
		from, to := a, b
		if i%2 == 1 {
			from, to = b, a
		}
		if !h.swap(from, to, channels) {
			t.Fatalf("swap %d failed", i)
		}
	}
	close(done)
	if topic, ok := <-bad; ok {
		t.Fatalf("dispatch of %q met a follower set in the middle of a swap", topic)
	}
	checkHub(t, h, sub, map[*conn][]string{a: sortedUnion(channels, own), b: own})
}

// BenchmarkHubSwap is the hub's part of a resume from a held connection
// on the same node, for a user in 10,000 channels: the holder follows
// them and the user's own topics and stream, which the new connection
// already follows. Each op is one swap, back and forth. The topics
// swapped are copies of those followed, so that comparing them reads
// their bytes.
func BenchmarkHubSwap(b *testing.B) {
	const n = 10_000
	h := newHub()
	h.sub = &recordingSub{}
	old, c := &conn{}, &conn{}
	me := chat.NewID()
	own := []string{event.Private(me), event.Of(me), event.Resume(rand.Text())}
	followed := make([]string, n)
	for i := range followed {
		followed[i] = event.Of(chat.NewID())
	}
	slices.Sort(followed)
	topics := make([]string, n)
	for i, t := range followed {
		topics[i] = strings.Clone(t)
	}
	if err := h.add(old, append(followed, own...)...); err != nil {
		b.Fatal(err)
	}
	if err := h.add(c, own...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		from, to := old, c
		if i%2 == 1 {
			from, to = c, old
		}
		if !h.swap(from, to, topics) {
			b.Fatal("swap failed")
		}
	}
}
