package gateway

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
)

// TestMergeTopics checks mergeTopics against sorting the three lists'
// topics, for lists of every relative size, empty ones among them.
func TestMergeTopics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ids := func(n int) []chat.ID {
		out := make([]chat.ID, n)
		for i := range out {
			out[i] = chat.NewID()
		}
		return out
	}
	for _, sizes := range [][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 3, 0}, {0, 3, 50}, {1, 200, 10000}, {5, 5, 5}, {30, 2, 7}} {
		for range 3 {
			var us, ss, cs []chat.ID
			for _, id := range ids(sizes[0] + sizes[1] + sizes[2]) {
				switch k := r.IntN(sizes[0] + sizes[1] + sizes[2]); {
				case k < sizes[0]:
					us = append(us, id)
				case k < sizes[0]+sizes[1]:
					ss = append(ss, id)
				default:
					cs = append(cs, id)
				}
			}
			want := make([]string, 0, len(us)+len(ss)+len(cs))
			for _, id := range slices.Concat(us, ss, cs) {
				want = append(want, event.Of(id))
			}
			slices.Sort(want)
			got := mergeTopics(newIDSet(us).entries, newIDSet(ss).entries, newIDSet(cs).entries)
			if !slices.Equal(got, want) {
				t.Fatalf("sizes %v: got %d topics, want %d (equal lengths: %v)", sizes, len(got), len(want), len(got) == len(want))
			}
		}
	}
}

// TestIDMapCopies checks that a change to an idMap leaves a copy taken
// before it (the slice itself, as copyScope takes it) as it was, and
// that same tells the two apart only after a change.
func TestIDMapCopies(t *testing.T) {
	ids := make([]chat.ID, 8)
	for i := range ids {
		ids[i] = chat.NewID()
	}
	base := func() idMap[chat.ID] {
		return newIDMap(map[chat.ID]chat.ID{ids[1]: "a", ids[3]: "b", ids[5]: "c", ids[7]: "d"})
	}
	render := func(m idMap[chat.ID]) string {
		var out []string
		for _, e := range m.entries {
			out = append(out, string(e.id)+"="+string(e.v))
		}
		return strings.Join(out, ",")
	}
	for name, change := range map[string]func(m *idMap[chat.ID]){
		"set existing": func(m *idMap[chat.ID]) { m.set(ids[3], "z") },
		"set new":      func(m *idMap[chat.ID]) { m.set(ids[4], "z") },
		"del":          func(m *idMap[chat.ID]) { m.del(ids[5]) },
		"deleteFunc": func(m *idMap[chat.ID]) {
			m.deleteFunc(func(_, v chat.ID) bool { return v == "b" || v == "d" })
		},
		"insertAll": func(m *idMap[chat.ID]) {
			m.insertAll([]idEntry[chat.ID]{{ids[6], "y"}, {ids[0], "x"}, {ids[2], "w"}, {ids[0], "v"}})
		},
	} {
		m := base()
		m.entries = slices.Grow(m.entries, 16) // room to change in place, were it allowed
		snapshot := m
		before := render(snapshot)
		if !m.same(snapshot) {
			t.Fatalf("%s: a copy is not the same before any change", name)
		}
		change(&m)
		if got := render(snapshot); got != before {
			t.Fatalf("%s changed the copy: %s, was %s", name, got, before)
		}
		if m.same(snapshot) {
			t.Fatalf("%s: same after a change", name)
		}
		if !slices.IsSortedFunc(m.entries, func(a, b idEntry[chat.ID]) int { return strings.Compare(string(a.id), string(b.id)) }) {
			t.Fatalf("%s left the entries unsorted: %s", name, render(m))
		}
	}
	m := base()
	m.insertAll([]idEntry[chat.ID]{{ids[6], "y"}, {ids[0], "x"}, {ids[2], "w"}, {ids[0], "v"}})
	want := base()
	want.set(ids[0], "x")
	want.set(ids[2], "w")
	want.set(ids[6], "y")
	if render(m) != render(want) {
		t.Fatalf("insertAll: got %s, want %s", render(m), render(want))
	}
	m.deleteFunc(func(chat.ID, chat.ID) bool { return false })
	if render(m) != render(want) {
		t.Fatalf("deleteFunc dropping nothing changed the map: %s", render(m))
	}
}
