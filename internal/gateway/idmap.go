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
		m.entries[i].v = v
		return
	}
	m.entries = slices.Insert(m.entries, i, idEntry[V]{id, v})
}

func (m *idMap[V]) del(id chat.ID) {
	if i, ok := m.find(id); ok {
		m.entries = slices.Delete(m.entries, i, i+1)
	}
}

// deleteFunc removes the entries for which drop returns true.
func (m *idMap[V]) deleteFunc(drop func(chat.ID, V) bool) {
	m.entries = slices.DeleteFunc(m.entries, func(e idEntry[V]) bool { return drop(e.id, e.v) })
}
