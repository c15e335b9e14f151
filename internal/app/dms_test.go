package app

import (
	"context"
	"errors"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
)

// TestDirectMessageWritable checks a direct message is writable only
// while the user permission allows it (behaviour.md §3.4): between
// friends, and read-only once they are not.
func TestDirectMessageWritable(t *testing.T) {
	ta := newTestApp(t)
	ctx := context.Background()
	a, b := ta.user(t, "amy"), ta.user(t, "ben")
	ta.friends(t, a, b)
	ev := ta.listen(t, event.Private(a.ID()), event.Private(b.ID()))
	dm, err := ta.OpenDM(ctx, a, b.ID())
	if err != nil {
		t.Fatal(err)
	}
	ev.expect([2]string{chat.EvChannelCreate, event.Private(a.ID())}, [2]string{chat.EvChannelCreate, event.Private(b.ID())})
	for _, c := range []*Caller{a, b} {
		if p, _ := ta.channelPermissions(ctx, c.User, dm); p != perm.DefaultDirectMessage {
			t.Errorf("friends: %s holds %v", c.User.Username, p)
		}
	}
	if _, err := ta.RemoveFriend(ctx, a, b.ID()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Caller{a, b} {
		if p, _ := ta.channelPermissions(ctx, c.User, dm); p != perm.ViewOnly {
			t.Errorf("after unfriending: %s holds %v", c.User.Username, p)
		}
	}
	// The existing channel is still returned, without an event.
	again, err := ta.OpenDM(ctx, b, a.ID())
	if err != nil || again.ID != dm.ID {
		t.Errorf("reopen = %v, %v", again, err)
	}
	stranger := ta.user(t, "cid")
	if _, err := ta.OpenDM(ctx, a, stranger.ID()); !errors.Is(err, chat.ErrMissingPermission("SendMessage")) {
		t.Errorf("stranger: err = %v", err)
	}
	ev.expect([2]string{chat.EvUserRelationship, event.Private(a.ID())}, [2]string{chat.EvUserRelationship, event.Private(b.ID())})
	ev.none()
}
