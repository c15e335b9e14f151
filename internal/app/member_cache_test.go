package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
)

// membersJSON is GET /servers/{id}/members as the cache serves it, checked
// against encoding FetchMembers' uncached result.
func (ta *testApp) membersJSON(t *testing.T, c *Caller, id chat.ID, offline bool) string {
	t.Helper()
	got, err := ta.FetchMembersJSON(context.Background(), c, id, offline)
	if err != nil {
		t.Fatal(err)
	}
	list, err := ta.FetchMembers(context.Background(), c, id, offline)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("cached list differs from the uncached one:\n got %s\nwant %s", got, want)
	}
	return string(got)
}

func TestMemberListCache(t *testing.T) {
	old := memberCacheMin
	memberCacheMin = 5
	t.Cleanup(func() { memberCacheMin = old })
	ta := newTestApp(t)
	ctx := context.Background()
	owner, friend, viewer := ta.user(t, "owner"), ta.user(t, "friend"), ta.user(t, "viewer")
	ta.friends(t, viewer, friend)
	created, err := ta.CreateServer(ctx, owner, chat.ServerCreate{Name: "Big"})
	if err != nil {
		t.Fatal(err)
	}
	sid := created.Server.ID
	invite, err := ta.CreateInvite(ctx, owner, created.Channels[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	callers := []*Caller{friend, viewer}
	for i := range 6 {
		callers = append(callers, ta.user(t, fmt.Sprintf("member%d", i)))
	}
	// One member looks offline on purpose.
	invisible := chat.PresenceInvisible
	callers[3].User.Status = &chat.UserStatus{Presence: &invisible}
	if err := ta.st.UpdateUser(ctx, callers[3].User); err != nil {
		t.Fatal(err)
	}
	for _, c := range callers {
		if _, err := ta.JoinInvite(ctx, c, invite.Code); err != nil {
			t.Fatal(err)
		}
	}
	ta.online.Connect(ctx, friend.ID())
	ta.online.Connect(ctx, callers[3].ID())
	ta.online.Connect(ctx, callers[4].ID())

	first := ta.membersJSON(t, viewer, sid, false)
	ta.events.members.mu.Lock()
	_, held := ta.events.members.entries[sid]
	ta.events.members.mu.Unlock()
	if !held {
		t.Fatal("the list of a server over the threshold is not kept")
	}
	for _, c := range []*Caller{owner, friend, callers[5]} {
		ta.membersJSON(t, c, sid, false)
		ta.membersJSON(t, c, sid, true)
	}
	// Presence is looked up on each request.
	ta.online.Connect(ctx, callers[5].ID())
	if got := ta.membersJSON(t, viewer, sid, true); !strings.Contains(got, string(callers[5].ID())) {
		t.Errorf("a member who came online is missing from the online list: %s", got)
	}

	// A member edit shows in the next list.
	nick := "Captain"
	if _, err := ta.EditMember(ctx, owner, sid, callers[2].ID(), chat.MemberEdit{Nickname: &nick}); err != nil {
		t.Fatal(err)
	}
	if got := ta.membersJSON(t, viewer, sid, false); !strings.Contains(got, `"nickname":"Captain"`) || got == first {
		t.Errorf("the nickname is not in the next list: %s", got)
	}
	// So does a user edit.
	name := "Renamed Person"
	if _, err := ta.EditUser(ctx, callers[4], "@me", chat.UserEdit{DisplayName: &name}); err != nil {
		t.Fatal(err)
	}
	if got := ta.membersJSON(t, viewer, sid, false); !strings.Contains(got, name) {
		t.Errorf("the display name is not in the next list: %s", got)
	}
	// And a member leaving.
	if err := ta.KickMember(ctx, owner, sid, callers[6].ID()); err != nil {
		t.Fatal(err)
	}
	if got := ta.membersJSON(t, viewer, sid, false); strings.Contains(got, string(callers[6].ID())) {
		t.Errorf("a kicked member is still listed: %s", got)
	}

	// A change made by another node reaches this one through the bus.
	ta.membersJSON(t, viewer, sid, false)
	other := "Elsewhere"
	m, err := ta.st.FetchMember(ctx, sid, callers[5].ID())
	if err != nil {
		t.Fatal(err)
	}
	m.Nickname = &other
	if err := ta.st.UpdateMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	f, err := event.Encode(chat.EvServerMemberUpdate, map[string]any{"type": chat.EvServerMemberUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if err := ta.bus.Publish(ctx, event.Of(sid), f.Marshal()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := ta.FetchMembersJSON(ctx, viewer, sid, false)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), other) {
			ta.membersJSON(t, viewer, sid, false)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a change announced by another node never reached the list")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAffectsMembers(t *testing.T) {
	for _, tt := range []struct {
		typ, body string
		want      bool
	}{
		{chat.EvUserUpdate, `{"data":{"online":true},"clear":[]}`, false},
		{chat.EvUserUpdate, `{"data":{"online":true,"username":"x"},"clear":[]}`, true},
		{chat.EvUserUpdate, `{"data":{},"clear":["Avatar"]}`, true},
		{chat.EvUserUpdate, `not json`, true},
		{chat.EvServerMemberUpdate, `{}`, true},
		{chat.EvChannelStartTyping, `{}`, false},
	} {
		if got := affectsMembers(tt.typ, []byte(tt.body)); got != tt.want {
			t.Errorf("affectsMembers(%s, %s) = %v", tt.typ, tt.body, got)
		}
	}
}

// TestMemberListCacheTwoNodes edits members and users through a second
// App sharing the store and the bus, like another node, and checks the
// first node's kept list follows.
func TestMemberListCacheTwoNodes(t *testing.T) {
	old := memberCacheMin
	memberCacheMin = 3
	t.Cleanup(func() { memberCacheMin = old })
	one := newTestApp(t)
	two := &testApp{App: New(Deps{Store: one.st, Bus: one.bus, Settings: Settings{Limits: DefaultLimits()}}), st: one.st, bus: one.bus}
	t.Cleanup(func() { two.Close() })
	ctx := context.Background()
	owner := one.user(t, "owner")
	created, err := one.CreateServer(ctx, owner, chat.ServerCreate{Name: "Shared"})
	if err != nil {
		t.Fatal(err)
	}
	sid := created.Server.ID
	invite, err := one.CreateInvite(ctx, owner, created.Channels[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var members []*Caller
	for i := range 4 {
		c := one.user(t, fmt.Sprintf("member%d", i))
		if _, err := one.JoinInvite(ctx, c, invite.Code); err != nil {
			t.Fatal(err)
		}
		members = append(members, c)
	}
	eventually := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			got, err := one.FetchMembersJSON(ctx, owner, sid, false)
			if err != nil {
				t.Fatal(err)
			}
			if ok(string(got)) {
				one.membersJSON(t, owner, sid, false)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never reached node one's list: %s", what, got)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	one.membersJSON(t, owner, sid, false) // kept on node one

	nick := "Far Away"
	if _, err := two.EditMember(ctx, owner, sid, members[0].ID(), chat.MemberEdit{Nickname: &nick}); err != nil {
		t.Fatal(err)
	}
	eventually("a nickname set on node two", func(s string) bool { return strings.Contains(s, nick) })

	name := "Other Node"
	if _, err := two.EditUser(ctx, members[1], "@me", chat.UserEdit{DisplayName: &name}); err != nil {
		t.Fatal(err)
	}
	eventually("a display name set on node two", func(s string) bool { return strings.Contains(s, name) })

	if err := two.KickMember(ctx, owner, sid, members[2].ID()); err != nil {
		t.Fatal(err)
	}
	eventually("a kick on node two", func(s string) bool { return !strings.Contains(s, string(members[2].ID())) })

	late := one.user(t, "late")
	if _, err := two.JoinInvite(ctx, late, invite.Code); err != nil {
		t.Fatal(err)
	}
	eventually("a join on node two", func(s string) bool { return strings.Contains(s, string(late.ID())) })
}
