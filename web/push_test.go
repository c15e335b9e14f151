package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ermine/internal/push"
	"ermine/internal/push/pushtest"
)

// TestPush runs e2e/push.mjs: the client, given notification permission,
// registers its service worker; its tab is closed; a direct message is
// sent; Ermine's push goes to a loopback push service (pushtest, which
// checks the VAPID signature and decrypts the payload as a browser's
// push service would), and the decrypted payload is delivered to the
// service worker, which shows the notification. Chromium's own push
// service is not reachable from here, so the script hands Ermine the
// loopback subscription for the browser's session (PUSH-SUBSCRIPTION?).
func TestPush(t *testing.T) {
	bin := browser(t)
	keys, err := push.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	svc := pushtest.Start(t, keys.Public)
	url := startErmine(t, buildErmine(t), "ERMINE_PUSH_VAPID_PUBLIC_KEY="+keys.Public, "ERMINE_PUSH_VAPID_PRIVATE_KEY="+keys.Private,
		"ERMINE_PUSH_ALLOW_PRIVATE=true", "ERMINE_PUSH_SUBJECT=mailto:admin@ermine.test")

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, filepath.Join("e2e", "push.mjs"))
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
	var out strings.Builder
	passed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line + "\n")
		switch {
		case line == "PUSH-SUBSCRIPTION?":
			b, _ := json.Marshal(svc.Subscribe())
			fmt.Fprintln(stdin, string(b))
		case line == "PUSH?":
			m := svc.Wait(30 * time.Second)
			if m.Status != 201 {
				t.Errorf("push service answered %d", m.Status)
			}
			fmt.Fprintln(stdin, string(m.Payload))
		case strings.HasSuffix(line, "passed"):
			passed = true
		}
	}
	err = cmd.Wait()
	t.Logf("push.mjs:\n%s%s", out.String(), stderr.String())
	if err != nil || !passed {
		t.Fatalf("push.mjs failed: %v", err)
	}
}
