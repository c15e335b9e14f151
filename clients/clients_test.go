package clients_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"ermine/internal/testbed"
)

// TestClientLibraries builds Ermine, starts it on a free loopback port
// with a fresh data directory and runs the Node suite (test/*.test.mjs)
// against it. Without Node or the installed dependencies it skips, except
// in CI (CI set), where it fails. It passes only when exactly the declared
// scenarios ran and passed.
func TestClientLibraries(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the real-client suite builds and runs Ermine and Node")
	}
	node := nodeSuite(t)
	url := startErmine(t, buildErmine(t))

	files, err := filepath.Glob(filepath.Join("test", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test/*.test.mjs (%v)", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	args := append([]string{"--test", "--test-concurrency=1", "--test-reporter=spec"}, files...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(environ(), "ERMINE_URL="+url, "NO_COLOR=1", "FORCE_COLOR=0")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("node --test (%s):\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("the real-client suite failed: %v (output above)", err)
	}
	counts := summary(out)
	want := map[string]int{"tests": scenarios, "pass": scenarios, "fail": 0, "cancelled": 0, "skipped": 0, "todo": 0}
	for name, n := range want {
		got, ok := counts[name]
		if !ok {
			t.Fatalf("the runner's summary has no %q line (output above)", name)
		}
		if got != n {
			t.Errorf("%s %d, want %d: every scenario of test/*.test.mjs must run and pass (output above)", name, got, n)
		}
	}
}

// scenarios is how many tests test/*.test.mjs declare (a journey step is
// one). All of them must pass: a skipped one (a route missing, an earlier
// step that did not complete) counts as a failure here, so adding or
// removing a scenario means changing this number.
const scenarios = 30

// summary reads the counts of node's spec reporter ("ℹ pass 26").
func summary(out []byte) map[string]int {
	counts := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$`).FindAllSubmatch(out, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		counts[string(m[1])] = n
	}
	return counts
}

// nodeSuite returns the node binary once the suite's dependencies are
// installed, or skips (fails in CI) saying what is missing.
func nodeSuite(t *testing.T) string {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI is set, so the real-client suite must run)", msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed: the real-client suite needs Node.js 20 or newer")
	}
	for _, pkg := range []string{"revolt.js", "stoat.js", "ws"} {
		if _, err := os.Stat(filepath.Join("node_modules", pkg, "package.json")); err != nil {
			missing("clients/node_modules/%s is missing: run `npm ci` in clients/ to run the real-client suite", pkg)
		}
	}
	return node
}

// buildErmine builds cmd/ermine into a temporary directory.
func buildErmine(t *testing.T) string { return testbed.BuildErmine(t) }

// startErmine runs the binary on a free loopback port with a fresh data
// directory and returns its API URL; the test's end stops it. Its log is
// printed when the test fails.
func startErmine(t *testing.T, bin string) string {
	t.Helper()
	return startErmineOn(t, bin, filepath.Join(t.TempDir(), "data"))
}

// startErmineOn is startErmine on the data directory data.
func startErmineOn(t *testing.T, bin, data string) string {
	t.Helper()
	// Link previews may fetch from the suite's own loopback page server.
	return testbed.Ermine(t, bin, data, "ERMINE_LOG_LEVEL=info", "ERMINE_EMBEDS_ALLOWED_PRIVATE_HOSTS=127.0.0.1").URL
}

// environ is the test's environment without Ermine's own settings (a
// developer's ERMINE_DATABASE_URL must not reach the node under test) nor
// Node options that would change the runner.
func environ() []string { return testbed.Environ("NODE_OPTIONS=", "NODE_TEST_CONTEXT=") }
