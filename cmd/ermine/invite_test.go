package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/server"
)

func noEnv(string) string { return "" }

// ermine runs the command line and returns its output.
func ermine(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, noEnv, &out, &errOut)
	return out.String(), err
}

func TestInviteCommand(t *testing.T) {
	dir := t.TempDir()
	// A data directory without an instance is refused (a mistyped
	// --data would print codes no server accepts), and left alone.
	for _, args := range [][]string{{"invite", "create", "3"}, {"invite", "list"}, {"admin", "users"}, {"admin", "stats"}} {
		_, err := ermine(t, append([]string{"--data", filepath.Join(dir, "typo")}, args...)...)
		if !errors.Is(err, server.ErrNoInstance) || !strings.Contains(err.Error(), filepath.Join(dir, "typo", "ermine.db")) {
			t.Errorf("%q in a missing data directory: %v", args, err)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, "ermine.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ermine(t, "--data", empty, "admin", "users"); !errors.Is(err, server.ErrNoInstance) {
		t.Errorf("admin users on an empty database: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused command created the data directory: %v", err)
	}
	// Making one on purpose.
	out, err := ermine(t, "--data", dir, "invite", "create", "--create-instance", "3")
	if err != nil {
		t.Fatalf("invite create: %v", err)
	}
	codes := strings.Fields(out)
	if len(codes) != 3 {
		t.Fatalf("invite create 3 printed %q", out)
	}
	for _, c := range codes {
		if !regexp.MustCompile(`^[0-9A-Za-z]{10}$`).MatchString(c) {
			t.Errorf("code %q is not 10 letters and digits", c)
		}
	}
	one, err := ermine(t, "--data", dir, "invite", "create")
	if err != nil || len(strings.Fields(one)) != 1 {
		t.Fatalf("invite create = %q, %v; want one code", one, err)
	}

	// Mark one used, as registration does, and list.
	ctx := context.Background()
	cfg := config.Default()
	cfg.Data = dir
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := st.FetchRegistrationInvite(ctx, codes[1])
	if err != nil {
		t.Fatalf("code %s not stored: %v", codes[1], err)
	}
	user := chat.NewID()
	inv.Used, inv.UsedBy = true, &user
	if err := st.UpdateRegistrationInvite(ctx, inv); err != nil {
		t.Fatal(err)
	}
	st.Close()

	list, err := ermine(t, "--data", dir, "invite", "list")
	if err != nil {
		t.Fatalf("invite list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "CODE") {
		t.Fatalf("invite list printed:\n%s", list)
	}
	for _, c := range append(codes, strings.TrimSpace(one)) {
		if !strings.Contains(list, c) {
			t.Errorf("list lacks %s:\n%s", c, list)
		}
	}
	for _, l := range lines[1:] {
		used := strings.HasSuffix(l, string(user))
		if used != strings.HasPrefix(l, codes[1]) || !used && !strings.HasSuffix(l, "-") {
			t.Errorf("line %q: used = %v", l, used)
		}
	}

	for _, bad := range [][]string{
		{"invite"}, {"invite", "create", "0"}, {"invite", "create", "x"}, {"invite", "create", "1", "2"},
		{"invite", "list", "all"}, {"invite", "remove"},
	} {
		if _, err := ermine(t, append([]string{"--data", dir}, bad...)...); err == nil {
			t.Errorf("ermine %q succeeded", bad)
		}
	}
}
