package ermine

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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

// TestReadmeListsTestVariables finds every ERMINE_TEST_* variable the
// tests and CI read and requires the README's testing section to name it.
func TestReadmeListsTestVariables(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Testing\n")
	if !ok {
		t.Fatal("README.md has no Testing section")
	}
	name := regexp.MustCompile(`ERMINE_TEST_[A-Z0-9_]+`)
	found := map[string]string{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != "." && d.Name() != ".ci") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".mjs") || strings.HasPrefix(path, ".ci/")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, v := range name.FindAllString(string(data), -1) {
			found[v] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 5 {
		t.Fatalf("found only %v; the walk is broken", found)
	}
	for v, path := range found {
		if !strings.Contains(section, "`"+v) {
			t.Errorf("%s (read in %s) is not in the README's Testing section", v, path)
		}
	}
}
