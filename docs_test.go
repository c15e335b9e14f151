package ermine

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"ermine/internal/apitest"
)

// readmeBlock returns the first ```sh block after heading in README.md.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatalf("no sh block after %q", heading)
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}

// TestFirstSteps runs the README's first steps, as printed, against a
// fresh in-process server: the account, the token, the username, the
// server and the message must all work.
func TestFirstSteps(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed (CI is set, so the README's first steps must be tried)")
		}
		t.Skip("curl is not installed: the README's first steps use it")
	}
	block := readmeBlock(t, "### First steps: an account, a server, a message")
	h := apitest.Start(t)
	script := strings.Replace(block, "ERMINE=http://127.0.0.1:14702", "ERMINE="+h.URL, 1)
	script += "\necho\necho \"TOKEN=$TOKEN\"\necho \"CHANNEL=$CHANNEL\"\n"
	cmd := exec.CommandContext(t.Context(), "bash", "-euo", "pipefail", "-c", script)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("the first steps failed: %v\n%s%s", err, out.String(), errOut.String())
	}
	got := out.String()
	if !regexp.MustCompile(`(?m)^TOKEN=[A-Za-z0-9_-]{64}$`).MatchString(got) || !regexp.MustCompile(`(?m)^CHANNEL=[0-9A-Z]{26}$`).MatchString(got) {
		t.Fatalf("no token or channel came out of the first steps:\n%s", got)
	}
	if strings.Count(got, `"content":"Hello, Ermine!"`) != 2 || strings.Contains(got, `{"type":"`) {
		t.Errorf("the message was not sent and read back:\n%s", got)
	}
}
