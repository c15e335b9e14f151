package revolt

import (
	"encoding/json"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"ermine/internal/chat"
)

// TestTimestamps checks every encoding the reference has written a
// timestamp in reads as the same instant.
func TestTimestamps(t *testing.T) {
	at := time.Date(2024, 10, 2, 8, 30, 0, 0, time.UTC)
	for name, v := range map[string]any{
		"int64 ms":   at.UnixMilli(),
		"BSON date":  bson.DateTime(at.UnixMilli()),
		"RFC 3339":   at.Format(time.RFC3339),
		"ISO millis": at.Format("2006-01-02T15:04:05.000Z"),
		"seconds":    int32(at.Unix()),
		"int64 s":    at.Unix(),
		"double ms":  float64(at.UnixMilli()),
	} {
		t.Run(name, func(t *testing.T) {
			doc, err := bson.Marshal(bson.D{{Key: "_id", Value: bson.D{{Key: "server", Value: "S"}, {Key: "user", Value: "U"}}}, {Key: "joined_at", Value: v}})
			if err != nil {
				t.Fatal(err)
			}
			m, err := convertMember(doc)
			if err != nil {
				t.Fatal(err)
			}
			if !m.JoinedAt.Equal(at) {
				t.Errorf("joined_at = %s, want %s", m.JoinedAt, at)
			}
		})
	}
	doc, _ := bson.Marshal(bson.D{{Key: "edited", Value: "yesterday"}})
	if _, err := toJSON(nil, doc); err == nil {
		t.Error("a timestamp that is no time was accepted")
	}
}

// TestToJSON checks values keep their meaning and text is escaped.
func TestToJSON(t *testing.T) {
	doc, err := bson.Marshal(bson.D{{Key: "s", Value: "a\"b\x00<"}, {Key: "n", Value: int64(1) << 53}, {Key: "f", Value: 1.5},
		{Key: "b", Value: true}, {Key: "z", Value: nil}, {Key: "a", Value: bson.A{int32(1), "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := toJSON(nil, doc)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if got["s"] != "a\"b\x00<" || got["n"] != float64(1<<53) || got["f"] != 1.5 || got["b"] != true || got["z"] != nil {
		t.Errorf("toJSON = %s", b)
	}
}

func TestLegacyVoiceChannel(t *testing.T) {
	doc, _ := bson.Marshal(bson.D{{Key: "channel_type", Value: "VoiceChannel"}, {Key: "_id", Value: "C"}, {Key: "server", Value: "S"}, {Key: "name", Value: "v"}})
	c, err := convertChannel(doc)
	if err != nil {
		t.Fatal(err)
	}
	if c.ChannelType != chat.ChannelText || c.Voice == nil {
		t.Errorf("legacy voice channel became %+v", c)
	}
	doc, _ = bson.Marshal(bson.D{{Key: "channel_type", Value: "Thread"}, {Key: "_id", Value: "C"}})
	if _, err := convertChannel(doc); err == nil {
		t.Error("an unknown channel type was accepted")
	}
}

func TestDecodeKey(t *testing.T) {
	if _, err := DecodeKey("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "short", "!!!!", "AAAAAAAAAAAAAAAAAAAAAA=="} {
		if _, err := DecodeKey(bad); err == nil {
			t.Errorf("DecodeKey(%q) accepted", bad)
		}
	}
}
