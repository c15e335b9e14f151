package gateway

import (
	"encoding/json"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/event"
)

func encoded(t testing.TB, ev any) []byte {
	t.Helper()
	var typed struct{ Type string }
	b, _ := json.Marshal(ev)
	_ = json.Unmarshal(b, &typed)
	f, err := event.Encode(typed.Type, ev)
	if err != nil {
		t.Fatal(err)
	}
	return f.Marshal()
}

func TestReadIncoming(t *testing.T) {
	id := "01JGF0000000000000000000AA"
	s := &chat.Server{ID: "S", Owner: "O", Name: "n"}
	tests := []struct {
		name  string
		ev    any
		check func(*testing.T, *incoming)
	}{
		{"ServerCreate carries a server object", chat.ServerCreateEvent{Type: chat.EvServerCreate, ID: "S", Server: s, Channels: []*chat.Channel{}}, func(t *testing.T, in *incoming) {
			if in.meta.ID != "S" || in.meta.Server != "" {
				t.Errorf("meta = %+v", in.meta)
			}
		}},
		{"ChannelCreate", chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: &chat.Channel{ChannelType: chat.ChannelText, ID: "C", Server: "S"}}, func(t *testing.T, in *incoming) {
			if in.meta.ID != "C" || in.meta.Server != "S" || in.meta.ChannelType != chat.ChannelText {
				t.Errorf("meta = %+v", in.meta)
			}
		}},
		{"ServerMemberUpdate id object", chat.ServerMemberUpdateEvent{Type: chat.EvServerMemberUpdate, ID: chat.MemberID{Server: "S", User: "U"}, Data: chat.Partial{"roles": []chat.ID{"R"}}, Clear: []string{}}, func(t *testing.T, in *incoming) {
			if in.meta.Member.User != "U" || !in.meta.has("roles") {
				t.Errorf("meta = %+v", in.meta)
			}
		}},
		{"UserRelationship user object", chat.UserRelationshipEvent{Type: chat.EvUserRelationship, ID: "A", User: &chat.User{ID: "B", Relationship: chat.RelationFriend}, Status: chat.RelationFriend}, func(t *testing.T, in *incoming) {
			if in.meta.User != "B" || in.meta.Status != chat.RelationFriend {
				t.Errorf("meta = %+v", in.meta)
			}
		}},
		{"UserUpdate event id stripped", chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: "U", Data: chat.Partial{"online": true}, Clear: []string{}, EventID: &id}, func(t *testing.T, in *incoming) {
			if in.eventID != id {
				t.Errorf("event id = %q", in.eventID)
			}
			var j map[string]any
			if err := json.Unmarshal(in.frame.JSON, &j); err != nil || j["event_id"] != nil {
				t.Errorf("json = %s", in.frame.JSON)
			}
			var m map[string]any
			if err := msgpack.Unmarshal(in.frame.Msgpack, &m); err != nil || m["event_id"] != nil || m["id"] != "U" {
				t.Errorf("msgpack = %v (%v)", m, err)
			}
		}},
		{"Message needs no decoding", chat.MessageEvent{Type: chat.EvMessage, Message: &chat.Message{ID: "M"}}, func(t *testing.T, in *incoming) {
			if in.meta != nil {
				t.Errorf("meta = %+v", in.meta)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, ok := readIncoming(encoded(t, tc.ev))
			if !ok {
				t.Fatal("not routable")
			}
			tc.check(t, in)
		})
	}
}

func FuzzReadIncoming(f *testing.F) {
	f.Add(encoded(f, chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: &chat.Channel{ID: "C"}}))
	f.Add((&event.Frame{Type: chat.EvAuth, JSON: []byte(`{"type":"Auth","exclude_session_id":null}`)}).Marshal())
	f.Add((&event.Frame{Type: chat.EvUserUpdate, JSON: []byte(`{"event_id":"x"}`), Msgpack: []byte{0x80}}).Marshal())
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		in, ok := readIncoming(b)
		if ok && in.frame == nil {
			t.Fatal("routable without a frame")
		}
	})
}

func TestReadySections(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want func(s app.ReadySections) bool
	}{
		{"none means defaults", nil, func(s app.ReadySections) bool {
			return s.Users && s.VoiceStates && s.PolicyChanges && !s.ChannelUnreads && s.UserSettings == nil
		}},
		{"named only", []string{"users", "bogus"}, func(s app.ReadySections) bool { return s.Users && !s.Servers }},
		{"all settings", []string{"user_settings"}, func(s app.ReadySections) bool { return s.UserSettings != nil && len(s.UserSettings) == 0 }},
		{"settings keys", []string{"user_settings[a],user_settings[b]"}, func(s app.ReadySections) bool { return len(s.UserSettings) == 2 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if s := readySections(tc.in); !tc.want(s) {
				t.Errorf("readySections(%q) = %+v", tc.in, s)
			}
		})
	}
}
