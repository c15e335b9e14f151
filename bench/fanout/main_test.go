package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMain lets the storm's API prober, which starts this executable
// with probe-api, run in the test binary.
func TestMain(m *testing.M) {
	if probeSubcommand(context.Background()) {
		return
	}
	os.Exit(m.Run())
}

func TestParseBounds(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // part of the error; empty for none
	}{
		{"defaults", []string{"--ermine", "x"}, ""},
		{"no binary", nil, "--ermine"},
		{"too many connections", []string{"--ermine", "x", "--conns", "20001"}, "--conns"},
		{"no connection", []string{"--ermine", "x", "--conns", "0"}, "--conns"},
		{"rate zero", []string{"--ermine", "x", "--rate", "0"}, "--rate"},
		{"too long", []string{"--ermine", "x", "--duration", "6m"}, "--duration"},
		{"window over the send queue", []string{"--ermine", "x", "--window", "300"}, "--window"},
		{"too many deliveries", []string{"--ermine", "x", "--conns", "20000", "--saturate", "5000"}, "deliveries"},
		{"stray argument", []string{"--ermine", "x", "extra"}, "unexpected"},
		{"too many nodes", []string{"--ermine", "x", "--nodes", "6"}, "--nodes"},
		{"nodes without a database", []string{"--ermine", "x", "--nodes", "2", "--bus", "nats", "--bus-url", "nats://a"}, "--database"},
		{"nodes without a bus", []string{"--ermine", "x", "--nodes", "2", "--database", "postgres://a/b"}, "--bus"},
		{"sqlite url", []string{"--ermine", "x", "--database", "sqlite:///tmp/x"}, "--database"},
		{"unknown bus", []string{"--ermine", "x", "--bus", "kafka", "--bus-url", "k://a"}, "--bus"},
		{"bus without url", []string{"--ermine", "x", "--bus", "nats"}, "--bus-url"},
		{"unknown target", []string{"--target", "kafka"}, "--target"},
		{"floor without binary", []string{"--target", "floor"}, "--floor"},
		{"floor", []string{"--target", "floor", "--floor", "f"}, ""},
		{"centrifugo without binary", []string{"--target", "centrifugo"}, "--centrifugo"},
		{"compare needs all three", []string{"--compare", "--ermine", "x", "--floor", "f"}, "--centrifugo"},
		{"compare", []string{"--compare", "--ermine", "x", "--floor", "f", "--centrifugo", "c"}, ""},
		{"compare is one node", []string{"--compare", "--ermine", "x", "--floor", "f", "--centrifugo", "c", "--nodes", "2",
			"--database", "postgres://a/b", "--bus", "nats", "--bus-url", "nats://a"}, "Ermine's alone"},
		{"three nodes", []string{"--ermine", "x", "--nodes", "3", "--database", "postgres://a/b", "--bus", "nats", "--bus-url", "nats://a"}, ""},
		{"reconnect bounded", []string{"--ermine", "x", "--reconnect", "20001"}, "--reconnect"},
		{"storm", []string{"--ermine", "x", "--storm"}, ""},
		{"storm is one node", []string{"--ermine", "x", "--storm", "--nodes", "2", "--database", "postgres://a/b",
			"--bus", "nats", "--bus-url", "nats://a"}, "--storm"},
		{"storm is Ermine's", []string{"--storm", "--compare", "--ermine", "x", "--floor", "f", "--centrifugo", "c"}, "--storm"},
		{"storm messages bounded", []string{"--ermine", "x", "--storm", "--storm-messages", "1001"}, "--storm-messages"},
		{"storm timeout bounded", []string{"--ermine", "x", "--storm", "--storm-timeout", "10m"}, "--storm-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.args, io.Discard)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one about %s", err, tt.want)
			}
		})
	}
}

// TestShortRun builds ermine and runs both phases with a few connections:
// every message reaches every connection and the figures are reported.
func TestShortRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	bin := filepath.Join(t.TempDir(), "ermine")
	if out, err := exec.Command("go", "build", "-o", bin, "ermine/cmd/ermine").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out bytes.Buffer
	err := run(t.Context(), []string{"--ermine", bin, "--conns", "50", "--rate", "10", "--duration", "1s",
		"--saturate", "40", "--window", "8", "--settle", "100ms"}, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, &out)
	}
	for _, want := range []string{
		`delivered 500 of 500; lost 0; duplicates 0`,
		`delivered 2000 of 2000; lost 0; duplicates 0`,
		`bytes per connection`,
		`µs each`,
		`send→receive: p50 \S+ +p90`,
		`µs per delivered message`,
		`50 of 50 resumed; server CPU \d+ µs and \d+ bytes received per reconnect`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
}

// TestCrossNodeRun spreads connections and sends over three nodes on
// PostgreSQL, NATS and (when set) a Redis for the shared state: every
// message sent through any node reaches every connection on every node.
func TestCrossNodeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs three servers")
	}
	pg, nats, redis := os.Getenv("ERMINE_TEST_POSTGRES"), os.Getenv("ERMINE_TEST_NATS"), os.Getenv("ERMINE_TEST_REDIS")
	if pg == "" || nats == "" {
		msg := "the cross-node run needs ERMINE_TEST_POSTGRES and ERMINE_TEST_NATS"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; they must be set under CI")
		}
		t.Skip(msg)
	}
	bin := filepath.Join(t.TempDir(), "ermine")
	if out, err := exec.Command("go", "build", "-o", bin, "ermine/cmd/ermine").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	args := []string{"--ermine", bin, "--nodes", "3", "--conns", "60", "--rate", "10", "--duration", "1s",
		"--saturate", "30", "--window", "8", "--settle", "100ms", "--database", pg, "--bus", "nats", "--bus-url", nats}
	if redis != "" {
		args = append(args, "--shared-url", redis)
	}
	var out bytes.Buffer
	if err := run(t.Context(), args, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, &out)
	}
	for _, want := range []string{
		`over 3 nodes`,
		`delivered 600 of 600; lost 0; duplicates 0`,
		`delivered 1800 of 1800; lost 0; duplicates 0`,
		`µs per delivered message`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
	// The reconnect row is measured on one node only.
	if strings.Contains(out.String(), "per reconnect") {
		t.Errorf("a reconnect row over 3 nodes:\n%s", &out)
	}
}

// TestFloorRun drives the floor server (bench/floor) the way
// make compare does, and prints the comparison table from figures.
func TestFloorRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the floor server")
	}
	bin := filepath.Join(t.TempDir(), "ermine-floor")
	if out, err := exec.Command("go", "build", "-o", bin, "ermine/bench/floor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out bytes.Buffer
	err := run(t.Context(), []string{"--target", "floor", "--floor", bin, "--conns", "40", "--rate", "10", "--duration", "1s",
		"--saturate", "20", "--window", "8", "--settle", "100ms"}, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, &out)
	}
	for _, want := range []string{`connections to floor`, `delivered 400 of 400; lost 0`, `delivered 800 of 800; lost 0`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}

	out.Reset()
	fig := func(k target, idle float64) *figures {
		return &figures{kind: k, idleBytes: idle, connectCPU: 100, saturatedCPU: 2, lightCPU: 4,
			p50: 10 * time.Millisecond, p99: 40 * time.Millisecond}
	}
	printComparison(&out, options{conns: 10000, rate: 5, duration: 30 * time.Second, saturate: 300},
		[]*figures{fig(targetErmine, 8000), fig(targetCentrifugo, 16000), fig(targetFloor, 4000)})
	for _, want := range []string{"| idle RSS per connection | 8.00 KB | 16.0 KB | 4.00 KB | 0.50× | 2.00× |", "| deliveries lost | 0 | 0 | 0 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, &out)
		}
	}
}

// TestCentrifugoConfig: v5 reads flat keys, v6 the same settings nested in
// their sections (as v6.9.1's internal/configtypes names them).
func TestCentrifugoConfig(t *testing.T) {
	v5 := centrifugoConfig("v5.4.9", "127.0.0.1", 8000)
	if v5["token_hmac_secret_key"] != centrifugoSecret || v5["api_key"] != centrifugoAPIKey || v5["port"] != 8000 {
		t.Errorf("v5 config = %v", v5)
	}
	v6 := centrifugoConfig("v6.9.1", "127.0.0.1", 8000)
	client, _ := v6["client"].(map[string]any)
	token, _ := client["token"].(map[string]any)
	api, _ := v6["http_api"].(map[string]any)
	server, _ := v6["http_server"].(map[string]any)
	if token["hmac_secret_key"] != centrifugoSecret || api["key"] != centrifugoAPIKey || server["port"] != 8000 || v6["api_key"] != nil {
		t.Errorf("v6 config = %v", v6)
	}
}

func TestStormDefaults(t *testing.T) {
	o, err := parse([]string{"--ermine", "x", "--storm"}, io.Discard)
	if err != nil || o.conns != defaultStormConns {
		t.Fatalf("--storm: %d connections (%v), want %d", o.conns, err, defaultStormConns)
	}
	if o, err = parse([]string{"--ermine", "x", "--storm", "--conns", "500"}, io.Discard); err != nil || o.conns != 500 {
		t.Fatalf("--storm --conns 500: %d connections (%v)", o.conns, err)
	}
	if o, err = parse([]string{"--ermine", "x"}, io.Discard); err != nil || o.conns != 1000 {
		t.Fatalf("no --storm: %d connections (%v), want 1000", o.conns, err)
	}
}

func TestFrameParsing(t *testing.T) {
	if id, ok := resumeID([]byte(`{"type":"Ready","users":[],"resume_id":"abcdefghijklmnopqrstuvwxyz","seq":0}`)); !ok || id != "abcdefghijklmnopqrstuvwxyz" {
		t.Errorf("resumeID = %q, %v", id, ok)
	}
	if _, ok := resumeID([]byte(`{"type":"Ready","users":[]}`)); ok {
		t.Error("resumeID of a stock Ready: found one")
	}
	for in, want := range map[string]int64{
		`{"type":"Resumed","seq":42}`:                         42,
		`{"type":"Message","content":"\"seq\":7","seq":1234}`: 1234,
	} {
		if got, ok := frameSeq([]byte(in)); !ok || got != want {
			t.Errorf("frameSeq(%s) = %d, %v; want %d", in, got, ok, want)
		}
	}
	if _, ok := frameSeq([]byte(`{"type":"Message"}`)); ok {
		t.Error("frameSeq of a stock frame: found one")
	}
	got := contentSeqs([]byte(`[{"content":"fanout seq=000003 xx"},{"content":"hello"},{"content":"fanout seq=000012 x"}]`))
	if len(got) != 2 || !got[3] || !got[12] {
		t.Errorf("contentSeqs = %v, want 3 and 12", got)
	}
}

func TestComparisonReconnectRow(t *testing.T) {
	e := &figures{kind: targetErmine, reconnect: &[2]reconnectCost{{n: 500, cpu: 1000, bytes: 2000}, {n: 500, resumed: 500, cpu: 100, bytes: 200}}}
	var out bytes.Buffer
	printComparison(&out, options{conns: 10, rate: 5, centrifugoVersion: "v6.9.1"},
		[]*figures{e, {kind: targetCentrifugo}, {kind: targetFloor}})
	for _, want := range []string{
		"| reconnect (500 connections): server CPU, full Ready → resume (500 resumed) | 1000 µs → 100 µs (0.10×) | n/a (no Ready) | n/a (no Ready) | | |",
		"| reconnect: bytes received, full Ready → resume | 2000 B → 200 B (0.10×) | n/a (no Ready) | n/a (no Ready) | | |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks\n%s\n%s", want, &out)
		}
	}
}

// TestStormRun runs a small storm: every client is back after the drop
// (resumed), after the drop without resume (full Ready) and after the
// restart, and no message is lost.
func TestStormRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	bin := filepath.Join(t.TempDir(), "ermine")
	if out, err := exec.Command("go", "build", "-o", bin, "ermine/cmd/ermine").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out bytes.Buffer
	err := run(t.Context(), []string{"--ermine", bin, "--storm", "--conns", "40", "--storm-messages", "3", "--storm-timeout", "60s"}, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, &out)
	}
	for _, want := range []string{
		`reconnect with resume:\n  all 40 back in \S+: 40 resumed, 0 full Ready`,
		`without resume \(full Ready\):\n  all 40 back in \S+: 0 resumed, 40 full Ready`,
		`all 40 back in \S+: \d+ resumed, \d+ full Ready`,
		`messages posted during the storm 3 \(failed 0\): received 120, in history before a full Ready 0, lost 0`,
		`messages posted during the storm 3 \(failed 0\): received \d+, in history before a full Ready \d+, lost 0`,
		`API GET /users/@me during the storm: p50`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
}

// An unstamped Centrifugo build says v0.0.0: its version comes from the
// directory scripts/centrifugo.sh built it into, so a v5 gets v5's
// configuration.
func TestCentrifugoVersionUnstamped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "centrifugo-v5.4.9")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "centrifugo")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'Centrifugo v0.0.0 (Go version: go1.26.8)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := centrifugoVersion(bin); err != nil || v != "v5.4.9" {
		t.Fatalf("version %q, %v; want v5.4.9", v, err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'Centrifugo v6.9.1 (Go version: go1.26.8)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := centrifugoVersion(bin); err != nil || v != "v6.9.1" {
		t.Fatalf("version %q, %v; want v6.9.1", v, err)
	}
}
