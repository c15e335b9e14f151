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

// FuzzReadIncoming checks, for any bus bytes, that readIncoming accepts
// exactly what it can route and reads what it says it read: bytes that are
// not an envelope are refused; a type routed on the topic alone passes
// through untouched with no meta; a routed type whose JSON is not valid is
// refused; an accepted routed frame has meta whose id is the event's
// "id" (or "_id") string; only a UserUpdate may carry an event id, and then
// the frame is still valid JSON whose event_id is null or unchanged, while
// every other frame is passed on byte for byte.
func FuzzReadIncoming(f *testing.F) {
	f.Add(encoded(f, chat.ChannelCreateEvent{Type: chat.EvChannelCreate, Channel: &chat.Channel{ID: "C"}}))
	f.Add(encoded(f, chat.ServerMemberUpdateEvent{Type: chat.EvServerMemberUpdate, ID: chat.MemberID{Server: "S", User: "U"}, Data: chat.Partial{"roles": []chat.ID{"R"}}, Clear: []string{}}))
	f.Add((&event.Frame{Type: chat.EvAuth, JSON: []byte(`{"type":"Auth","exclude_session_id":null}`)}).Marshal())
	f.Add((&event.Frame{Type: chat.EvUserUpdate, JSON: []byte(`{"event_id":"x","id":"U"}`), Msgpack: []byte{0x80}}).Marshal())
	f.Add((&event.Frame{Type: chat.EvChannelDelete, JSON: []byte(`{"id":5}`)}).Marshal())
	f.Add((&event.Frame{Type: chat.EvMessage, JSON: []byte(`not json`)}).Marshal())
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		in, ok := readIncoming(b)
		env, err := event.Unmarshal(b)
		if err != nil {
			if ok {
				t.Fatalf("accepted bytes that are not an envelope (%v)", err)
			}
			return
		}
		routed := routedByContent[env.Type]
		if !routed {
			if !ok || in.meta != nil || in.eventID != "" {
				t.Fatalf("type %q is routed on its topic alone: ok=%v", env.Type, ok)
			}
		}
		if routed && !json.Valid(env.JSON) && ok {
			t.Fatalf("accepted %s with invalid JSON %q", env.Type, env.JSON)
		}
		if !ok {
			return
		}
		if in.frame == nil || in.frame.Type != env.Type {
			t.Fatalf("frame = %+v, want type %q", in.frame, env.Type)
		}
		if routed {
			if in.meta == nil {
				t.Fatalf("routed type %q accepted without meta", env.Type)
			}
			var ids struct {
				ID      json.RawMessage `json:"id"`
				UnderID json.RawMessage `json:"_id"`
			}
			if json.Unmarshal(env.JSON, &ids) == nil {
				var want string
				switch {
				case json.Unmarshal(ids.ID, &want) == nil:
				case len(ids.ID) == 0 && json.Unmarshal(ids.UnderID, &want) == nil:
				default:
					want = string(in.meta.ID) // id absent, null or an object
				}
				if string(in.meta.ID) != want {
					t.Fatalf("meta id %q, want %q from %s", in.meta.ID, want, env.JSON)
				}
			}
		}
		if in.eventID == "" {
			if string(in.frame.JSON) != string(env.JSON) || string(in.frame.Msgpack) != string(env.Msgpack) {
				t.Fatal("a frame without an event id was changed")
			}
			return
		}
		if env.Type != chat.EvUserUpdate {
			t.Fatalf("event id read from a %s", env.Type)
		}
		var out struct {
			EventID *string `json:"event_id"`
		}
		if err := json.Unmarshal(in.frame.JSON, &out); err != nil {
			t.Fatalf("stripping the event id broke the JSON: %v\n%s", err, in.frame.JSON)
		}
		if out.EventID != nil && *out.EventID != in.eventID {
			t.Fatalf("event_id became %q (was %q)", *out.EventID, in.eventID)
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
