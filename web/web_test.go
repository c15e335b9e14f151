package web_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/testbed"
)

// chromiumPath is Debian's chromium package (apt-get install chromium).
const chromiumPath = "/usr/bin/chromium"

// need skips, or fails in CI (CI set), when something the suite needs is
// missing.
func need(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if ok {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set, so the web client suite must run)", msg)
	}
	t.Skip(msg)
}

func node(t *testing.T, pkgs ...string) string {
	t.Helper()
	bin, err := exec.LookPath("node")
	need(t, err == nil, "node is not installed: the web client tests need Node.js 20.19 or newer")
	for _, p := range pkgs {
		_, err := os.Stat(filepath.Join("node_modules", p, "package.json"))
		need(t, err == nil, "web/node_modules/%s is missing: run `npm ci` in web/ to run the web client tests", p)
	}
	return bin
}

// browser is node for an end-to-end test: it skips under -short, and
// skips (or fails in CI) without playwright-core (and pkgs) or Chromium.
func browser(t *testing.T, pkgs ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the end-to-end tests build Ermine and run Chromium")
	}
	bin := node(t, append([]string{"playwright-core"}, pkgs...)...)
	_, err := os.Stat(chromiumPath)
	need(t, err == nil, "%s is missing: apt-get install chromium to run the end-to-end tests", chromiumPath)
	return bin
}

// TestUnit runs the Vitest suite (manifest validation, plugin manager).
func TestUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Vitest suite runs Node")
	}
	bin := node(t, "vitest")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, filepath.Join("node_modules", "vitest", "vitest.mjs"), "run", "--reporter=verbose")
	cmd.Env = append(environ(), "NO_COLOR=1", "FORCE_COLOR=0", "CI=1")
	out, err := cmd.CombinedOutput()
	t.Logf("vitest:\n%s", out)
	if err != nil {
		t.Fatalf("vitest failed: %v", err)
	}
	if !bytes.Contains(out, []byte(" passed")) {
		t.Fatal("vitest passed no test")
	}
}

// TestEndToEnd builds Ermine, starts it on a free loopback port with a
// fresh data directory and drives the web client in headless Chromium as
// two people would (e2e/e2e.mjs). Screenshots of a failure land in the
// test's log directory (printed).
func TestEndToEnd(t *testing.T) {
	bin := browser(t)
	url := startErmine(t, buildErmine(t))
	runScript(t, bin, url, "e2e.mjs", "] passed")
}

// TestEndToEndCommunity drives the community pages in Chromium
// (e2e/community.mjs): channel order and slowmode, webhooks, the audit
// log, profile cards, presence, tables and timestamps, groups, upload
// progress, email change, two-factor off, account deletion, and phone
// width. Its people and server are made through the API, so its Ermine
// runs without rate limits.
func TestEndToEndCommunity(t *testing.T) {
	bin := browser(t)
	url := startErmine(t, buildErmine(t), "ERMINE_LIMITS_RATE_LIMITS=false")
	runScript(t, bin, url, "community.mjs", "community passed")
}

// TestInfiniteScroll seeds a channel with more messages than a page
// through the API and scrolls its history up to the start in Chromium
// (e2e/scroll.mjs). Its Ermine runs without rate limits: seeding 120
// messages within the messaging limit would take a minute.
func TestInfiniteScroll(t *testing.T) {
	bin := browser(t)
	url := startErmine(t, buildErmine(t), "ERMINE_LIMITS_RATE_LIMITS=false")
	runScript(t, bin, url, "scroll.mjs", "passed")
}

// TestMailFlows runs e2e/mail.mjs against an Ermine that sends mail to a
// test mailbox: registration says "check your mail", the links in the
// verification and password reset mails open the client and work.
func TestMailFlows(t *testing.T) {
	bin := browser(t)
	box := apitest.StartSMTP(t, "ermine", "mail-secret")
	host, port, _ := strings.Cut(box.Addr(), ":")
	url := startErmine(t, buildErmine(t), "ERMINE_EMAIL_HOST="+host, "ERMINE_EMAIL_PORT="+port, "ERMINE_EMAIL_TLS=none",
		"ERMINE_EMAIL_USERNAME=ermine", "ERMINE_EMAIL_PASSWORD=mail-secret", "ERMINE_EMAIL_FROM=Ermine <noreply@ermine.test>")

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, filepath.Join("e2e", "mail.mjs"))
	cmd.Env = append(environ(), "ERMINE_URL="+url, "CHROMIUM="+chromiumPath, "SCREENSHOTS="+filepath.Join(os.TempDir(), "ermine-web-e2e"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`https?://\S+/app/login/(?:verify|reset)/\S+`)
	var out strings.Builder
	passed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line + "\n")
		switch {
		case line == "MAIL?":
			m := box.Wait()
			found := link.FindString(m.Body)
			if found == "" {
				t.Errorf("no client link in the mail %q:\n%s", m.Subject, m.Body)
			}
			fmt.Fprintln(stdin, found)
		case strings.HasSuffix(line, "passed"):
			passed = true
		}
	}
	err = cmd.Wait()
	t.Logf("mail.mjs:\n%s%s", out.String(), stderr.String())
	if err != nil || !passed {
		t.Fatalf("mail.mjs failed: %v", err)
	}
}

// runScript runs one e2e/*.mjs script against url (with env added) and
// fails the test unless it exits cleanly having printed done.
// TestConsole runs the operator's console (web/src/admin) on an
// invite-only instance: codes made with `ermine invite create` before it
// starts, and `ermine admin grant-privileged` run when the script asks.
func TestConsole(t *testing.T) {
	bin := browser(t)
	ermine := buildErmine(t)
	data := filepath.Join(t.TempDir(), "data")
	out, err := exec.Command(ermine, "--data", data, "invite", "create", "--create-instance", "5").CombinedOutput()
	if err != nil {
		t.Fatalf("ermine invite create: %v\n%s", err, out)
	}
	url := startErmineIn(t, ermine, data, "ERMINE_REGISTRATION_INVITE_ONLY=true")

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, filepath.Join("e2e", "console.mjs"))
	cmd.Env = append(environ(), "ERMINE_URL="+url, "CHROMIUM="+chromiumPath, "SCREENSHOTS="+filepath.Join(os.TempDir(), "ermine-web-e2e"),
		"INVITES="+strings.Join(strings.Fields(string(out)), " "))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	passed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		switch {
		case strings.HasPrefix(line, "GRANT "):
			res, err := exec.Command(ermine, "--data", data, "admin", "grant-privileged", strings.TrimPrefix(line, "GRANT ")).CombinedOutput()
			if err != nil {
				t.Errorf("ermine admin grant-privileged: %v\n%s", err, res)
				fmt.Fprintln(stdin, "FAILED")
				continue
			}
			fmt.Fprintln(stdin, "OK")
		case line == "console passed":
			passed = true
		}
	}
	err = cmd.Wait()
	t.Logf("console.mjs:\n%s%s", log.String(), stderr.String())
	if err != nil || !passed {
		t.Fatalf("console.mjs failed: %v", err)
	}
}

func runScript(t *testing.T, bin, url, script, done string, env ...string) {
	t.Helper()
	shots := os.Getenv("ERMINE_E2E_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(os.TempDir(), "ermine-web-e2e")
	}
	// The main script walks through every feature: about two minutes on
	// an idle machine, more on a shared one.
	ctx, cancel := context.WithTimeout(t.Context(), 7*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, filepath.Join("e2e", script))
	cmd.Env = append(append(environ(), "ERMINE_URL="+url, "CHROMIUM="+chromiumPath, "SCREENSHOTS="+shots), env...)
	if shot := os.Getenv("ERMINE_E2E_README_SHOT"); shot != "" {
		cmd.Env = append(cmd.Env, "README_SHOT="+shot)
	}
	if shot := os.Getenv("ERMINE_E2E_SETTINGS_SHOT"); shot != "" {
		cmd.Env = append(cmd.Env, "SETTINGS_SHOT="+shot)
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s (%s):\n%s", script, time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("%s failed: %v (screenshots in %s)", script, err, shots)
	}
	if !bytes.Contains(out, []byte(done)) {
		t.Fatalf("%s did not reach its end", script)
	}
}

// buildErmine builds cmd/ermine into a temporary directory.
func buildErmine(t *testing.T) string { return testbed.BuildErmine(t) }

// startErmine runs the binary on a free loopback port with a fresh data
// directory (and env) and returns its API URL; the test's end stops it.
func startErmine(t *testing.T, bin string, env ...string) string {
	t.Helper()
	return startErmineIn(t, bin, filepath.Join(t.TempDir(), "data"), env...)
}

// startErmineIn starts Ermine on the data directory data.
func startErmineIn(t *testing.T, bin, data string, env ...string) string {
	t.Helper()
	return testbed.Ermine(t, bin, data, append([]string{"ERMINE_LOG_LEVEL=info"}, env...)...).URL
}

// environ is the test's environment without Ermine's own settings nor
// Node options that would change the runner.
func environ() []string { return testbed.Environ("NODE_OPTIONS=", "NODE_TEST_CONTEXT=") }

// TestSeenCheck runs e2e/seen.mjs: the person check every end-to-end step
// goes through (lib.mjs seen) passes a visible control and fails one
// that is clipped (as the create-server form was), covered, transparent,
// not displayed or outside the window.
func TestSeenCheck(t *testing.T) {
	bin := browser(t)
	runScript(t, bin, "", "seen.mjs", "seen check passed")
}
