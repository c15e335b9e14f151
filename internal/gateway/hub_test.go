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

// recordingSub is a subscription that records the topics added to it.
type recordingSub struct {
	pubsub.Subscription
	added []string
}

func (s *recordingSub) Add(topics ...string) error {
	s.added = append(s.added, topics...)
	return nil
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
