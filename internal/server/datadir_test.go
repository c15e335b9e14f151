package server

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := checkDataDir(dir); err != nil {
		t.Fatalf("a new directory: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the check left %v behind", entries)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := checkDataDir(filepath.Join(file, "data")); err == nil || !strings.Contains(err.Error(), "data directory "+file) {
		t.Errorf("a path under a file: %v", err)
	}
	// Root may write anywhere, so the refusal is made up.
	for _, e := range []error{&fs.PathError{Op: "open", Path: "/srv/ermine/x", Err: syscall.EACCES}, syscall.EROFS} {
		msg := dataDirError("/srv/ermine", e).Error()
		for _, want := range []string{"/srv/ermine", "permission denied", "cannot write there", "user ", "--data"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%v: %q lacks %q", e, msg, want)
			}
		}
	}
}
