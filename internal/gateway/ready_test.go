package gateway_test

import (
	"testing"

	"ermine/internal/chat"
	"ermine/internal/gateway"
	"ermine/internal/perm"
)

// readyWorld is a user with a friend, a DM partner, a blocked-by user, a
// server with a visible and a hidden channel, an emoji and a setting.
type readyWorld struct {
	me, friend, partner, blocker, comember *chat.User
	token                                  string
	server                                 *chat.Server
	general, hidden                        *chat.Channel
	dm                                     *chat.Channel
}

func newReadyWorld(t *testing.T, h *harness) *readyWorld {
	t.Helper()
	ctx := t.Context()
	w := &readyWorld{}
	w.me, w.token = h.user("me")
	w.friend, _ = h.user("friend")
	w.partner, _ = h.user("partner")
	w.blocker, _ = h.user("blocker")
	w.comember, _ = h.user("comember")
	h.relate(w.me.ID, w.friend.ID, chat.RelationFriend, chat.RelationFriend)
	h.relate(w.me.ID, w.blocker.ID, chat.RelationBlockedOther, chat.RelationBlocked)
	active := true
	w.dm = &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: chat.NewID(), Active: &active, Recipients: []chat.ID{w.me.ID, w.partner.ID}}
	if err := h.store.InsertChannel(ctx, w.dm); err != nil {
		t.Fatal(err)
	}
	w.server, w.general = h.server(w.comember.ID)
	w.hidden = h.channel(w.server, "hidden", &chat.Override{D: int64(perm.ViewChannel)})
	h.join(w.server.ID, w.me.ID)
	if err := h.store.InsertEmoji(ctx, &chat.Emoji{ID: chat.NewID(), Parent: chat.EmojiParent{Type: "Server", ID: w.server.ID}, CreatorID: w.comember.ID, Name: "wave"}); err != nil {
		t.Fatal(err)
	}
	if err := h.store.SetSettings(ctx, w.me.ID, map[string]chat.Setting{"ordering": {Timestamp: 5, Value: "{}"}}); err != nil {
		t.Fatal(err)
	}
	return w
}

func ids(l []any, key string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, v := range l {
		m := v.(map[string]any)
		if key == "" {
			out[str(m, "_id")] = m
			continue
		}
		out[str(m, "_id", key)] = m
	}
	return out
}

func TestReadyContents(t *testing.T) {
	t.Parallel()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t, gateway.Options{})
			w := newReadyWorld(t, h)
			_, ready := h.connect(t, w.token, format)

			for _, key := range []string{"users", "servers", "channels", "members", "emojis", "voice_states", "policy_changes"} {
				if _, ok := ready[key].([]any); !ok {
					t.Errorf("%s = %#v, want an array", key, ready[key])
				}
			}
			for _, key := range []string{"channel_unreads", "user_settings"} {
				if _, ok := ready[key]; ok {
					t.Errorf("%s sent without being asked for", key)
				}
			}

			users := list(ready, "users")
			last := users[len(users)-1].(map[string]any)
			if str(last, "_id") != string(w.me.ID) || str(last, "relationship") != "User" || last["online"] != true {
				t.Errorf("own user (last) = %v", last)
			}
			if rel := list(last, "relations"); len(rel) != 2 {
				t.Errorf("own relations = %v", rel)
			}
			byID := ids(users, "")
			for _, tc := range []struct {
				user *chat.User
				rel  string
			}{{w.friend, "Friend"}, {w.partner, "None"}, {w.blocker, "BlockedOther"}} {
				u, ok := byID[string(tc.user.ID)]
				if !ok {
					t.Errorf("%s missing from users", tc.user.Username)
					continue
				}
				if str(u, "relationship") != tc.rel {
					t.Errorf("%s relationship = %v, want %s", tc.user.Username, u["relationship"], tc.rel)
				}
				if _, ok := u["relations"]; ok {
					t.Errorf("%s carries relations", tc.user.Username)
				}
			}
			if _, ok := byID[string(w.comember.ID)]; ok {
				t.Error("server co-member listed in users")
			}

			if s := list(ready, "servers"); len(s) != 1 || str(s[0].(map[string]any), "_id") != string(w.server.ID) {
				t.Errorf("servers = %v", s)
			}
			channels := ids(list(ready, "channels"), "")
			if _, ok := channels[string(w.general.ID)]; !ok {
				t.Error("visible channel missing")
			}
			if _, ok := channels[string(w.dm.ID)]; !ok {
				t.Error("direct message missing")
			}
			if _, ok := channels[string(w.hidden.ID)]; ok {
				t.Error("hidden channel sent")
			}
			members := list(ready, "members")
			if len(members) != 1 || str(members[0].(map[string]any), "_id", "user") != string(w.me.ID) {
				t.Errorf("members = %v, want only the user's own", members)
			}
			joined := members[0].(map[string]any)["joined_at"]
			switch format {
			case "json":
				if s, ok := joined.(string); !ok || len(s) != len("2025-01-02T03:04:05.678Z") {
					t.Errorf("json joined_at = %#v", joined)
				}
			case "msgpack":
				switch joined.(type) {
				case int64, uint64, int32, uint32:
				default:
					t.Errorf("msgpack joined_at = %#v, want integer milliseconds", joined)
				}
			}
			if e := list(ready, "emojis"); len(e) != 1 {
				t.Errorf("emojis = %v", e)
			}
		})
	}
}

func TestReadySections(t *testing.T) {
	t.Parallel()
	h := newHarness(t, gateway.Options{})
	w := newReadyWorld(t, h)
	for _, tc := range []struct {
		name  string
		query []string
		want  []string
	}{
		{"users only", []string{"ready", "users"}, []string{"users"}},
		{"unreads and settings", []string{"ready", "channel_unreads", "ready", "user_settings[ordering]"}, []string{"channel_unreads", "user_settings"}},
		{"comma list", []string{"ready", "servers,emojis"}, []string{"servers", "emojis"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ready := h.connect(t, w.token, "json", tc.query...)
			got := map[string]bool{}
			for k := range ready {
				if k != "type" {
					got[k] = true
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("sections = %v, want %v", got, tc.want)
			}
			for _, k := range tc.want {
				if !got[k] {
					t.Errorf("section %s missing: %v", k, ready)
				}
			}
			if s, ok := ready["user_settings"].(map[string]any); ok {
				pair, _ := s["ordering"].([]any)
				if len(pair) != 2 || pair[1] != "{}" {
					t.Errorf("user_settings = %v", s)
				}
			}
			if u, ok := ready["channel_unreads"]; ok {
				if _, isArray := u.([]any); !isArray {
					t.Errorf("channel_unreads = %#v", u)
				}
			}
		})
	}
}
