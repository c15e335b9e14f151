package event_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/pubsub"
)

func TestEncodeTimestamps(t *testing.T) {
	joined := chat.TimeFromMillis(1735787045678)
	ev := chat.ServerMemberJoinEvent{Type: chat.EvServerMemberJoin, ID: "S", User: "U",
		Member: &chat.Member{ID: chat.MemberID{Server: "S", User: "U"}, JoinedAt: joined}}
	f, err := event.Encode(ev.Type, ev)
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal(f.JSON, &j); err != nil {
		t.Fatal(err)
	}
	if got := j["member"].(map[string]any)["joined_at"]; got != "2025-01-02T03:04:05.678Z" {
		t.Errorf("json joined_at = %v", got)
	}
	var m map[string]any
	if err := msgpack.Unmarshal(f.Msgpack, &m); err != nil {
		t.Fatal(err)
	}
	member := m["member"].(map[string]any)
	// Positive integers are written in their compact unsigned form, as the
	// reference server's encoder does; msgpack clients read them as int64.
	if got, ok := member["joined_at"].(uint64); !ok || got != 1735787045678 {
		t.Errorf("msgpack joined_at = %#v, want integer ms", member["joined_at"])
	}
	if _, ok := member["nickname"]; ok {
		t.Error("msgpack kept an empty omitempty field")
	}
	if m["type"] != "ServerMemberJoin" {
		t.Errorf("msgpack type = %v", m["type"])
	}
}

func TestEncodeEmbeddedAndError(t *testing.T) {
	msg := &chat.Message{ID: "M", Channel: "C", Author: "A", Content: new(string)}
	*msg.Content = "hi"
	f, err := event.Encode(chat.EvMessage, chat.MessageEvent{Type: chat.EvMessage, Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := msgpack.Unmarshal(f.Msgpack, &m); err != nil {
		t.Fatal(err)
	}
	if m["_id"] != "M" || m["content"] != "hi" || m["type"] != "Message" {
		t.Errorf("embedded message not inlined: %v", m)
	}
	f, err = event.Encode(chat.EvError, chat.ErrorEvent{Type: chat.EvError, Data: chat.ErrInvalidSession})
	if err != nil {
		t.Fatal(err)
	}
	if string(f.JSON) != `{"type":"Error","data":{"type":"InvalidSession"}}` {
		t.Errorf("json = %s", f.JSON)
	}
	m = nil
	if err := msgpack.Unmarshal(f.Msgpack, &m); err != nil {
		t.Fatal(err)
	}
	if m["data"].(map[string]any)["type"] != "InvalidSession" {
		t.Errorf("msgpack error = %v", m)
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	f := &event.Frame{Type: "Message", JSON: []byte(`{"type":"Message"}`), Msgpack: []byte{0x81, 0xa1, 'a', 1}}
	got, err := event.Unmarshal(f.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != f.Type || !bytes.Equal(got.JSON, f.JSON) || !bytes.Equal(got.Msgpack, f.Msgpack) {
		t.Fatalf("round trip = %+v", got)
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add((&event.Frame{Type: "Ready", JSON: []byte("{}"), Msgpack: []byte{0x80}}).Marshal())
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := event.Unmarshal(b)
		if err != nil {
			return
		}
		again, err := event.Unmarshal(fr.Marshal())
		if err != nil || again.Type != fr.Type || !bytes.Equal(again.JSON, fr.JSON) || !bytes.Equal(again.Msgpack, fr.Msgpack) {
			t.Fatalf("re-marshal differs: %v", err)
		}
	})
}

func TestTopics(t *testing.T) {
	id := chat.NewID()
	tests := []struct {
		topic string
		kind  event.Kind
	}{
		{event.Of(id), event.KindOf},
		{event.Private(id), event.KindPrivate},
		{event.Members(id), event.KindMembers},
		{event.Resume(string(id)), event.KindResume},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		if seen[tc.topic] {
			t.Errorf("two kinds share the topic %q", tc.topic)
		}
		seen[tc.topic] = true
		kind, got := event.Parse(tc.topic)
		if kind != tc.kind || got != id {
			t.Errorf("Parse(%q) = %v, %q; want %v, %q", tc.topic, kind, got, tc.kind, id)
		}
	}
	if kind, got := event.Parse(event.Access()); kind != event.KindAccess || got != "" || seen[event.Access()] {
		t.Errorf("Parse(%q) = %v, %q; want the access kind, no id", event.Access(), kind, got)
	}
	if !pubsub.ValidTopic(event.Access()) {
		t.Errorf("%q is not a valid topic", event.Access())
	}
}
