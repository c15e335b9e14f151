package event_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
)

// TestEncodeJSONAsStandardLibrary checks that the JSON form Encode writes
// (with github.com/goccy/go-json) is byte for byte what encoding/json
// writes, for events that exercise what differs between encoders: HTML
// and line-separator escaping, invalid UTF-8, maps with unsorted keys,
// an embedded struct, Marshaler methods (timestamps, settings), empty
// and nil slices under omitempty and omitzero, numbers at the edges of
// float64 and int64.
func TestEncodeJSONAsStandardLibrary(t *testing.T) {
	text := "<b>a & b</b> \u2028 \u2029 \xff\xfe \"quoted\" \\ \t\n é 🦫"
	joined := chat.TimeFromMillis(1735787045678)
	nick := "nick<>"
	role := chat.ID("01ROLE")
	events := map[string]any{
		"message": chat.MessageEvent{Type: chat.EvMessage, Message: &chat.Message{ID: "M", Channel: "C", Author: "A", Content: &text,
			Mentions: []chat.ID{"U1", "U2"}}},
		"member": chat.ServerMemberJoinEvent{Type: chat.EvServerMemberJoin, ID: "S", User: "U",
			Member: &chat.Member{ID: chat.MemberID{Server: "S", User: "U"}, JoinedAt: joined, Nickname: &nick, Roles: []chat.ID{role}}},
		"server update": chat.ServerUpdateEvent{Type: chat.EvServerUpdate, ID: "S",
			Data:  chat.Partial{"name": text, "z": 1.5, "a": []any{nil, true, 1e21, 12345678901234567.0}, "m": map[string]any{"y": "<", "b": int64(-9007199254740993)}},
			Clear: []string{}},
		"user update": chat.UserUpdateEvent{Type: chat.EvUserUpdate, ID: "U", Data: chat.Partial{"online": true}},
		"ready, empty sections": chat.ReadyEvent{Type: chat.EvReady, Users: []*chat.User{}, Servers: []*chat.Server{}, Channels: []*chat.Channel{},
			Members: []*chat.Member{}, Emojis: []*chat.Emoji{}, UserSettings: map[string]chat.Setting{}},
		"ready, no sections": chat.ReadyEvent{Type: chat.EvReady},
		"ready": chat.ReadyEvent{Type: chat.EvReady,
			Servers:      []*chat.Server{{ID: "S", Owner: "U", Name: text, Channels: []chat.ID{"C2", "C1"}, Roles: map[chat.ID]chat.Role{"R2": {Name: "b"}, "R1": {Name: "a"}}, DefaultPermissions: 1 << 62}},
			Members:      []*chat.Member{{ID: chat.MemberID{Server: "S", User: "U"}, JoinedAt: joined}},
			UserSettings: map[string]chat.Setting{"z": {Timestamp: 2, Value: text}, "a": {Timestamp: 1, Value: "{}"}}},
	}
	for name, ev := range events {
		f, err := event.Encode("test", ev)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("%s: encoding/json: %v", name, err)
		}
		if !bytes.Equal(f.JSON, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, f.JSON, want)
		}
	}
}
