package server

import (
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"ermine/internal/config"
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

// TestUnwritableDatabase starts a server on a database its user cannot
// write (another user's file, 0644): it must refuse, naming the file,
// the user and the permission, not serve read-only. Root may write any
// file, so as root the server runs as nobody in a child process.
func TestUnwritableDatabase(t *testing.T) {
	if os.Getenv("ERMINE_TEST_UNWRITABLE_CHILD") != "" {
		t.Skip("the child runs TestUnwritableDatabaseChild")
	}
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data, cfg.Listen = dir, "127.0.0.1:0"
	st, err := OpenStore(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db := cfg.SQLitePath()
	if os.Getuid() != 0 {
		if err := os.Chmod(db, 0o444); err != nil {
			t.Fatal(err)
		}
		srv, err := Start(t.Context(), cfg, slog.New(slog.DiscardHandler))
		if err == nil {
			_ = srv.Shutdown(t.Context())
			t.Fatal("a read-only database was served")
		}
		checkUnwritableMessage(t, err.Error(), db)
		return
	}
	// The data directory is nobody's to write; the database is root's.
	for _, p := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	bin := filepath.Join(t.TempDir(), "server.test")
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestUnwritableDatabaseChild$", "-test.v")
	cmd.Env = append(os.Environ(), "ERMINE_TEST_UNWRITABLE_CHILD="+dir, "HOME="+dir, "GOCOVERDIR=")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "START ERROR: ") {
		t.Fatalf("the server as nobody did not refuse:\n%s", out)
	}
	checkUnwritableMessage(t, string(out), db)
}

func checkUnwritableMessage(t *testing.T, msg, db string) {
	t.Helper()
	for _, want := range []string{db, "permission denied", "uid ", "mode -r"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q lacks %q", msg, want)
		}
	}
}

// TestUnwritableDatabaseChild is TestUnwritableDatabase's server, run as
// nobody.
func TestUnwritableDatabaseChild(t *testing.T) {
	dir := os.Getenv("ERMINE_TEST_UNWRITABLE_CHILD")
	if dir == "" {
		t.Skip("run by TestUnwritableDatabase")
	}
	cfg := config.Default()
	cfg.Data, cfg.Listen = dir, "127.0.0.1:0"
	srv, err := Start(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Log("START ERROR: " + err.Error())
		return
	}
	_ = srv.Shutdown(t.Context())
	t.Log("SERVED")
}

// TestDiskUploadsOnSeveralNodes: a shared bus says several nodes; with
// uploads on local disk, start warns that files will be missing on the
// other nodes.
func TestDiskUploadsOnSeveralNodes(t *testing.T) {
	for _, tc := range []struct {
		bus, backend string
		warn         bool
	}{
		{config.BusInproc, config.FilesDisk, false},
		{config.BusNATS, config.FilesDisk, true},
		{config.BusRedis, config.FilesDisk, true},
		{config.BusNATS, config.FilesS3, false},
	} {
		cfg := config.Default()
		cfg.Bus.Kind, cfg.Files.Backend = tc.bus, tc.backend
		w := diskUploadsWarning(cfg)
		if (w != "") != tc.warn || tc.warn && (!strings.Contains(w, "s3") || !strings.Contains(w, filepath.Join(cfg.Data, "files"))) {
			t.Errorf("%s bus, %s uploads: warning %q", tc.bus, tc.backend, w)
		}
	}
}

// The node file hands the id of the server before to the next one, and
// nothing while a server on the same directory holds it.
func TestClaimNode(t *testing.T) {
	dir := t.TempDir()
	first, prev, err := claimNode(dir)
	if err != nil || first == nil || prev != "" {
		t.Fatalf("first claim = %v, %q, %v", first, prev, err)
	}
	if err := first.write("node-one"); err != nil {
		t.Fatal(err)
	}
	// Locks of one file opened twice conflict within a process too.
	other, prev, err := claimNode(dir)
	if err != nil || other != nil || prev != "" {
		t.Fatalf("claim while held = %v, %q, %v", other, prev, err)
	}
	if err := other.write("x"); err != nil || other.close() != nil {
		t.Fatal("a nil node file does something")
	}
	if err := first.close(); err != nil {
		t.Fatal(err)
	}
	next, prev, err := claimNode(dir)
	if err != nil || next == nil || prev != "node-one" {
		t.Fatalf("claim after = %v, %q, %v", next, prev, err)
	}
	if err := next.write("n2"); err != nil {
		t.Fatal(err)
	}
	if err := next.close(); err != nil {
		t.Fatal(err)
	}
	last, prev, _ := claimNode(dir)
	t.Cleanup(func() { _ = last.close() })
	if prev != "n2" {
		t.Fatalf("a shorter id left %q", prev)
	}
}
