package gateway

import (
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
	topics map[string]map[*conn]struct{}
}

func newHub() *hub {
	return &hub{topics: make(map[string]map[*conn]struct{})}
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
	for _, t := range topics {
		if _, ok := c.topics[t]; ok {
			continue
		}
		if c.topics == nil {
			c.topics = make(map[string]struct{}, len(topics))
		}
		c.topics[t] = struct{}{}
		set := h.topics[t]
		if set == nil {
			set = make(map[*conn]struct{}, 1)
			h.topics[t] = set
			fresh = append(fresh, t)
		}
		set[c] = struct{}{}
	}
	h.mu.Unlock()
	if len(fresh) == 0 {
		return nil
	}
	return h.sub.Add(fresh...)
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
	topics := make([]string, 0, len(c.topics))
	for t := range c.topics {
		topics = append(topics, t)
	}
	stale := h.unlink(c, topics)
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
		if _, ok := c.topics[t]; !ok {
			continue
		}
		delete(c.topics, t)
		set := h.topics[t]
		delete(set, c)
		if len(set) == 0 {
			delete(h.topics, t)
			stale = append(stale, t)
		}
	}
	return stale
}

// followers appends the connections following topic to buf.
func (h *hub) followers(buf []*conn, topic string) []*conn {
	h.mu.RLock()
	for c := range h.topics[topic] {
		buf = append(buf, c)
	}
	h.mu.RUnlock()
	return buf
}
