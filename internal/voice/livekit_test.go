package voice_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
)

// livekitBinary finds livekit-server: $ERMINE_TEST_LIVEKIT, else the
// cache scripts/livekit.sh builds into. Without it the test skips, or
// fails under CI.
func livekitBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("ERMINE_TEST_LIVEKIT")
	if bin == "" {
		home, _ := os.UserHomeDir()
		bin = filepath.Join(home, ".cache", "ermine", "livekit-server-v1.13.5", "livekit-server")
	}
	if _, err := os.Stat(bin); err != nil {
		msg := fmt.Sprintf("livekit-server not found at %s (build it with scripts/livekit.sh or set ERMINE_TEST_LIVEKIT)", bin)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

func freePort(t *testing.T, network string) int {
	t.Helper()
	if network == "udp" {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).Port
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

const (
	lkKey    = "APIermine"
	lkSecret = "ermine-integration-secret-of-enough-length"
)

// TestLiveKit joins a call through Ermine, connects to a real LiveKit
// server with the token as a participant, publishes audio and watches
// the voice events arrive on an Ermine WebSocket.
func TestLiveKit(t *testing.T) {
	bin := livekitBinary(t)
	port, rtcTCP, rtcUDP := freePort(t, "tcp"), freePort(t, "tcp"), freePort(t, "udp")
	lkURL := fmt.Sprintf("http://127.0.0.1:%d", port)

	h := apitest.Start(t, func(c *config.Config) {
		c.Limits.RateLimits = false
		c.Voice.Enabled = true
		c.Voice.Nodes = []config.VoiceNode{{Name: "local", URL: lkURL, PublicURL: fmt.Sprintf("ws://127.0.0.1:%d", port),
			APIKey: lkKey, APISecret: lkSecret}}
	})

	conf := fmt.Sprintf(`port: %d
bind_addresses: ["127.0.0.1"]
rtc:
  tcp_port: %d
  udp_port: %d
  use_external_ip: false
  enable_loopback_candidate: true
keys:
  %s: %s
webhook:
  api_key: %s
  urls: ["%s%s"]
logging:
  level: warn
`, port, rtcTCP, rtcUDP, lkKey, lkSecret, lkKey, h.URL, api.VoiceWebhookPath)
	cfgPath := filepath.Join(t.TempDir(), "livekit.yaml")
	if err := os.WriteFile(cfgPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--config", cfgPath)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("livekit-server output:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get(lkURL)
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("livekit-server did not answer on %s: %v", lkURL, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

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
	if _, err := jwt.ParseWithClaims(gt.Token, claims, func(*jwt.Token) (any, error) { return []byte(lkSecret), nil }); err != nil {
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
