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

// TestTestingDocListsTestVariables finds every ERMINE_TEST_* variable the
// tests and CI read and requires docs/testing.md to name it.
func TestTestingDocListsTestVariables(t *testing.T) {
	doc, err := os.ReadFile("docs/testing.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
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
			t.Errorf("%s (read in %s) is not in docs/testing.md", v, path)
		}
	}
}

// TestReadmeCommands keeps the README a front door: short, with the two
// commands a newcomer types (run a node, run the tests) as printed.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(readme, []byte("\n")); n > 200 {
		t.Errorf("README.md has %d lines; keep it a front door (at most 200) and move details to docs/", n)
	}
	if got := readmeBlock(t, "## Quick start"); got != "go run ./cmd/ermine\n" {
		t.Errorf("the quick start runs %q, want go run ./cmd/ermine", got)
	}
	if _, err := os.Stat("cmd/ermine/main.go"); err != nil {
		t.Errorf("the quick start's package is gone: %v", err)
	}
	if !strings.Contains(string(readme), "```sh\ngo test ./...\n```") {
		t.Error("README.md no longer shows the test command go test ./...")
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(makefile), "test: ## the README test command\n\tgo test ./...\n") {
		t.Error("make test no longer runs the README's test command go test ./...")
	}
}

// TestDocLinks checks every relative link in README.md and docs/*.md
// names a file of the repository: the documents neither point outside it
// nor at a file that moved.
func TestDocLinks(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, doc := range append(docs, "README.md", "deploy/README.md") {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := filepath.Join(filepath.Dir(doc), target)
			if rel, err := filepath.Rel(".", path); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links to %s, outside the repository", doc, m[1])
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s: %v", doc, m[1], err)
			}
		}
	}
}
