package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

func TestParseRefusesUnboundedRuns(t *testing.T) {
	for _, args := range [][]string{{"--reps", "0"}, {"--reps", "5000"}, {"--history-pages", "0"}, {"extra"}, {"--nope"}} {
		if _, err := parse(args, io.Discard); err == nil {
			t.Errorf("parse(%v) accepted", args)
		}
	}
	o, err := parse(nil, io.Discard)
	if err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	if slicesContain(o.messages, 1_000_000) {
		t.Errorf("the default run includes 1,000,000 messages")
	}
	if o, _ := parse([]string{"--big"}, io.Discard); !slicesContain(o.messages, 1_000_000) {
		t.Errorf("--big lacks 1,000,000 messages")
	}
}

func slicesContain(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestRunSmall runs every measurement at tiny sizes against a real node.
func TestRunSmall(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"--small", "--reps", "3", "--history-pages", "5"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"store sqlite", "Ready", "2 servers x 3 ch", "member list", "20 members",
		"big:lantern", "100-msg:quokka", "Relevance", "Latest", "newest 50", "50 around random", "HTTP", "bytes/message on disk"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRunSmallPostgres is TestRunSmall on PostgreSQL at
// ERMINE_TEST_POSTGRES (in a schema of its own, dropped afterwards).
func TestRunSmallPostgres(t *testing.T) {
	dsn := os.Getenv("ERMINE_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but ERMINE_TEST_POSTGRES is not")
		}
		t.Skip("ERMINE_TEST_POSTGRES not set: skipping the PostgreSQL run")
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"--small", "--reps", "3", "--history-pages", "5", "--database", dsn}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"store postgres", "member list", "bytes/message on disk"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
