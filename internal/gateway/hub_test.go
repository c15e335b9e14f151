package gateway

import (
	"slices"
	"testing"

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
