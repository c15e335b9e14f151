package voice_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"
	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"

	"ermine/internal/api"
	"ermine/internal/apitest"
	"ermine/internal/config"
	"ermine/internal/perm"
	"ermine/internal/voice/voicetest"
)

// TestLiveKit joins a call through Ermine, connects to a real LiveKit
// server with the token as a participant, publishes audio and watches
// the voice events arrive on an Ermine WebSocket.
func TestLiveKit(t *testing.T) {
	lk := voicetest.New(t)
	h := apitest.Start(t, func(c *config.Config) {
		c.Limits.RateLimits = false
		c.Voice.Enabled = true
		c.Voice.Nodes = []config.VoiceNode{{Name: "local", URL: lk.URL, PublicURL: lk.PublicURL,
			APIKey: voicetest.Key, APISecret: voicetest.Secret}}
	})
	lk.Start(t, h.URL+api.VoiceWebhookPath)

	owner, guest := h.NewUser("speaker"), h.NewUser("listener")
	var created struct {
		Server struct {
			ID string `json:"_id"`
		} `json:"server"`
	}
	do(t, h, owner, http.MethodPost, "/servers/create", map[string]any{"name": "Stage"}, &created)
	sid := created.Server.ID
	var vc struct {
		ID string `json:"_id"`
	}
	do(t, h, owner, http.MethodPost, "/servers/"+sid+"/channels", map[string]any{"name": "Voice", "type": "Voice"}, &vc)
	var inv struct {
		ID string `json:"_id"`
	}
	do(t, h, owner, http.MethodPost, "/channels/"+vc.ID+"/invites", nil, &inv)
	do(t, h, guest, http.MethodPost, "/invites/"+inv.ID, nil, nil)

	ws := connect(t, h, owner)

	var tok struct{ Token, URL string }
	do(t, h, owner, http.MethodPost, "/channels/"+vc.ID+"/join_call", map[string]any{"node": "local"}, &tok)
	room, err := lksdk.ConnectToRoomWithToken(tok.URL, tok.Token, &lksdk.RoomCallback{},
		lksdk.WithAutoSubscribe(false), lksdk.WithConnectTimeout(30*time.Second))
	if err != nil {
		t.Fatalf("connect to LiveKit: %v", err)
	}
	disconnected := false
	t.Cleanup(func() {
		if !disconnected {
			room.Disconnect()
		}
	})
	join := ws.waitFor(t, "VoiceChannelJoin", func(p map[string]any) bool { return p["id"] == vc.ID })
	if st := join["state"].(map[string]any); st["id"] != string(owner.ID) {
		t.Errorf("VoiceChannelJoin = %v", join)
	}

	track, err := lksdk.NewLocalSampleTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := room.LocalParticipant.PublishTrack(track, &lksdk.TrackPublicationOptions{Name: "mic",
		Source: livekit.TrackSource_MICROPHONE}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // 20 ms frames of Opus silence, for at most a minute
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range 3000 {
			select {
			case <-stop:
				return
			case <-tick.C:
				_ = track.WriteSample(media.Sample{Data: []byte{0xf8, 0xff, 0xfe}, Duration: 20 * time.Millisecond}, nil)
			}
		}
	}()
	upd := ws.waitFor(t, "UserVoiceStateUpdate", func(p map[string]any) bool {
		d, _ := p["data"].(map[string]any)
		return p["id"] == string(owner.ID) && p["channel_id"] == vc.ID && d["is_publishing"] == true
	})
	_ = upd
	close(stop)
	<-done

	room.Disconnect()
	disconnected = true
	ws.waitFor(t, "VoiceChannelLeave", func(p map[string]any) bool { return p["id"] == vc.ID && p["user"] == string(owner.ID) })

	// Without Speak the token may not publish the microphone.
	do(t, h, owner, http.MethodPut, "/channels/"+vc.ID+"/permissions/default",
		map[string]any{"permissions": map[string]any{"allow": 0, "deny": uint64(perm.Speak)}}, nil)
	var gt struct{ Token, URL string }
	do(t, h, guest, http.MethodPost, "/channels/"+vc.ID+"/join_call", map[string]any{}, &gt)
	claims := jwt.MapClaims{}
	if _, err := jwt.ParseWithClaims(gt.Token, claims, func(*jwt.Token) (any, error) { return []byte(voicetest.Secret), nil }); err != nil {
		t.Fatal(err)
	}
	video := claims["video"].(map[string]any)
	src, _ := video["canPublishSources"].([]any)
	if slices.Contains(src, any("microphone")) {
		t.Errorf("token without Speak may publish the microphone: %v", video)
	}
	if video["canSubscribe"] != true {
		t.Errorf("token without Speak may not listen: %v", video)
	}
}

// do sends an API request as u and decodes a 2xx answer into out.
func do(t *testing.T, h *apitest.Harness, u *apitest.User, method, path string, body, out any) {
	t.Helper()
	res := h.Do(apitest.Request{Method: method, Path: path, Session: u.Token, Body: body})
	if res.Status/100 != 2 {
		t.Fatalf("%s %s = %d %s", method, path, res.Status, res.Body)
	}
	if out != nil {
		res.JSON(t, out)
	}
}

type socket struct {
	c       *websocket.Conn
	packets chan map[string]any
}

// connect opens an events WebSocket as u and reads past Ready.
func connect(t *testing.T, h *apitest.Harness, u *apitest.User) *socket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	q := url.Values{"version": {"1"}, "format": {"json"}, "token": {u.Token}}
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.URL, "http")+"/events?"+q.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		t.Fatalf("dial events: %v", err)
	}
	c.SetReadLimit(8 << 20)
	s := &socket{c: c, packets: make(chan map[string]any, 256)}
	go func() {
		defer close(s.packets)
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			var p map[string]any
			if json.Unmarshal(b, &p) == nil {
				s.packets <- p
			}
		}
	}()
	t.Cleanup(func() { c.Close(websocket.StatusNormalClosure, "") })
	s.waitFor(t, "Ready", func(map[string]any) bool { return true })
	return s
}

// waitFor skips packets until one of type typ matching ok arrives.
func (s *socket) waitFor(t *testing.T, typ string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	var seen []string
	deadline := time.After(45 * time.Second)
	for {
		select {
		case p, open := <-s.packets:
			if !open {
				t.Fatalf("events connection closed waiting for %s; saw %v", typ, seen)
			}
			if p["type"] == typ && ok(p) {
				return p
			}
			seen = append(seen, fmt.Sprint(p["type"]))
		case <-deadline:
			t.Fatalf("no %s within 45s; saw %v", typ, seen)
		}
	}
}
