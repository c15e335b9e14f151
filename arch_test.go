package ermine_test

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allowed lists, for each package, the packages of this module it may
// import (STYLE.md §2). A package missing from the table may import
// nothing of ours except chat; tests are not checked.
var allowed = map[string][]string{
	"internal/chat":            {},
	"internal/perm":            {"internal/chat"},
	"internal/event":           {"internal/chat"},
	"internal/store":           {"internal/chat"},
	"internal/store/sqlstore":  {"internal/chat", "internal/store"},
	"internal/store/sqlite":    {"internal/chat", "internal/store", "internal/store/sqlstore"},
	"internal/store/postgres":  {"internal/chat", "internal/store", "internal/store/sqlstore"},
	"internal/store/storetest": {"internal/chat", "internal/store"},
	"internal/pubsub":          {},
	"internal/pubsub/*":        {"internal/pubsub"},
	"internal/ratelimit":       {},
	"internal/ratelimit/*":     {"internal/ratelimit"},
	"internal/config":          {},
	"internal/presence":        {"internal/chat"},
	"internal/auth":            {"internal/chat"},
	"internal/mail":            {},
	"internal/app":             {"internal/chat", "internal/perm", "internal/event", "internal/store", "internal/pubsub", "internal/presence", "internal/auth", "internal/blob", "internal/voice"},
	"internal/voice":           {},
	"internal/api":             {"internal/chat", "internal/app", "internal/ratelimit", "internal/api/contract"},
	"internal/api/contract":    {},
	"internal/gateway":         {"internal/chat", "internal/app", "internal/event", "internal/pubsub", "internal/ratelimit"},
	"internal/files":           {"internal/chat", "internal/app", "internal/blob", "internal/ratelimit"},
	"internal/blob":            {},
	"internal/blob/*":          {"internal/blob"},
	// Only the wiring may import config and concrete implementations.
	"internal/server":  {"*"},
	"internal/apitest": {"*"},
	"cmd/*":            {"*"},
}

func rule(pkg string) ([]string, bool) {
	if r, ok := allowed[pkg]; ok {
		return r, true
	}
	for pattern, r := range allowed {
		if base, ok := strings.CutSuffix(pattern, "/*"); ok && strings.HasPrefix(pkg, base+"/") {
			return r, true
		}
	}
	return nil, false
}

// TestArchitecture checks every package imports only what its layer may.
func TestArchitecture(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(p.ImportPath, "ermine/")
		if pkg == "ermine" {
			continue
		}
		ok, known := rule(pkg)
		if !known {
			ok = []string{"internal/chat"}
		}
		if slices.Contains(ok, "*") {
			continue
		}
		for _, imp := range p.Imports {
			dep, ours := strings.CutPrefix(imp, "ermine/")
			if !ours {
				continue
			}
			if !slices.Contains(ok, dep) && !(strings.HasPrefix(dep, pkg+"/")) {
				t.Errorf("%s imports %s, which its layer may not", pkg, dep)
			}
		}
	}
}

// TestPackageComments checks every package has a package comment.
func TestPackageComments(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = dirs[filepath.Dir(path)] || hasDoc(t, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range dirs {
		if !ok {
			t.Errorf("package in %s has no package comment", dir)
		}
	}
}

func hasDoc(t *testing.T, path string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return f.Doc != nil && len(strings.TrimSpace(f.Doc.Text())) > 0
}
