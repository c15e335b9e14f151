package gateway

import (
	"slices"
	"sync"

	"ermine/internal/pubsub"
)

// hub maps bus topics to the local connections that follow them. The
// node's single bus subscription holds exactly the topics some local
// connection follows: a topic is added to it with its first follower and
// removed with its last.
type hub struct {
	sub pubsub.Subscription

	// busMu serialises changes of the subscription's topic set, so that
	// an add and a remove of one topic reach the bus in the order the hub
	// decided them. Dispatch never takes it.
	busMu sync.Mutex

	mu     sync.RWMutex
	topics map[string]*followers
}

func newHub() *hub {
	return &hub{topics: make(map[string]*followers)}
}

// follower stands for a connection in the follower sets. Each
// connection has its own, made when it first follows a topic, and
// dispatch reads conn under hub.mu. The indirection lets a resume hand
// all of a held connection's topics to the new connection at once, by
// pointing the holder's follower at it, where otherwise it would change
// one set per topic (see swap).
type follower struct {
	conn *conn
}

// followerOf returns c's follower, making it on first use. h.mu must be
// held.
func (h *hub) followerOf(c *conn) *follower {
	if c.follower == nil {
		c.follower = &follower{conn: c}
	}
	return c.follower
}

// followers is the set of local connections following one topic. Most
// topics (a user's own, a small server's) have one or a few followers:
// they are kept in a slice, and in a map only past followersInSlice.
type followers struct {
	few  []*follower
	many map[*follower]struct{}
}

const followersInSlice = 16

func (s *followers) add(f *follower) {
	if s.many != nil {
		s.many[f] = struct{}{}
		return
	}
	if len(s.few) < followersInSlice {
		s.few = append(s.few, f)
		return
	}
	s.many = make(map[*follower]struct{}, 2*followersInSlice)
	for _, d := range s.few {
		s.many[d] = struct{}{}
	}
	s.many[f] = struct{}{}
	s.few = nil
}

func (s *followers) remove(f *follower) {
	if s.many != nil {
		delete(s.many, f)
		return
	}
	if i := slices.Index(s.few, f); i >= 0 {
		last := len(s.few) - 1
		s.few[i] = s.few[last]
		s.few[last] = nil
		s.few = s.few[:last]
	}
}

// replace puts f in old's place; old is a follower.
func (s *followers) replace(old, f *follower) {
	if s.many != nil {
		delete(s.many, old)
		s.many[f] = struct{}{}
		return
	}
	if i := slices.Index(s.few, old); i >= 0 {
		s.few[i] = f
	}
}

func (s *followers) len() int { return len(s.few) + len(s.many) }

// appendTo appends the followers' connections to buf. hub.mu must be
// held.
func (s *followers) appendTo(buf []*conn) []*conn {
	for _, f := range s.few {
		buf = append(buf, f.conn)
	}
	for f := range s.many {
		buf = append(buf, f.conn)
	}
	return buf
}

// add makes c follow topics. Topics new to the node are added to the bus
// subscription before add returns, so frames published afterwards reach
// c. A connection that has left (see removeAll) follows nothing.
func (h *hub) add(c *conn, topics ...string) error {
	h.busMu.Lock()
	defer h.busMu.Unlock()
	var fresh []string
	h.mu.Lock()
	if c.gone {
		h.mu.Unlock()
		return nil
	}
	// The new topics are gathered, sorted (unless given in order, as a
	// resume gives them) and merged with the sorted list: inserting each
	// in place costs a copy of the list per topic, quadratic for a user
	// following thousands of channels, and sorting the whole list again
	// costs more than the merge.
	var added []string
	for _, t := range topics {
		if _, ok := slices.BinarySearch(c.topics, t); ok {
			continue
		}
		if added == nil {
			added = make([]string, 0, len(topics))
		}
		added = append(added, t)
	}
	if len(added) == 0 {
		h.mu.Unlock()
		return nil
	}
	if !slices.IsSorted(added) {
		slices.Sort(added)
	}
	added = slices.Compact(added)
	f := h.followerOf(c)
	for _, t := range added {
		set := h.topics[t]
		if set == nil {
			set = &followers{}
			h.topics[t] = set
			fresh = append(fresh, t)
		}
		set.add(f)
	}
	c.topics = mergeSorted(c.topics, added)
	h.mu.Unlock()
	if len(fresh) == 0 {
		return nil
	}
	return h.sub.Add(fresh...)
}

// mergeSorted returns the sorted lists a and b, each of distinct
// strings, merged into one sorted list of distinct strings, a new one
// unless a is empty.
func mergeSorted(a, b []string) []string {
	if len(a) == 0 {
		return slices.Clip(b)
	}
	out := make([]string, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case b[0] < a[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

// remove makes c stop following topics.
func (h *hub) remove(c *conn, topics ...string) error {
	h.busMu.Lock()
	defer h.busMu.Unlock()
	h.mu.Lock()
	stale := h.unlink(c, topics)
	h.mu.Unlock()
	if len(stale) == 0 {
		return nil
	}
	return h.sub.Remove(stale...)
}

// removeAll makes c follow nothing, now and later.
func (h *hub) removeAll(c *conn) error {
	h.busMu.Lock()
	defer h.busMu.Unlock()
	h.mu.Lock()
	c.gone = true
	var stale []string
	for _, t := range c.topics {
		set := h.topics[t]
		set.remove(c.follower)
		if set.len() == 0 {
			delete(h.topics, t)
			stale = append(stale, t)
		}
	}
	c.topics = nil
	h.mu.Unlock()
	if len(stale) == 0 {
		return nil
	}
	return h.sub.Remove(stale...)
}

// unlink drops c from topics and returns those left without followers.
// h.mu must be held.
func (h *hub) unlink(c *conn, topics []string) []string {
	var stale []string
	for _, t := range topics {
		i, ok := slices.BinarySearch(c.topics, t)
		if !ok {
			continue
		}
		c.topics = slices.Delete(c.topics, i, i+1)
		set := h.topics[t]
		set.remove(c.follower)
		if set.len() == 0 {
			delete(h.topics, t)
			stale = append(stale, t)
		}
	}
	return stale
}

// swap makes c follow topics (sorted) in old's place: old stops following
// them and c starts, in one step for dispatch, with no change to the bus
// subscription. It reports false, changing nothing, when old does not
// follow every one of them or either has left. Dispatch may call it.
//
// It is what a resume from a connection on the same node costs, for a
// user of thousands of topics. In a resume, old follows topics and a few
// of its own (the user's and the stream's), which c follows already:
// then c takes old's follower and old c's, and only the sets of those
// few topics change (see adopt). Otherwise each of topics costs one map
// lookup.
func (h *hub) swap(old, c *conn, topics []string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old.gone || c.gone {
		return false
	}
	// topics must be a subset of old.topics; old keeps the rest. The
	// walk also finds topics unsorted: each must be met after the one
	// before it in old's sorted list.
	kept := make([]string, 0, max(len(old.topics)-len(topics), 0))
	i := 0
	for _, t := range old.topics {
		if i < len(topics) {
			switch u := topics[i]; {
			case u == t:
				i++
				continue
			case u < t:
				return false // not followed by old, or topics unsorted
			}
		}
		kept = append(kept, t)
	}
	if i < len(topics) {
		return false
	}
	if len(kept)+len(c.topics) < len(topics) {
		h.adopt(old, c, topics, kept)
	} else {
		h.swapEach(old, c, topics)
	}
	old.topics = kept
	return true
}

// swapEach moves topics, which old follows, to c one set at a time, and
// sets c's list; swap sets old's. h.mu must be held.
func (h *hub) swapEach(old, c *conn, topics []string) {
	from, to := old.follower, h.followerOf(c)
	// c's list (a few topics of its own) and topics merged in one walk.
	merged := make([]string, 0, len(c.topics)+len(topics))
	mine := c.topics
	for _, t := range topics {
		for len(mine) > 0 && mine[0] < t {
			merged, mine = append(merged, mine[0]), mine[1:]
		}
		set := h.topics[t]
		if len(mine) > 0 && mine[0] == t {
			set.remove(from) // c follows it already, and stays
			continue
		}
		set.replace(from, to)
		merged = append(merged, t)
	}
	c.topics = append(merged, mine...)
}

// adopt makes c follow topics, old's list less kept, by exchanging the
// two connections' followers: c's becomes old's, now pointing at c, and
// old's becomes c's, pointing at old. Only the sets of kept and of c's
// own topics are then put right, so the cost is in their number, not in
// that of topics. It sets c's list; swap sets old's. h.mu must be held.
func (h *hub) adopt(old, c *conn, topics, kept []string) {
	a, b := old.follower, h.followerOf(c)
	a.conn, b.conn = c, old
	c.follower, old.follower = a, b
	// Walk kept and c's topics together. A topic in both keeps both
	// connections, each through its new follower: nothing to do.
	all := true // c's topics are all in old's list, kept all in c's
	ks, mine := kept, c.topics
	for len(ks) > 0 || len(mine) > 0 {
		switch {
		case len(mine) == 0 || len(ks) > 0 && ks[0] < mine[0]:
			// Old keeps it and c does not follow it.
			h.topics[ks[0]].replace(a, b)
			ks = ks[1:]
			all = false
		case len(ks) == 0 || mine[0] < ks[0]:
			// c follows it; old too unless it was not in old's list.
			if _, ok := slices.BinarySearch(old.topics, mine[0]); ok {
				h.topics[mine[0]].remove(b)
			} else {
				h.topics[mine[0]].replace(b, a)
				all = false
			}
			mine = mine[1:]
		default:
			ks, mine = ks[1:], mine[1:]
		}
	}
	if all {
		// c's list is then old's: taken as it is, not copied (old's
		// becomes kept).
		c.topics = old.topics
		return
	}
	c.topics = mergeSorted(topics, c.topics) // topics is not empty: a new list
}

// followers appends the connections following topic to buf.
func (h *hub) followers(buf []*conn, topic string) []*conn {
	h.mu.RLock()
	if set := h.topics[topic]; set != nil {
		buf = set.appendTo(buf)
	}
	h.mu.RUnlock()
	return buf
}
