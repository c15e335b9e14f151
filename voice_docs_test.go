package ermine

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"ermine/internal/voice/voicetest"
)

// TestLiveKitLoopbackConfig starts livekit-server with the livekit.yaml
// of docs/voice.md (its ports moved to free ones) and requires every
// socket the process listens on to be bound to 127.0.0.1.
func TestLiveKitLoopbackConfig(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("lists sockets through /proc")
	}
	bin := voicetest.Binary(t)
	doc, err := os.ReadFile("docs/voice.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## LiveKit on loopback\n")
	if !ok {
		t.Fatal("docs/voice.md has no LiveKit on loopback section")
	}
	_, block, ok := strings.Cut(after, "```yaml\n")
	if !ok {
		t.Fatal("no yaml block in the LiveKit on loopback section")
	}
	block, _, _ = strings.Cut(block, "```")
	for _, want := range []string{"port: 7880", "udp_port: 7882", "127.0.0.1:14702"} {
		if !strings.Contains(block, want) {
			t.Fatalf("the documented livekit.yaml has no %q", want)
		}
	}
	port, udp := voicetest.FreePort(t, "tcp"), voicetest.FreePort(t, "udp")
	conf := strings.NewReplacer("port: 7880", fmt.Sprintf("port: %d", port),
		"udp_port: 7882", fmt.Sprintf("udp_port: %d", udp)).Replace(block)
	cfg := filepath.Join(t.TempDir(), "livekit.yaml")
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", cfg)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("livekit-server output:\n%s", out.String())
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; {
		res, err := http.Get(url) //nolint:noctx // a readiness poll
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("livekit-server did not answer on %s: %v", url, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Its sockets settle once it answers; look twice, a moment apart.
	var socks []procSocket
	for range 2 {
		socks = listening(t, cmd.Process.Pid)
		time.Sleep(time.Second)
	}
	sawTCP, sawUDP := false, false
	for _, s := range socks {
		t.Logf("%s %s", s.proto, s.addr)
		if !s.addr.IP.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Errorf("livekit-server listens on %s %s, beyond loopback", s.proto, s.addr)
		}
		sawTCP = sawTCP || (strings.HasPrefix(s.proto, "tcp") && s.addr.Port == port)
		sawUDP = sawUDP || (strings.HasPrefix(s.proto, "udp") && s.addr.Port == udp)
	}
	if !sawTCP || !sawUDP {
		t.Errorf("expected its signalling port %d/tcp and media port %d/udp among %v", port, udp, socks)
	}
}

// procSocket is a listening TCP socket or a bound UDP socket.
type procSocket struct {
	proto string
	addr  *net.TCPAddr
}

// listening returns the sockets process pid holds that listen (TCP) or
// are bound (UDP), from /proc.
func listening(t *testing.T, pid int) []procSocket {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var out []procSocket
	for _, proto := range []string{"tcp", "tcp6", "udp", "udp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, proto))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || !inodes[fields[9]] {
				continue
			}
			// TCP: only listeners (0A); UDP: every bound socket (07).
			if strings.HasPrefix(proto, "tcp") && fields[3] != "0A" {
				continue
			}
			out = append(out, procSocket{proto, procAddr(t, fields[1])})
		}
		f.Close()
	}
	return out
}

// procAddr decodes /proc/net's hex address:port (addresses in host order
// per 32-bit word, little-endian here).
func procAddr(t *testing.T, s string) *net.TCPAddr {
	t.Helper()
	host, port, _ := strings.Cut(s, ":")
	raw, err := hex.DecodeString(host)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+4 <= len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	p, _ := strconv.ParseUint(port, 16, 16)
	return &net.TCPAddr{IP: net.IP(raw), Port: int(p)}
}
