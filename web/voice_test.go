package web_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// livekitBinary is livekit-server: $ERMINE_TEST_LIVEKIT, else where
// scripts/livekit.sh builds it. Without it the test skips, or fails in CI.
func livekitBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("ERMINE_TEST_LIVEKIT")
	if bin == "" {
		home, _ := os.UserHomeDir()
		bin = filepath.Join(home, ".cache", "ermine", "livekit-server-v1.13.5", "livekit-server")
	}
	_, err := os.Stat(bin)
	need(t, err == nil, "livekit-server not found at %s (build it with `make livekit` or set ERMINE_TEST_LIVEKIT)", bin)
	return bin
}

// freePort is a loopback port free at the time of asking.
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

// TestVoice presses the voice join button in Chromium against a real
// LiveKit server (e2e/voice.mjs): the client gets a token from Ermine,
// connects with LiveKit's JS client and publishes Chromium's fake
// microphone; LiveKit's webhooks reach Ermine, whose VoiceChannelJoin and
// VoiceChannelLeave reach another member's events socket.
func TestVoice(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the voice test builds Ermine and runs LiveKit and Chromium")
	}
	bin := node(t, "playwright-core", "livekit-client")
	_, err := os.Stat(chromiumPath)
	need(t, err == nil, "%s is missing: apt-get install chromium to run the end-to-end test", chromiumPath)
	lk := livekitBinary(t)

	const key, secret = "APIermine", "ermine-web-voice-secret-of-enough-length"
	port, rtcTCP, rtcUDP := freePort(t, "tcp"), freePort(t, "tcp"), freePort(t, "udp")
	lkURL := fmt.Sprintf("http://127.0.0.1:%d", port)
	url := startErmine(t, buildErmine(t), "ERMINE_LIMITS_RATE_LIMITS=false",
		"ERMINE_VOICE_ENABLED=true", "ERMINE_VOICE_NODES_0_NAME=local", "ERMINE_VOICE_NODES_0_URL="+lkURL,
		fmt.Sprintf("ERMINE_VOICE_NODES_0_PUBLIC_URL=ws://127.0.0.1:%d", port),
		"ERMINE_VOICE_NODES_0_API_KEY="+key, "ERMINE_VOICE_NODES_0_API_SECRET="+secret)

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
  urls: ["%s/voice/livekit"]
logging:
  level: warn
`, port, rtcTCP, rtcUDP, key, secret, key, url)
	cfg := filepath.Join(t.TempDir(), "livekit.yaml")
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(lk, "--config", cfg)
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
	for deadline := time.Now().Add(60 * time.Second); ; {
		res, err := http.Get(lkURL) //nolint:noctx // a readiness poll
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("livekit-server did not answer on %s: %v", lkURL, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	runScript(t, bin, url, "voice.mjs", "passed", "LIVEKIT_URL="+lkURL)
}
