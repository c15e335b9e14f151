// Package voicetest runs a real livekit-server for tests: the binary
// scripts/livekit.sh builds (or $ERMINE_TEST_LIVEKIT), on free loopback
// ports, with a key pair and its webhooks pointed at an Ermine.
package voicetest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Key and Secret are the API key pair the server is started with.
const (
	Key    = "APIermine"
	Secret = "ermine-integration-secret-of-enough-length"
)

// LiveKit is one livekit-server of a test: New picks its ports, so that
// an Ermine can be configured with URL before Start points the server's
// webhooks at that Ermine.
type LiveKit struct {
	URL       string // its API, http://127.0.0.1:port
	PublicURL string // where clients connect, ws://127.0.0.1:port

	bin                  string
	port, rtcTCP, rtcUDP int
}

// Binary is livekit-server's path: $ERMINE_TEST_LIVEKIT, else the cache
// scripts/livekit.sh builds into. Without it the test skips, or fails
// when CI is set.
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("ERMINE_TEST_LIVEKIT")
	if bin == "" {
		home, _ := os.UserHomeDir()
		bin = filepath.Join(home, ".cache", "ermine", "livekit-server-v1.13.5", "livekit-server")
	}
	if _, err := os.Stat(bin); err != nil {
		msg := fmt.Sprintf("livekit-server not found at %s (build it with `make livekit` or set ERMINE_TEST_LIVEKIT)", bin)
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set, so the voice tests must run)")
		}
		t.Skip(msg)
	}
	return bin
}

// New finds the binary and picks the server's ports.
func New(t testing.TB) *LiveKit {
	t.Helper()
	lk := &LiveKit{bin: Binary(t), port: FreePort(t, "tcp"), rtcTCP: FreePort(t, "tcp"), rtcUDP: FreePort(t, "udp")}
	lk.URL = fmt.Sprintf("http://127.0.0.1:%d", lk.port)
	lk.PublicURL = fmt.Sprintf("ws://127.0.0.1:%d", lk.port)
	return lk
}

// Start runs the server, its webhooks sent to webhookURL, and returns once
// it answers; the test's end stops it (printing its output on failure).
func (lk *LiveKit) Start(t testing.TB, webhookURL string) {
	t.Helper()
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
  urls: [%q]
logging:
  level: warn
`, lk.port, lk.rtcTCP, lk.rtcUDP, Key, Secret, Key, webhookURL)
	cfg := filepath.Join(t.TempDir(), "livekit.yaml")
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	cmd := exec.Command(lk.bin, "--config", cfg)
	cmd.Stdout, cmd.Stderr = logs, logs
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
		res, err := http.Get(lk.URL) //nolint:noctx // a readiness poll
		if err == nil {
			res.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("livekit-server did not answer on %s: %v", lk.URL, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// FreePort is a loopback port ("tcp" or "udp") free at the time of asking.
func FreePort(t testing.TB, network string) int {
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

// lockedBuffer collects the server's output, written from its pipes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
