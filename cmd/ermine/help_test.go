package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ermine/internal/config"
)

// TestHelp checks that ermine --help lists every command and that every
// command answers --help (and help COMMAND) with its own usage, without
// a valid configuration and without running.
func TestHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"--help"}, env(nil), &out, &errOut)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	all := out.String()
	bad := env(map[string]string{"ERMINE_DATABASE_URL": "mysql://nope"}) // help needs no valid configuration
	for _, c := range commands {
		if !strings.Contains(all, "  "+c.synopsis) {
			t.Errorf("ermine --help does not list %q:\n%s", c.synopsis, all)
		}
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			out.Reset()
			if err := run(t.Context(), args, bad, &out, &errOut); err != nil {
				t.Errorf("ermine %s: %v", strings.Join(args, " "), err)
				continue
			}
			if !strings.HasPrefix(out.String(), "Usage: ermine [flags] "+c.synopsis+"\n") {
				t.Errorf("ermine %s printed:\n%s", strings.Join(args, " "), out.String())
			}
		}
	}
	out.Reset()
	if err := run(t.Context(), []string{"admin", "--help"}, bad, &out, &errOut); err != nil || !strings.Contains(out.String(), adminUsage) {
		t.Errorf("admin --help lacks the admin commands: %v\n%s", err, out.String())
	}
	if err := run(t.Context(), []string{"frobnicate", "--help"}, bad, &out, &errOut); err == nil || !strings.Contains(err.Error(), "--help") {
		t.Errorf("an unknown command's help: %v", err)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"--data", "/nonexistent", "version"}} {
		var out, errOut bytes.Buffer
		if err := run(t.Context(), args, env(nil), &out, &errOut); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"ermine 0.", "commit ", "built with go1."} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v printed %q, lacking %q", args, out.String(), want)
			}
		}
	}
}

// TestUnknownEnvironment checks that serve reports ERMINE_* variables that
// name no setting, and only those.
func TestUnknownEnvironment(t *testing.T) {
	got := config.UnknownEnv([]string{"ERMINE_DATABSE_URL=x", "ERMINE_DATABASE_URL=postgres://", "ERMINE_VOICE_NODES_0_URL=u",
		"ERMINE_VOICE_NODES_12_API_KEY=k", "ERMINE_VOICE_NODES_X_URL=u", "ERMINE_TEST_POSTGRES=p", "ERMINE_CONFIG=c", "HOME=/root",
		"ERMINE_LISTEN=l", "ERMINE_DATA=d", "ERMINE_E2E_SCREENSHOTS=s", "ERMINE_FILES_S3_BUCKTE=b"})
	want := []string{"ERMINE_DATABSE_URL", "ERMINE_FILES_S3_BUCKTE", "ERMINE_VOICE_NODES_X_URL"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("UnknownEnv = %v, want %v", got, want)
	}
	for _, k := range config.Keys() {
		if k.Env != "" && !strings.Contains(k.Env, "<n>") && len(config.UnknownEnv([]string{k.Env + "=x"})) != 0 {
			t.Errorf("%s is a setting but reported as unknown", k.Env)
		}
	}

	old := environ
	environ = func() []string { return []string{"ERMINE_DATABSE_URL=postgres://typo"} }
	defer func() { environ = old }()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(t.Context())
	var out, errOut bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--listen", addr}, env(map[string]string{"ERMINE_DATA": t.TempDir()}), &out, &errOut)
	}()
	waitHealthy(t, addr)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "ERMINE_DATABSE_URL") || !strings.Contains(errOut.String(), "names no setting") {
		t.Errorf("serve did not report the misspelt variable:\n%s", errOut.String())
	}
}

// TestVersionOfABuild builds the binary as a release is built (the
// version given to the linker) and checks `ermine version` reports that
// version and the commit Go stamped from the clone.
func TestVersionOfABuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git clone: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "ermine")
	commit := strings.TrimSpace(string(head))
	// The commit comes from Go's stamp in a clone; a git worktree gets
	// none, and the release build's -X gives the same commit.
	build := exec.Command("go", "build", "-buildvcs=auto", "-ldflags",
		"-X ermine/internal/server.Version=9.8.7-test -X ermine/internal/server.Commit="+commit, "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "ermine 9.8.7-test\n") || !strings.Contains(string(out), "commit "+commit) {
		t.Errorf("ermine version printed %q; want version 9.8.7-test and commit %s", out, commit)
	}
}
