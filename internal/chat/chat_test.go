package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

func TestNewIDIsMonotonicULID(t *testing.T) {
	prev := NewID()
	for range 1000 {
		id := NewID()
		if !id.Valid() || id <= prev {
			t.Fatalf("id %s after %s: valid=%v", id, prev, id.Valid())
		}
		prev = id
	}
	if d := time.Since(prev.Time()); d < 0 || d > time.Minute {
		t.Errorf("id time off by %v", d)
	}
	for _, bad := range []ID{"", "x", "01ARZ3NDEKTSV4RRFFQ69G5FA", "01arz3ndektsv4rrffq69g5fav", "81ARZ3NDEKTSV4RRFFQ69G5FAV"} {
		if bad.Valid() {
			t.Errorf("%q is valid", bad)
		}
	}
	if !SystemID.Valid() {
		t.Error("system id invalid")
	}
}

func TestNewToken(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{64}$`)
	seen := map[string]bool{}
	for range 100 {
		tok := NewToken(64)
		if !re.MatchString(tok) || seen[tok] {
			t.Fatalf("token %q", tok)
		}
		seen[tok] = true
	}
	if len(NewToken(42)) != 42 {
		t.Error("length 42")
	}
}

func TestTimeJSON(t *testing.T) {
	ts := TimeFromMillis(1735787045678)
	b, err := json.Marshal(ts)
	if err != nil || string(b) != `"2025-01-02T03:04:05.678Z"` {
		t.Fatalf("marshal = %s %v", b, err)
	}
	zeroMs, _ := json.Marshal(TimeFromMillis(1735787045000))
	if string(zeroMs) != `"2025-01-02T03:04:05.000Z"` {
		t.Errorf("whole seconds = %s, want exactly three fraction digits", zeroMs)
	}
	for _, in := range []string{`"2025-01-02T03:04:05.678Z"`, `"2025-01-02T04:04:05.678+01:00"`, `1735787045678`} {
		var got Time
		if err := json.Unmarshal([]byte(in), &got); err != nil || !got.Equal(ts.Time) {
			t.Errorf("unmarshal %s = %v %v", in, got, err)
		}
	}
	for _, bad := range []string{`"yesterday"`, `true`, `1.5`} {
		var got Time
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("unmarshal %s succeeded", bad)
		}
	}
}

func TestErrorBody(t *testing.T) {
	b, _ := json.Marshal(ErrTooManyAttachments(5))
	if string(b) != `{"max":5,"type":"TooManyAttachments"}` {
		t.Errorf("body = %s", b)
	}
	b, _ = json.Marshal(ErrMissingPermission("SendMessage"))
	if string(b) != `{"permission":"SendMessage","type":"MissingPermission"}` {
		t.Errorf("body = %s", b)
	}
	wrapped := ErrNotFound.Wrap(errors.New("store: not found"))
	if !errors.Is(wrapped, ErrNotFound) || errors.Is(wrapped, ErrUnknownUser) {
		t.Error("Is compares by type")
	}
	b, _ = json.Marshal(wrapped)
	if string(b) != `{"type":"NotFound"}` {
		t.Errorf("cause leaked into body: %s", b)
	}
}

func TestChecks(t *testing.T) {
	if err := CheckLength("name", "ab", 2, 32); err != nil {
		t.Error(err)
	}
	if err := CheckLength("name", "ü", 2, 32); err == nil {
		t.Error("one character passed a minimum of 2")
	}
	if err := CheckLength("name", "üüü", 1, 3); err != nil {
		t.Errorf("characters, not bytes: %v", err)
	}
	err := CheckEnum("sort", "Up", "Latest", "Oldest")
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 422 {
		t.Errorf("enum error = %v", err)
	}
}

func TestCallStartedJSON(t *testing.T) {
	at := TimeOf(time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC))
	for _, c := range []struct {
		sys  SystemMessage
		want string
	}{
		{SystemMessage{Type: "call_started", By: "U1"}, `{"type":"call_started","by":"U1","finished_at":null}`},
		{SystemMessage{Type: "call_started", By: "U1", FinishedAt: &at}, `{"type":"call_started","by":"U1","finished_at":"2026-11-26T03:00:00.000Z"}`},
		{SystemMessage{Type: "user_joined", ID: "U1"}, `{"type":"user_joined","id":"U1"}`},
	} {
		b, err := json.Marshal(c.sys)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v = %s %v, want %s", c.sys, b, err, c.want)
		}
		var back SystemMessage
		if err := json.Unmarshal(b, &back); err != nil || back.Type != c.sys.Type || (back.FinishedAt == nil) != (c.sys.FinishedAt == nil) {
			t.Errorf("round trip of %s = %+v %v", b, back, err)
		}
	}
}

func TestCallStartedMsgpack(t *testing.T) {
	encode := func(v any) map[string]any {
		t.Helper()
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.SetCustomStructTag("json")
		enc.SetOmitEmpty(true)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := msgpack.Unmarshal(buf.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	m := encode(&Message{ID: "M1", System: &SystemMessage{Type: "call_started", By: "U1"}})
	sys, _ := m["system"].(map[string]any)
	if v, ok := sys["finished_at"]; !ok || v != nil || sys["by"] != "U1" || sys["type"] != "call_started" {
		t.Errorf("running call's system message = %v, want finished_at nil and by U1", sys)
	}
	if _, ok := encode(SystemMessage{Type: "user_joined", ID: "U1"})["finished_at"]; ok {
		t.Error("user_joined carries finished_at")
	}
	at := TimeOf(time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC))
	if encode(SystemMessage{Type: "call_started", By: "U1", FinishedAt: &at})["finished_at"] == nil {
		t.Error("ended call lost finished_at")
	}
}
