package gateway_test

import (
	"testing"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/gateway"
	"ermine/internal/perm"
)

// TestEventFamilies sends one event of every family to the topic the app
// publishes it on and checks who receives it: a member who sees the
// channel, a member who does not, and a stranger.
func TestEventFamilies(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	owner, ownerToken := h.user("owner")
	member, memberToken := h.user("member")
	stranger, strangerToken := h.user("stranger")
	friend, _ := h.user("friend")
	h.relate(member.ID, friend.ID, chat.RelationFriend, chat.RelationFriend)
	s, general := h.server(owner.ID)
	private := h.channel(s, "private", &chat.Override{D: int64(perm.ViewChannel)})
	h.join(s.ID, member.ID)

	clients := map[string]*client{}
	for _, c := range []struct{ name, token string }{{"owner", ownerToken}, {"member", memberToken}, {"stranger", strangerToken}} {
		cl, _ := h.connect(t, c.token, "json")
		cl.expect("UserUpdate") // own presence
		clients[c.name] = cl
	}
	// The owner and the member see each other come online through the server.
	clients["owner"].expect("UserUpdate")

	text := "hi"
	msgID := chat.NewID()
	cases := []struct {
		name  string
		ev    any
		topic string
		to    []string // who receives it
	}{
		{"Message in visible channel", chat.MessageEvent{Type: chat.EvMessage, Message: &chat.Message{ID: msgID, Channel: general.ID, Author: owner.ID, Content: &text}}, event.Of(general.ID), []string{"owner", "member"}},
		{"Message in private channel", chat.MessageEvent{Type: chat.EvMessage, Message: &chat.Message{ID: chat.NewID(), Channel: private.ID, Author: owner.ID, Content: &text}}, event.Of(private.ID), []string{"owner"}},
		{"MessageUpdate", chat.MessageUpdateEvent{Type: chat.EvMessageUpdate, ID: msgID, Channel: general.ID, Data: chat.Partial{"content": "x"}, Clear: []string{}}, event.Of(general.ID), []string{"owner", "member"}},
		{"MessageAppend", chat.MessageAppendEvent{Type: chat.EvMessageAppend, ID: msgID, Channel: general.ID}, event.Of(general.ID), []string{"owner", "member"}},
		{"MessageReact in private", chat.MessageReactEvent{Type: chat.EvMessageReact, ID: msgID, ChannelID: private.ID, UserID: owner.ID, EmojiID: "x"}, event.Of(private.ID), []string{"owner"}},
		{"MessageDelete", chat.MessageDeleteEvent{Type: chat.EvMessageDelete, ID: msgID, Channel: general.ID}, event.Of(general.ID), []string{"owner", "member"}},
		{"BulkMessageDelete", chat.BulkMessageDeleteEvent{Type: chat.EvBulkMessageDelete, Channel: general.ID, IDs: []chat.ID{msgID}}, event.Of(general.ID), []string{"owner", "member"}},
		{"ChannelUpdate of private channel", chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: private.ID, Data: chat.Partial{"name": "p"}, Clear: []string{}}, event.Of(s.ID), []string{"owner"}},
		{"ChannelUpdate of visible channel", chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: general.ID, Data: chat.Partial{"name": "g"}, Clear: []string{}}, event.Of(s.ID), []string{"owner", "member"}},
		{"ServerUpdate", chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: s.ID, Data: chat.Partial{"name": "n"}, Clear: []string{}}, event.Of(s.ID), []string{"owner", "member"}},
		{"ServerMemberJoin", chat.ServerMemberJoinEvent{Type: chat.EvServerMemberJoin, ID: s.ID, User: friend.ID}, event.Of(s.ID), []string{"owner", "member"}},
		{"ServerRoleRanksUpdate", chat.ServerRoleRanksUpdateEvent{Type: chat.EvServerRoleRanksUpdate, ID: s.ID, Ranks: []chat.ID{}}, event.Of(s.ID), []string{"owner", "member"}},
		{"EmojiCreate", chat.EmojiCreateEvent{Type: chat.EvEmojiCreate, Emoji: &chat.Emoji{ID: chat.NewID(), Parent: chat.EmojiParent{Type: "Server", ID: s.ID}, Name: "e"}}, event.Of(s.ID), []string{"owner", "member"}},
		{"WebhookCreate in private", chat.WebhookCreateEvent{Type: chat.EvWebhookCreate, Webhook: &chat.Webhook{ID: chat.NewID(), ChannelID: private.ID}}, event.Of(private.ID), []string{"owner"}},
		{"ChannelAck", chat.ChannelAckEvent{Type: chat.EvChannelAck, ID: general.ID, User: member.ID, MessageID: msgID}, event.Private(member.ID), []string{"member"}},
		{"UserSettingsUpdate", chat.UserSettingsUpdateEvent{Type: chat.EvUserSettingsUpdate, ID: stranger.ID, Update: map[string]chat.Setting{"k": {Timestamp: 1, Value: "v"}}}, event.Private(stranger.ID), []string{"stranger"}},
		{"UserUpdate of a friend", chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: friend.ID, Data: chat.Partial{"display_name": "F"}, Clear: []string{}}, event.Of(friend.ID), []string{"member"}},
		{"UserUpdate on member list", chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: owner.ID, Data: chat.Partial{"display_name": "O"}, Clear: []string{}}, event.Members(s.ID), nil},
		{"UserPlatformWipe", chat.UserPlatformWipeEvent{Type: chat.EvUserPlatformWipe, UserID: friend.ID, Flags: chat.UserFlagBanned}, event.Of(friend.ID), []string{"member"}},
		{"ChannelCreate of a private server channel", chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: private}, event.Of(s.ID), []string{"owner"}},
		{"ChannelStartTyping", chat.ChannelUserEvent{Type: chat.EvChannelStartTyping, ID: private.ID, User: owner.ID}, event.Of(private.ID), []string{"owner"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.publish(tc.ev, tc.topic)
			want := map[string]bool{}
			for _, n := range tc.to {
				want[n] = true
				p := clients[n].next()
				var typed struct{ Type string }
				b, _ := jsonOf(tc.ev)
				_ = jsonUnmarshal(b, &typed)
				if p.Type() != typed.Type {
					t.Errorf("%s got %s, want %s", n, p.Type(), typed.Type)
				}
			}
			var others []*client
			for n, cl := range clients {
				if !want[n] {
					others = append(others, cl)
				}
			}
			nothingAll(t, others...)
		})
	}
}

// TestServerJoinAndLeave follows a server the user joins while connected
// and stops when they leave.
func TestServerJoinAndLeave(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			owner, _ := h.user("owner")
			me, token := h.user("me")
			s, general := h.server(owner.ID)
			cl, _ := h.connect(t, token, format)
			cl.expect("UserUpdate")
			message(h, general.ID, owner.ID, "before")
			cl.nothing()

			h.join(s.ID, me.ID)
			h.publish(chat.ServerCreateEvent{Type: chat.EvServerCreate, ID: s.ID, Server: s, Channels: []*chat.Channel{general}, Emojis: []*chat.Emoji{}}, event.Private(me.ID))
			cl.expect("ServerCreate")
			message(h, general.ID, owner.ID, "after")
			cl.expect("Message")
			h.publish(chat.ServerMemberJoinEvent{Type: chat.EvServerMemberJoin, ID: s.ID, User: owner.ID}, event.Of(s.ID))
			cl.expect("ServerMemberJoin")

			if err := h.store.DeleteMember(t.Context(), s.ID, me.ID); err != nil {
				t.Fatal(err)
			}
			h.publish(chat.ServerMemberLeaveEvent{Type: chat.EvServerMemberLeave, ID: s.ID, User: me.ID, Reason: chat.LeaveReasonKick}, event.Of(s.ID))
			cl.expect("ServerMemberLeave")
			message(h, general.ID, owner.ID, "gone")
			h.publish(chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: s.ID, Data: chat.Partial{"name": "x"}, Clear: []string{}}, event.Of(s.ID))
			cl.nothing()
		})
	}
}

// TestPrivateChannelsAndRelationships follows new DMs and groups, group
// members and related users.
func TestPrivateChannelsAndRelationships(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	me, token := h.user("me")
	other, _ := h.user("other")
	third, _ := h.user("third")
	cl, _ := h.connect(t, token, "json")
	cl.expect("UserUpdate")

	t.Run("relationship follows the other user", func(t *testing.T) {
		h.publish(chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: other.ID, Data: chat.Partial{"online": true}, Clear: []string{}}, event.Of(other.ID))
		cl.nothing()
		h.relate(me.ID, other.ID, chat.RelationOutgoing, chat.RelationIncoming)
		seen := *other
		seen.Relationship = chat.RelationOutgoing
		h.publish(chat.UserRelationshipEvent{Type: chat.EvUserRelationship, ID: me.ID, User: &seen, Status: chat.RelationOutgoing}, event.Private(me.ID))
		cl.expect("UserRelationship")
		h.publish(chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: other.ID, Data: chat.Partial{"online": true}, Clear: []string{}}, event.Of(other.ID))
		cl.expect("UserUpdate")
	})
	t.Run("relationship removed stops following", func(t *testing.T) {
		h.relate(me.ID, other.ID, chat.RelationNone, chat.RelationNone)
		seen := *other
		seen.Relationship = chat.RelationNone
		h.publish(chat.UserRelationshipEvent{Type: chat.EvUserRelationship, ID: me.ID, User: &seen, Status: chat.RelationNone}, event.Private(me.ID))
		cl.expect("UserRelationship")
		h.publish(chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: other.ID, Data: chat.Partial{"online": false}, Clear: []string{}}, event.Of(other.ID))
		cl.nothing()
	})
	group := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: "g", Owner: other.ID, Recipients: []chat.ID{other.ID, me.ID}}
	t.Run("new group followed", func(t *testing.T) {
		if err := h.store.InsertChannel(t.Context(), group); err != nil {
			t.Fatal(err)
		}
		h.publish(chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: group}, event.Private(me.ID))
		cl.expect("ChannelCreate")
		message(h, group.ID, other.ID, "hello")
		cl.expect("Message")
		h.publish(chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: other.ID, Data: chat.Partial{"online": true}, Clear: []string{}}, event.Of(other.ID))
		cl.expect("UserUpdate")
	})
	t.Run("group join follows the joiner", func(t *testing.T) {
		h.publish(chat.ChannelUserEvent{Type: chat.EvChannelGroupJoin, ID: group.ID, User: third.ID}, event.Of(group.ID))
		cl.expect("ChannelGroupJoin")
		h.publish(chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: third.ID, Data: chat.Partial{"online": true}, Clear: []string{}}, event.Of(third.ID))
		cl.expect("UserUpdate")
	})
	t.Run("leaving the group", func(t *testing.T) {
		group.Recipients = []chat.ID{other.ID}
		if err := h.store.UpdateChannel(t.Context(), group); err != nil {
			t.Fatal(err)
		}
		h.publish(chat.ChannelUserEvent{Type: chat.EvChannelGroupLeave, ID: group.ID, User: me.ID}, event.Of(group.ID))
		cl.expect("ChannelGroupLeave")
		message(h, group.ID, other.ID, "bye")
		cl.nothing()
	})
}

// TestSessionEvents forwards Auth events to the user's other sessions
// and logs out the sessions they delete.
func TestSessionEvents(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			me, tokenA := h.user("me")
			tokenB := h.session(me.ID)
			tokenC := h.session(me.ID)
			a, _ := h.connect(t, tokenA, format)
			a.expect("UserUpdate")
			b, _ := h.connect(t, tokenB, format)
			c, _ := h.connect(t, tokenC, format)

			h.publish(chat.AuthEvent{Type: chat.EvAuth, EventType: chat.AuthDeleteSession, UserID: me.ID, SessionID: h.sessionOf(tokenA).ID}, event.Private(me.ID))
			a.expect("Logout")
			a.mustCloseWith(websocket.StatusNormalClosure)
			for _, cl := range []*client{b, c} {
				p := cl.expect("Auth")
				if str(p, "event_type") != chat.AuthDeleteSession {
					t.Errorf("got %v", p)
				}
			}

			keep := h.sessionOf(tokenB).ID
			h.publish(chat.AuthEvent{Type: chat.EvAuth, EventType: chat.AuthDeleteAllSessions, UserID: me.ID, ExcludeSessionID: &keep}, event.Private(me.ID))
			c.expect("Logout")
			c.mustCloseWith(websocket.StatusNormalClosure)
			if p := b.expect("Auth"); str(p, "event_type") != chat.AuthDeleteAllSessions {
				t.Errorf("got %v", p)
			}
			b.send(map[string]any{"type": "Ping", "data": 1})
			b.expect("Pong")
		})
	}
}
