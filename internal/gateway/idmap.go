package gateway

import (
	"cmp"
	"slices"

	"ermine/internal/chat"
)

// idMap maps ids to values in one slice sorted by id. A connection keeps
// its servers and channels in idMaps: most users have a handful, and a
// slice of them costs a fraction of a map's fixed buckets on each of
// thousands of idle connections. Lookups are binary searches.
//
// A change never writes into the slice it changes: it makes a new one.
// A copy of an idMap (a resume's snapshot of the holder's scope) is then
// the slice itself, however many entries it has, and an idMap still
// holding the same slice (same first entry, same length) is unchanged.
type idMap[V any] struct{ entries []idEntry[V] }

type idEntry[V any] struct {
	id chat.ID
	v  V
}

// newIDMap copies m.
func newIDMap[V any](m map[chat.ID]V) idMap[V] {
	entries := make([]idEntry[V], 0, len(m))
	for id, v := range m {
		entries = append(entries, idEntry[V]{id, v})
	}
	slices.SortFunc(entries, func(a, b idEntry[V]) int { return cmp.Compare(a.id, b.id) })
	return idMap[V]{entries}
}

// newIDSet returns a set of the distinct ids.
func newIDSet(ids []chat.ID) idMap[struct{}] {
	entries := make([]idEntry[struct{}], 0, len(ids))
	for _, id := range ids {
		entries = append(entries, idEntry[struct{}]{id: id})
	}
	slices.SortFunc(entries, func(a, b idEntry[struct{}]) int { return cmp.Compare(a.id, b.id) })
	return idMap[struct{}]{slices.CompactFunc(entries, func(a, b idEntry[struct{}]) bool { return a.id == b.id })}
}

func (m *idMap[V]) find(id chat.ID) (int, bool) {
	return slices.BinarySearchFunc(m.entries, id, func(e idEntry[V], id chat.ID) int { return cmp.Compare(e.id, id) })
}

func (m *idMap[V]) get(id chat.ID) (V, bool) {
	if i, ok := m.find(id); ok {
		return m.entries[i].v, true
	}
	var zero V
	return zero, false
}

func (m *idMap[V]) has(id chat.ID) bool {
	_, ok := m.find(id)
	return ok
}

func (m *idMap[V]) set(id chat.ID, v V) {
	i, ok := m.find(id)
	if ok {
		entries := slices.Clone(m.entries)
		entries[i].v = v
		m.entries = entries
		return
	}
	m.entries = slices.Insert(slices.Clip(m.entries), i, idEntry[V]{id, v}) // clipped: a new slice
}

// insertAll adds entries whose ids m does not have (of one id given
// twice, the first), in one new slice rather than one per entry.
func (m *idMap[V]) insertAll(add []idEntry[V]) {
	if len(add) == 0 {
		return
	}
	slices.SortStableFunc(add, func(a, b idEntry[V]) int { return cmp.Compare(a.id, b.id) })
	add = slices.CompactFunc(add, func(a, b idEntry[V]) bool { return a.id == b.id })
	entries := make([]idEntry[V], 0, len(m.entries)+len(add))
	old := m.entries
	for _, e := range add {
		i, _ := slices.BinarySearchFunc(old, e.id, func(o idEntry[V], id chat.ID) int { return cmp.Compare(o.id, id) })
		entries = append(entries, old[:i]...)
		entries = append(entries, e)
		old = old[i:]
	}
	m.entries = append(entries, old...)
}

func (m *idMap[V]) del(id chat.ID) {
	if i, ok := m.find(id); ok {
		m.entries = slices.Concat(m.entries[:i], m.entries[i+1:])
	}
}

// deleteFunc removes the entries for which drop returns true.
func (m *idMap[V]) deleteFunc(drop func(chat.ID, V) bool) {
	var kept []idEntry[V]
	for i, e := range m.entries {
		if !drop(e.id, e.v) {
			if kept != nil {
				kept = append(kept, e)
			}
			continue
		}
		if kept == nil {
			kept = make([]idEntry[V], i, len(m.entries)-1)
			copy(kept, m.entries[:i])
		}
	}
	if kept != nil {
		m.entries = kept
	}
}

// same reports whether m holds the slice n holds: with no change made
// to either since one was copied from the other, they are equal.
func (m *idMap[V]) same(n idMap[V]) bool {
	return len(m.entries) == len(n.entries) && (len(m.entries) == 0 || &m.entries[0] == &n.entries[0])
}
