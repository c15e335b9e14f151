package gateway_test

import (
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
	"ermine/internal/perm"
)

// message publishes a message event in channel.
func message(h *harness, channel chat.ID, author chat.ID, text string) {
	h.t.Helper()
	h.publish(chat.MessageEvent{Type: chat.EvMessage, Message: &chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: &text}}, event.Of(channel))
}

// bulkTypes returns the types inside a Bulk packet, in order, and the
// ids of its ChannelCreate/ChannelDelete items.
func bulkTypes(t *testing.T, p packet) (types []string, ids []string) {
	t.Helper()
	if p.Type() != "Bulk" {
		t.Fatalf("got %s %v, want Bulk", p.Type(), p)
	}
	for _, v := range list(p, "v") {
		m := v.(map[string]any)
		types = append(types, str(m, "type"))
		switch str(m, "type") {
		case "ChannelCreate":
			ids = append(ids, str(m, "_id"))
		case "ChannelDelete":
			ids = append(ids, str(m, "id"))
		}
	}
	return types, ids
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestVisibilityChanges hides and reveals a channel through a member's
// roles, a role's permissions, a channel override and the server default,
// in both formats.
func TestVisibilityChanges(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			ctx := t.Context()
			owner, _ := h.user("owner")
			me, token := h.user("me")
			s, general := h.server(owner.ID)
			roleID := chat.NewID()
			s.Roles = map[chat.ID]chat.Role{roleID: {Name: "staff", Permissions: chat.Override{A: int64(perm.ViewChannel)}, Rank: 1}}
			if err := h.store.UpdateServer(ctx, s); err != nil {
				t.Fatal(err)
			}
			secret := h.channel(s, "secret", &chat.Override{D: int64(perm.ViewChannel)})
			secret.RolePermissions = map[chat.ID]chat.Override{roleID: {A: int64(perm.ViewChannel)}}
			if err := h.store.UpdateChannel(ctx, secret); err != nil {
				t.Fatal(err)
			}
			member := h.join(s.ID, me.ID)
			cl, ready := h.connect(t, token, format)
			cl.expect("UserUpdate") // own presence
			if _, ok := ids(list(ready, "channels"), "")[string(secret.ID)]; ok {
				t.Fatal("secret channel visible before the role")
			}
			message(h, secret.ID, owner.ID, "unseen")
			message(h, general.ID, owner.ID, "seen")
			if p := cl.expect("Message"); str(p, "content") != "seen" {
				t.Fatalf("got %v", p)
			}

			setRoles := func(roles ...chat.ID) {
				member.Roles = roles
				if err := h.store.UpdateMember(ctx, member); err != nil {
					t.Fatal(err)
				}
			}
			memberUpdate := func(data chat.Partial, clear ...string) {
				h.publish(chat.ServerMemberUpdateEvent{Type: chat.EvServerMemberUpdate, ID: member.ID, Data: data, Clear: append([]string{}, clear...)}, event.Of(s.ID))
			}
			checkBulk := func(wantTypes []string, wantID chat.ID) {
				t.Helper()
				types, got := bulkTypes(t, cl.next())
				if !equal(types, wantTypes) || len(got) != 1 || got[0] != string(wantID) {
					t.Fatalf("bulk = %v %v, want %v about %s", types, got, wantTypes, wantID)
				}
			}

			t.Run("role given", func(t *testing.T) {
				setRoles(roleID)
				memberUpdate(chat.Partial{"roles": []chat.ID{roleID}})
				checkBulk([]string{"ChannelCreate", "ServerMemberUpdate"}, secret.ID)
				message(h, secret.ID, owner.ID, "now seen")
				if p := cl.expect("Message"); str(p, "content") != "now seen" {
					t.Fatalf("got %v", p)
				}
			})
			t.Run("role removed", func(t *testing.T) {
				setRoles()
				memberUpdate(chat.Partial{}, "Roles")
				checkBulk([]string{"ChannelDelete", "ServerMemberUpdate"}, secret.ID)
				message(h, secret.ID, owner.ID, "hidden again")
				cl.nothing()
			})
			t.Run("override allows", func(t *testing.T) {
				secret.DefaultPermissions = &chat.Override{}
				if err := h.store.UpdateChannel(ctx, secret); err != nil {
					t.Fatal(err)
				}
				h.publish(chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: secret.ID, Data: chat.Partial{"default_permissions": chat.Override{}}, Clear: []string{}}, event.Of(s.ID))
				checkBulk([]string{"ChannelCreate"}, secret.ID)
			})
			t.Run("server default denies", func(t *testing.T) {
				s.DefaultPermissions = int64(perm.DefaultServer &^ perm.ViewChannel)
				if err := h.store.UpdateServer(ctx, s); err != nil {
					t.Fatal(err)
				}
				h.publish(chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: s.ID, Data: chat.Partial{"default_permissions": s.DefaultPermissions}, Clear: []string{}}, event.Of(s.ID))
				p := cl.next()
				types, got := bulkTypes(t, p)
				if !equal(types, []string{"ChannelDelete", "ChannelDelete", "ServerUpdate"}) || len(got) != 2 {
					t.Fatalf("bulk = %v %v", types, got)
				}
				message(h, general.ID, owner.ID, "hidden")
				cl.nothing()
			})
			t.Run("held role's permissions grant", func(t *testing.T) {
				setRoles(roleID)
				// Rank-1 role allows ViewChannel on the server; the secret
				// channel's default override no longer denies it.
				memberUpdate(chat.Partial{"roles": []chat.ID{roleID}})
				types, got := bulkTypes(t, cl.next())
				if !equal(types, []string{"ChannelCreate", "ChannelCreate", "ServerMemberUpdate"}) || len(got) != 2 {
					t.Fatalf("bulk = %v %v", types, got)
				}
				r := s.Roles[roleID]
				r.Permissions = chat.Override{}
				s.Roles[roleID] = r
				if err := h.store.UpdateServer(ctx, s); err != nil {
					t.Fatal(err)
				}
				h.publish(chat.ServerRoleUpdateEvent{Type: chat.EvServerRoleUpdate, ID: s.ID, RoleID: roleID, Data: chat.Partial{"permissions": r.Permissions}, Clear: []string{}}, event.Of(s.ID))
				types, _ = bulkTypes(t, cl.next())
				// secret keeps its role override allowing ViewChannel.
				if !equal(types, []string{"ChannelDelete", "ServerRoleUpdate"}) {
					t.Fatalf("bulk = %v", types)
				}
			})
			t.Run("unrelated role change passes through", func(t *testing.T) {
				h.publish(chat.ServerRoleUpdateEvent{Type: chat.EvServerRoleUpdate, ID: s.ID, RoleID: chat.NewID(), Data: chat.Partial{"name": "x"}, Clear: []string{}}, event.Of(s.ID))
				cl.expect("ServerRoleUpdate")
			})
			t.Run("channel update of a hidden channel withheld", func(t *testing.T) {
				h.publish(chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: general.ID, Data: chat.Partial{"name": "renamed"}, Clear: []string{}}, event.Of(s.ID))
				cl.nothing()
			})
		})
	}
}
