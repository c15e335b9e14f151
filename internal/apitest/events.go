package apitest

import (
	"encoding/json"
	"testing"
	"time"

	"ermine/internal/event"
)

// Event is an event seen on the bus: the topic and the decoded JSON.
type Event struct {
	Topic string
	Type  string
	Body  map[string]any
	Raw   []byte
}

// Events records what the node publishes on some topics.
type Events struct {
	t  testing.TB
	ch chan Event
}

// Listen subscribes to topics on the node's bus (event.Of(id),
// event.Private(id), event.Members(id)) until the test ends.
func (h *Harness) Listen(topics ...string) *Events {
	h.t.Helper()
	e := &Events{t: h.t, ch: make(chan Event, 1024)}
	sub, err := h.Server.Bus.Subscribe(func(topic string, msg []byte) {
		f, err := event.Unmarshal(msg)
		if err != nil {
			return
		}
		var body map[string]any
		_ = json.Unmarshal(f.JSON, &body)
		select {
		case e.ch <- Event{Topic: topic, Type: f.Type, Body: body, Raw: append([]byte(nil), f.JSON...)}:
		default:
		}
	})
	if err != nil {
		h.t.Fatalf("apitest: listen: %v", err)
	}
	h.t.Cleanup(func() { sub.Close() })
	if err := sub.Add(topics...); err != nil {
		h.t.Fatalf("apitest: listen: %v", err)
	}
	return e
}

// Wait returns the first event of the given type (any type when empty)
// that satisfies pred (nil: any), failing the test after timeout.
// Events skipped on the way are dropped.
func (e *Events) Wait(typ string, pred func(Event) bool) Event {
	e.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-e.ch:
			if (typ == "" || ev.Type == typ) && (pred == nil || pred(ev)) {
				return ev
			}
		case <-deadline:
			e.t.Fatalf("apitest: no %s event within 5s", typ)
			return Event{}
		}
	}
}

// None fails the test when any event arrives within d.
func (e *Events) None(d time.Duration) {
	e.t.Helper()
	select {
	case ev := <-e.ch:
		e.t.Fatalf("apitest: unexpected %s event on %s: %s", ev.Type, ev.Topic, ev.Raw)
	case <-time.After(d):
	}
}
