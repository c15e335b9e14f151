package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gobwas/ws"
	"github.com/golang-jwt/jwt/v5"

	"ermine/internal/testbed"
)

// target is the kind of server under load. Besides Ermine the command
// drives two others with the same connections, sends and measurements,
// so `make compare` can put them side by side: Centrifugo (a real-time
// server in Go, built from its module at a pinned version) and the floor
// (bench/floor, a bare gobwas/ws server).
type target string

const (
	targetErmine     target = "ermine"
	targetCentrifugo target = "centrifugo"
	targetFloor      target = "floor"
)

// Centrifugo's side of a run: the channel every connection subscribes
// to, and the secrets of its generated configuration (loopback only).
const (
	centrifugoChannel = "fanout"
	centrifugoSecret  = "ermine-fanout-hmac-secret-0123456789"
	centrifugoAPIKey  = "ermine-fanout-api-key"
)

// targetWorld makes the users of a Centrifugo or floor run: Centrifugo
// connections carry a JWT naming their user; the floor knows nobody.
func targetWorld(kind target, n int) (*world, error) {
	w := &world{kind: kind, users: make([]testbed.User, n)}
	for i := range w.users {
		if kind != targetCentrifugo {
			continue
		}
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"sub": "user" + strconv.Itoa(i), "exp": time.Now().Add(time.Hour).Unix(),
		}).SignedString([]byte(centrifugoSecret))
		if err != nil {
			return nil, err
		}
		w.users[i].Token = tok
	}
	return w, nil
}

// command returns the process serving kind on addr with its state in dir.
func command(kind target, bin, addr, dir string) (testbed.Command, error) {
	switch kind {
	case targetCentrifugo:
		host, port, err := splitAddr(addr)
		if err != nil {
			return testbed.Command{}, err
		}
		version, err := centrifugoVersion(bin)
		if err != nil {
			return testbed.Command{}, err
		}
		cfg, err := json.Marshal(centrifugoConfig(version, host, port))
		if err != nil {
			return testbed.Command{}, err
		}
		path := filepath.Join(dir, "centrifugo.json")
		if err := os.WriteFile(path, cfg, 0o600); err != nil {
			return testbed.Command{}, err
		}
		return testbed.Command{Path: bin, Args: []string{"--config", path}, Ready: "/health"}, nil
	case targetFloor:
		return testbed.Command{Path: bin, Args: []string{"--listen", addr}, Ready: "/"}, nil
	}
	return testbed.Command{Path: bin, Args: []string{"--listen", addr, "--data", dir}}, nil
}

// centrifugoVersion asks a Centrifugo binary its version ("v6.9.1"). A
// build from the Go module without release flags says v0.0.0; then the
// version is read from the directory scripts/centrifugo.sh builds into
// (centrifugo-v6.9.1/centrifugo).
func centrifugoVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %w", bin, err)
	}
	for _, f := range strings.Fields(string(out)) {
		if len(f) > 1 && f[0] == 'v' && f[1] >= '0' && f[1] <= '9' {
			if f == "v0.0.0" {
				if v, ok := strings.CutPrefix(filepath.Base(filepath.Dir(bin)), "centrifugo-"); ok && strings.HasPrefix(v, "v") {
					return v, nil
				}
			}
			return f, nil
		}
	}
	return "", fmt.Errorf("%s version: no version in %q", bin, out)
}

// centrifugoConfig is the configuration of a Centrifugo of version
// serving on host:port: v6 nests each setting in its section, v5 keeps
// them flat.
func centrifugoConfig(version, host string, port int) map[string]any {
	if strings.HasPrefix(version, "v5.") {
		return map[string]any{
			"address": host, "port": port, "log_level": "error", "health": true,
			"token_hmac_secret_key": centrifugoSecret, "api_key": centrifugoAPIKey,
			"allowed_origins": []string{"*"}, "allow_subscribe_for_client": true,
		}
	}
	return map[string]any{
		"http_server": map[string]any{"address": host, "port": port},
		"log":         map[string]any{"level": "error"},
		"health":      map[string]any{"enabled": true},
		"client": map[string]any{"allowed_origins": []string{"*"},
			"token": map[string]any{"hmac_secret_key": centrifugoSecret}},
		"http_api": map[string]any{"key": centrifugoAPIKey},
		"channel":  map[string]any{"without_namespace": map[string]any{"allow_subscribe_for_client": true}},
	}
}

// upgradePath is where kind's WebSocket is.
func upgradePath(kind target) string {
	switch kind {
	case targetCentrifugo:
		return "/connection/websocket"
	case targetFloor:
		return "/ws"
	}
	return "/events"
}

func splitAddr(addr string) (string, int, error) {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			port, err := strconv.Atoi(addr[i+1:])
			return addr[:i], port, err
		}
	}
	return "", 0, fmt.Errorf("address %q has no port", addr)
}

// clientFrame returns a masked text frame, as a client sends it.
func clientFrame(payload []byte) ([]byte, error) {
	return ws.CompileFrame(ws.MaskFrameInPlace(ws.NewTextFrame(payload)))
}

// figures is what a run measured, for the comparison table.
type figures struct {
	kind         target
	idleBytes    float64 // RSS growth per authenticated, subscribed connection
	connectCPU   float64 // µs of server CPU per connect+authenticate+Ready
	lightCPU     float64 // µs of server CPU per delivery at the fixed rate
	saturatedCPU float64 // µs of server CPU per delivery, saturated
	p50, p99     time.Duration
	lost         int64
	// reconnect is Ermine's full-Ready and resume reconnect costs
	// (--reconnect); nil for the others, which have no Ready.
	reconnect *[2]reconnectCost
}

// printComparison prints Ermine's figures with their ratios to
// Centrifugo's and the floor's; all are in the order ermine, centrifugo,
// floor.
func printComparison(out io.Writer, o options, all []*figures) {
	e, c, f := all[0], all[1], all[2]
	fmt.Fprintf(out, "\n%d connections in one channel, %d messages/s for %s, %d saturating messages; server pinned: %v\n\n",
		o.conns, o.rate, o.duration, o.saturate, o.pin)
	fmt.Fprintf(out, "| measure | Ermine | Centrifugo %s | floor | Ermine ÷ Centrifugo | Ermine ÷ floor |\n", o.centrifugoVersion)
	fmt.Fprintln(out, "|---|---|---|---|---|---|")
	row := func(name, unit string, get func(*figures) float64) {
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", name,
			num(get(e), unit), num(get(c), unit), num(get(f), unit), ratio(get(e), get(c)), ratio(get(e), get(f)))
	}
	row("idle RSS per connection", "KB", func(x *figures) float64 { return x.idleBytes / 1000 })
	row("server CPU per connect (connect, authenticate, subscribe)", "µs", func(x *figures) float64 { return x.connectCPU })
	row("server CPU per delivery, saturated", "µs", func(x *figures) float64 { return x.saturatedCPU })
	row(fmt.Sprintf("server CPU per delivery, %d messages/s", o.rate), "µs", func(x *figures) float64 { return x.lightCPU })
	row(fmt.Sprintf("send→receive p50 at %d messages/s", o.rate), "ms", func(x *figures) float64 { return ms(x.p50) })
	row(fmt.Sprintf("send→receive p99 at %d messages/s", o.rate), "ms", func(x *figures) float64 { return ms(x.p99) })
	fmt.Fprintf(out, "| deliveries lost | %d | %d | %d | | |\n", e.lost, c.lost, f.lost)
	if r := e.reconnect; r != nil {
		full, res := r[0], r[1]
		na := "n/a (no Ready)"
		fmt.Fprintf(out, "| reconnect (%d connections): server CPU, full Ready → resume (%d resumed) | %s → %s (%s) | %s | %s | | |\n",
			full.n, res.resumed, num(full.cpu, "µs"), num(res.cpu, "µs"), ratio(res.cpu, full.cpu), na, na)
		fmt.Fprintf(out, "| reconnect: bytes received, full Ready → resume | %s → %s (%s) | %s | %s | | |\n",
			num(full.bytes, "B"), num(res.bytes, "B"), ratio(res.bytes, full.bytes), na, na)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func num(v float64, unit string) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

func ratio(a, b float64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// pinSelf keeps this process off CPU 0, which --pin gives the server.
func pinSelf() error {
	if _, err := exec.LookPath("taskset"); err != nil {
		return err
	}
	if runtime.NumCPU() < 2 {
		return errors.New("one CPU only")
	}
	out, err := exec.Command("taskset", "-a", "-p", "-c", "1-"+strconv.Itoa(runtime.NumCPU()-1), strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskset: %v %s", err, out)
	}
	return nil
}
