package app

import (
	"context"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/pubsub"
)

// eventState is what publishing needs: the bus, and the cache of member
// lists an event may change (dropped before the event leaves). The
// access cache of sends hears the other nodes' changes on the bus too.
type eventState struct {
	bus     pubsub.Bus
	members *memberCache // encoded member lists of big servers
	access  *accessCache // what sends read, dropped by the writes that change it
}

func (e *eventState) close() {
	e.members.close()
	e.access.close()
}

// publish encodes ev once and sends it on each topic. The bus delivers at
// most once and clients recover through a fresh Ready, so a failure to
// publish is logged, not returned: the change it reports has happened.
func (a *App) publish(ctx context.Context, ev chat.Event, topics ...string) {
	typ := ev.Kind()
	f, err := event.Encode(typ, ev)
	if err != nil {
		a.log.ErrorContext(ctx, "encode event", "type", typ, "err", err)
		return
	}
	// Before the frame leaves: a client told of a change must not then
	// read the member list from before it.
	a.events.members.published(typ, f.JSON, topics)
	b := f.Marshal()
	for _, t := range topics {
		if err := a.events.bus.Publish(ctx, t, b); err != nil {
			a.log.ErrorContext(ctx, "publish event", "type", typ, "topic", t, "err", err)
		}
	}
}
