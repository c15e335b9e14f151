package gateway_test

import (
	"sync/atomic"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
	"ermine/internal/perm"
)

// The tests of this file cover the routing decisions that decide who sees
// what: each checks an event that must arrive and one that must not.

// hiddenChannel adds a channel of s that members without a role allowing
// it cannot view.
func hiddenChannel(h *harness, s *chat.Server, name string) *chat.Channel {
	h.t.Helper()
	return h.channel(s, name, &chat.Override{D: int64(perm.ViewChannel)})
}

// TestChannelDeleteRouting: deleting a channel the user sees reaches them
// and ends its messages; deleting one they cannot see tells them nothing.
func TestChannelDeleteRouting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	owner, _ := h.user("owner")
	me, token := h.user("me")
	s, general := h.server(owner.ID)
	extra := h.channel(s, "extra", nil)
	secret := hiddenChannel(h, s, "secret")
	h.join(s.ID, me.ID)
	cl, _ := h.connect(t, token, "json")
	cl.expect("UserUpdate")

	message(h, extra.ID, owner.ID, "before")
	cl.expect("Message")

	h.publish(chat.IDEvent{Type: chat.EvChannelDelete, ID: secret.ID}, event.Of(s.ID))
	cl.nothing() // never saw it

	h.publish(chat.IDEvent{Type: chat.EvChannelDelete, ID: extra.ID}, event.Of(s.ID))
	if p := cl.expect("ChannelDelete"); str(p, "id") != string(extra.ID) {
		t.Fatalf("got %v", p)
	}
	message(h, extra.ID, owner.ID, "after delete")
	cl.nothing()
	message(h, general.ID, owner.ID, "still here")
	if p := cl.expect("Message"); str(p, "content") != "still here" {
		t.Fatalf("got %v", p)
	}
}

// TestServerDeleteRouting: a deleted server reaches its members only, and
// its channels and the server topic go quiet for them; their other
// servers do not.
func TestServerDeleteRouting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	owner, _ := h.user("owner")
	me, token := h.user("me")
	outsider, outsiderToken := h.user("outsider")
	s, general := h.server(owner.ID)
	s2, general2 := h.server(owner.ID)
	h.join(s.ID, me.ID)
	h.join(s2.ID, me.ID)
	h.server(outsider.ID)
	cl, _ := h.connect(t, token, "json")
	cl.expect("UserUpdate")
	out, _ := h.connect(t, outsiderToken, "json")
	out.expect("UserUpdate")

	h.publish(chat.IDEvent{Type: chat.EvServerDelete, ID: s.ID}, event.Of(s.ID))
	if p := cl.expect("ServerDelete"); str(p, "id") != string(s.ID) {
		t.Fatalf("got %v", p)
	}
	out.nothing()

	message(h, general.ID, owner.ID, "in the deleted server")
	h.publish(chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: s.ID, Data: chat.Partial{"name": "x"}, Clear: []string{}}, event.Of(s.ID))
	cl.nothing()
	message(h, general2.ID, owner.ID, "other server")
	if p := cl.expect("Message"); str(p, "content") != "other server" {
		t.Fatalf("got %v", p)
	}
	out.nothing()
}

// TestRoleDeleteRouting: deleting a role recomputes what its holders see
// (a channel only the role opened disappears, in a Bulk before the
// ServerRoleDelete) while members without it get the plain event.
func TestRoleDeleteRouting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	ctx := t.Context()
	owner, _ := h.user("owner")
	me, token := h.user("me")
	other, otherToken := h.user("other")
	s, general := h.server(owner.ID)
	roleID := chat.NewID()
	s.Roles = map[chat.ID]chat.Role{roleID: {Name: "staff", Rank: 1}}
	if err := h.store.UpdateServer(ctx, s); err != nil {
		t.Fatal(err)
	}
	secret := hiddenChannel(h, s, "secret")
	secret.RolePermissions = map[chat.ID]chat.Override{roleID: {A: int64(perm.ViewChannel)}}
	if err := h.store.UpdateChannel(ctx, secret); err != nil {
		t.Fatal(err)
	}
	h.join(s.ID, me.ID, roleID)
	h.join(s.ID, other.ID)
	cl, ready := h.connect(t, token, "json")
	cl.expect("UserUpdate")
	if ids(list(ready, "channels"), "")[string(secret.ID)] == nil {
		t.Fatal("the role's channel is missing from Ready")
	}
	oc, _ := h.connect(t, otherToken, "json")
	oc.expect("UserUpdate")
	cl.expect("UserUpdate") // other came online in the server

	// The app's RoleDelete: the role leaves the server and the channel.
	delete(s.Roles, roleID)
	if err := h.store.UpdateServer(ctx, s); err != nil {
		t.Fatal(err)
	}
	secret.RolePermissions = nil
	if err := h.store.UpdateChannel(ctx, secret); err != nil {
		t.Fatal(err)
	}
	h.publish(chat.ServerRoleDeleteEvent{Type: chat.EvServerRoleDelete, ID: s.ID, RoleID: roleID}, event.Of(s.ID))
	types, got := bulkTypes(t, cl.next())
	if !equal(types, []string{"ChannelDelete", "ServerRoleDelete"}) || len(got) != 1 || got[0] != string(secret.ID) {
		t.Fatalf("bulk = %v %v, want ChannelDelete of %s then ServerRoleDelete", types, got, secret.ID)
	}
	oc.expect("ServerRoleDelete") // not a holder: the event as published

	message(h, secret.ID, owner.ID, "hidden now")
	nothingAll(t, cl, oc)
	message(h, general.ID, owner.ID, "visible")
	cl.expect("Message")
	oc.expect("Message")
}

// TestRoleRanksRouting: reordering roles changes which of a member's
// overrides wins, so a channel one role hides and another opens appears
// (ChannelCreate in a Bulk before ServerRoleRanksUpdate) for the holder of
// both, while a member holding neither still cannot see it.
func TestRoleRanksRouting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	ctx := t.Context()
	owner, _ := h.user("owner")
	me, token := h.user("me")
	other, otherToken := h.user("other")
	s, _ := h.server(owner.ID)
	opener, closer := chat.NewID(), chat.NewID()
	// Rank 0 is applied last and wins: the closer wins at first.
	s.Roles = map[chat.ID]chat.Role{opener: {Name: "opener", Rank: 1}, closer: {Name: "closer", Rank: 0}}
	if err := h.store.UpdateServer(ctx, s); err != nil {
		t.Fatal(err)
	}
	secret := hiddenChannel(h, s, "secret")
	secret.RolePermissions = map[chat.ID]chat.Override{
		opener: {A: int64(perm.ViewChannel)},
		closer: {D: int64(perm.ViewChannel)},
	}
	if err := h.store.UpdateChannel(ctx, secret); err != nil {
		t.Fatal(err)
	}
	h.join(s.ID, me.ID, opener, closer)
	h.join(s.ID, other.ID)
	cl, ready := h.connect(t, token, "json")
	cl.expect("UserUpdate")
	if ids(list(ready, "channels"), "")[string(secret.ID)] != nil {
		t.Fatal("the channel is visible while the closer outranks the opener")
	}
	oc, _ := h.connect(t, otherToken, "json")
	oc.expect("UserUpdate")
	cl.expect("UserUpdate")

	message(h, secret.ID, owner.ID, "unseen")
	nothingAll(t, cl, oc)

	s.Roles[opener] = chat.Role{Name: "opener", Rank: 0}
	s.Roles[closer] = chat.Role{Name: "closer", Rank: 1}
	if err := h.store.UpdateServer(ctx, s); err != nil {
		t.Fatal(err)
	}
	h.publish(chat.ServerRoleRanksUpdateEvent{Type: chat.EvServerRoleRanksUpdate, ID: s.ID, Ranks: []chat.ID{opener, closer}}, event.Of(s.ID))
	types, got := bulkTypes(t, cl.next())
	if !equal(types, []string{"ChannelCreate", "ServerRoleRanksUpdate"}) || len(got) != 1 || got[0] != string(secret.ID) {
		t.Fatalf("bulk = %v %v, want ChannelCreate of %s then ServerRoleRanksUpdate", types, got, secret.ID)
	}
	oc.expect("ServerRoleRanksUpdate")

	message(h, secret.ID, owner.ID, "now seen")
	if p := cl.expect("Message"); str(p, "content") != "now seen" {
		t.Fatalf("got %v", p)
	}
	oc.nothing()
}

// TestGroupRouting: a group's events reach its recipients only; one added
// later follows it from its ChannelCreate; a deleted group goes quiet.
func TestGroupRouting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	me, token := h.user("me")
	owner, _ := h.user("owner")
	late, lateToken := h.user("late")
	group := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: "g", Owner: owner.ID, Recipients: []chat.ID{owner.ID, me.ID}}
	if err := h.store.InsertChannel(t.Context(), group); err != nil {
		t.Fatal(err)
	}
	cl, ready := h.connect(t, token, "json")
	cl.expect("UserUpdate")
	if ids(list(ready, "channels"), "")[string(group.ID)] == nil {
		t.Fatal("the group is missing from Ready")
	}
	lc, _ := h.connect(t, lateToken, "json")
	lc.expect("UserUpdate")

	h.publish(chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: group.ID, Data: chat.Partial{"name": "renamed"}, Clear: []string{}}, event.Of(group.ID))
	cl.expect("ChannelUpdate")
	message(h, group.ID, owner.ID, "members only")
	cl.expect("Message")
	lc.nothing()

	group.Recipients = append(group.Recipients, late.ID)
	if err := h.store.UpdateChannel(t.Context(), group); err != nil {
		t.Fatal(err)
	}
	h.publish(chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: group}, event.Private(late.ID))
	lc.expect("ChannelCreate") // routed, so the group is followed from here on
	cl.nothing()               // the others learn of it from ChannelGroupJoin
	h.publish(chat.ChannelUserEvent{Type: chat.EvChannelGroupJoin, ID: group.ID, User: late.ID}, event.Of(group.ID))
	cl.expect("ChannelGroupJoin")
	lc.expect("ChannelGroupJoin")
	message(h, group.ID, owner.ID, "welcome")
	cl.expect("Message")
	lc.expect("Message")

	h.publish(chat.IDEvent{Type: chat.EvChannelDelete, ID: group.ID}, event.Of(group.ID))
	cl.expect("ChannelDelete")
	lc.expect("ChannelDelete")
	message(h, group.ID, owner.ID, "after delete")
	h.publish(chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: group.ID, Data: chat.Partial{"name": "ghost"}, Clear: []string{}}, event.Of(group.ID))
	nothingAll(t, cl, lc)
}

// TestFramesBeforeReady: frames published while a connection is being set
// up (it follows its topics, Ready is not written yet) wait and come after
// Ready, in order, and change what the connection follows; frames of
// topics it does not follow do not come.
func TestFramesBeforeReady(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			owner, _ := h.user("owner")
			me, token := h.user("me")
			s, general := h.server(owner.ID)
			secret := hiddenChannel(h, s, "secret")
			h.join(s.ID, me.ID)
			group := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: "g", Owner: owner.ID, Recipients: []chat.ID{owner.ID, me.ID}}
			if err := h.store.InsertChannel(t.Context(), group); err != nil {
				t.Fatal(err)
			}
			var early atomic.Int64
			gateway.SetBeforeLive(h.gw, func(waiting func() int) {
				message(h, general.ID, owner.ID, "early")
				message(h, secret.ID, owner.ID, "never")
				h.publish(chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: group}, event.Private(me.ID))
				deadline := time.Now().Add(wait)
				for waiting() < 2 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				early.Store(int64(waiting()))
			})
			cl, _ := h.connect(t, token, format)
			if n := early.Load(); n < 2 {
				t.Fatalf("%d frames waited for Ready, want 2 (the test did not reach the early queue)", n)
			}
			// Presence may come first: it is published once the user is live.
			if p := cl.expect("Message"); str(p, "content") != "early" {
				t.Fatalf("got %v", p)
			}
			if p := cl.expect("ChannelCreate"); str(p, "_id") != string(group.ID) {
				t.Fatalf("got %v", p)
			}
			message(h, group.ID, owner.ID, "in the group")
			if p := cl.expect("Message"); str(p, "content") != "in the group" {
				t.Fatalf("got %v", p)
			}
			message(h, secret.ID, owner.ID, "still never")
			for {
				select {
				case f := <-cl.frames:
					if p := cl.decode(f); !isPresence(p) {
						t.Fatalf("unexpected packet %v", p)
					}
					continue
				case <-time.After(quiet):
				}
				break
			}
		})
	}
}

// TestMemberListExpiry: a Subscribe follows a server's member list for
// MemberListTTL; a new Subscribe renews it; once it lapses the member
// list's events stop.
func TestMemberListExpiry(t *testing.T) {
	t.Parallel()
	const ttl = 2 * time.Second
	h := newHarness(t, gateway.Options{MemberListTTL: ttl})
	owner, _ := h.user("owner")
	me, token := h.user("me")
	s, _ := h.server(owner.ID)
	h.join(s.ID, me.ID)
	cl, _ := h.connect(t, token, "json")
	cl.expect("UserUpdate")

	profile := func(name string) {
		h.publish(chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: owner.ID, Data: chat.Partial{"display_name": name}, Clear: []string{}}, event.Members(s.ID))
	}
	subscribe := func() time.Time {
		cl.send(map[string]any{"type": "Subscribe", "server_id": string(s.ID)})
		cl.send(map[string]any{"type": "Ping", "data": 1})
		cl.expect("Pong") // the Subscribe was handled
		return time.Now()
	}
	profile("unsubscribed")
	cl.nothing()

	first := subscribe()
	profile("subscribed")
	cl.expect("UserUpdate")

	time.Sleep(ttl * 6 / 10)
	renewed := subscribe()
	time.Sleep(time.Until(first.Add(ttl * 12 / 10))) // past the first expiry
	if time.Since(renewed) >= ttl*9/10 {
		t.Fatalf("the machine stalled %v: too slow to tell a renewal from an expiry", time.Since(renewed))
	}
	profile("renewed")
	cl.expect("UserUpdate")

	time.Sleep(time.Until(renewed.Add(ttl + ttl/5)))
	profile("expired")
	cl.nothing()
}
