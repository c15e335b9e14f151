package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestParseRefusesUnboundedOrEmptyRuns(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no users", []string{"--users", "0"}},
		{"fewer channels than servers", []string{"--servers", "5", "--channels", "4"}},
		{"negative rate", []string{"--rate", "-1"}},
		{"too long", []string{"--duration", "3m"}},
		{"zero duration", []string{"--duration", "0s"}},
		{"unknown flag", []string{"--nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parse(tt.args, io.Discard); err == nil {
				t.Errorf("parse(%v) accepted", tt.args)
			}
		})
	}
	if _, err := parse(nil, io.Discard); err != nil {
		t.Errorf("defaults refused: %v", err)
	}
}

// TestRunSmall runs the send measurement briefly against a real node.
func TestRunSmall(t *testing.T) {
	var out bytes.Buffer
	// 3 users x 4 channels allow 120 messages per 10 s: an open loop at
	// 100 messages/s for 300 ms stays inside the messaging bucket.
	args := []string{"--duration", "300ms", "--rate", "100", "--users", "3", "--servers", "2", "--channels", "4", "--workers", "4"}
	if err := run(t.Context(), args, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"store sqlite", "messages/s", "Message events published"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "429:") {
		t.Errorf("rate limited:\n%s", out.String())
	}
}
