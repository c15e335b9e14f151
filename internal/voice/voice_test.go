package voice

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var testNodes = []Node{
	{Name: "eu", URL: "http://eu", PublicURL: "ws://eu", APIKey: "keyEU", APISecret: "secret-eu-secret-eu-secret-eu-secret"},
	{Name: "us", URL: "http://us", PublicURL: "ws://us", APIKey: "keyUS", APISecret: "secret-us-secret-us-secret-us-secret"},
}

func sign(t *testing.T, key, secret string, body []byte, exp time.Time) string {
	t.Helper()
	sum := sha256.Sum256(body)
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": key, "exp": exp.Unix(),
		"sha256": base64.StdEncoding.EncodeToString(sum[:])}).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestWebhook(t *testing.T) {
	l := New(testNodes, nil)
	body := []byte(`{"event":"track_published","id":"EV_1","createdAt":"1700000000","room":{"name":"ROOM"},` +
		`"participant":{"identity":"USER"},"track":{"type":"VIDEO","source":"SCREEN_SHARE","muted":true}}`)
	later := time.Now().Add(time.Minute)

	ev, err := l.Webhook(sign(t, "keyUS", testNodes[1].APISecret, body, later), body)
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Node: "us", Kind: "track_published", ID: "EV_1", At: time.Unix(1700000000, 0), Room: "ROOM", User: "USER",
		Track: Track{Type: "VIDEO", Source: SourceScreenShare, Muted: true}}
	if *ev != want {
		t.Errorf("event = %+v, want %+v", *ev, want)
	}

	for name, tc := range map[string]struct {
		auth string
		body []byte
	}{
		"unsigned":      {"", body},
		"garbage":       {"not-a-jwt", body},
		"unknown key":   {sign(t, "keyXX", testNodes[0].APISecret, body, later), body},
		"wrong secret":  {sign(t, "keyEU", testNodes[1].APISecret, body, later), body},
		"other body":    {sign(t, "keyEU", testNodes[0].APISecret, []byte(`{}`), later), body},
		"expired":       {sign(t, "keyEU", testNodes[0].APISecret, body, time.Now().Add(-time.Hour)), body},
		"no event name": {sign(t, "keyEU", testNodes[0].APISecret, []byte(`{"id":"x"}`), later), []byte(`{"id":"x"}`)},
	} {
		if _, err := l.Webhook(tc.auth, tc.body); err == nil {
			t.Errorf("%s: accepted", name)
		} else if name != "no event name" && !errors.Is(err, ErrUnsigned) && !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: error %v is neither ErrUnsigned nor ErrBadSignature", name, err)
		}
	}
}

func TestParseEventForms(t *testing.T) {
	// snake_case names and enum numbers, as protojson may also write them.
	ev, err := ParseEvent([]byte(`{"event":"track_unpublished","created_at":12,"room":{"name":"R"},` +
		`"participant":{"identity":"U"},"track":{"type":1,"source":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Track.Type != "VIDEO" || ev.Track.Source != SourceCamera || ev.At.Unix() != 12 {
		t.Errorf("event = %+v", ev)
	}
	// Defaults are omitted: an audio track of unknown source.
	ev, _ = ParseEvent([]byte(`{"event":"track_published","track":{}}`))
	if ev.Track.Type != "AUDIO" || ev.Track.Source != SourceUnknown {
		t.Errorf("defaults = %+v", ev.Track)
	}
}

func TestToken(t *testing.T) {
	l := New(testNodes, nil)
	tok, err := l.Token("eu", "ROOM", Participant{Identity: "U", Name: "u#0001", Metadata: "{}"},
		Grants{CanSubscribe: true}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := jwt.MapClaims{}
	if _, err := jwt.ParseWithClaims(tok, c, func(*jwt.Token) (any, error) { return []byte(testNodes[0].APISecret), nil }); err != nil {
		t.Fatal(err)
	}
	v := c["video"].(map[string]any)
	if c["iss"] != "keyEU" || c["sub"] != "U" || v["room"] != "ROOM" || v["canPublish"] != false || v["canSubscribe"] != true {
		t.Errorf("claims = %v", c)
	}
	if _, err := l.Token("mars", "ROOM", Participant{}, Grants{}, time.Second); err == nil {
		t.Error("token for an unknown node")
	}
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"event":"participant_joined","room":{"name":"R"},"participant":{"identity":"U"},"createdAt":"1"}`))
	f.Add([]byte(`{"event":"track_published","track":{"type":"DATA","source":3,"muted":false}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := ParseEvent(b)
		if err == nil && ev.Kind == "" {
			t.Errorf("event without a kind accepted: %q", b)
		}
	})
}
