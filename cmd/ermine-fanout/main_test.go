package main

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParseBounds(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // part of the error; empty for none
	}{
		{"defaults", []string{"-ermine", "x"}, ""},
		{"no binary", nil, "-ermine"},
		{"too many connections", []string{"-ermine", "x", "-conns", "20001"}, "-conns"},
		{"no connection", []string{"-ermine", "x", "-conns", "0"}, "-conns"},
		{"rate zero", []string{"-ermine", "x", "-rate", "0"}, "-rate"},
		{"too long", []string{"-ermine", "x", "-duration", "6m"}, "-duration"},
		{"window over the send queue", []string{"-ermine", "x", "-window", "300"}, "-window"},
		{"too many deliveries", []string{"-ermine", "x", "-conns", "20000", "-saturate", "5000"}, "deliveries"},
		{"stray argument", []string{"-ermine", "x", "extra"}, "unexpected"},
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
	err := run(t.Context(), []string{"-ermine", bin, "-conns", "50", "-rate", "10", "-duration", "1s",
		"-saturate", "40", "-window", "8", "-settle", "100ms"}, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, &out)
	}
	for _, want := range []string{
		`delivered 500 of 500; lost 0; duplicates 0`,
		`delivered 2000 of 2000; lost 0; duplicates 0`,
		`bytes per connection`,
		`send→receive: p50 \S+ +p90`,
		`µs per delivered message`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
}
