package clients_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"ermine/internal/importer/revolt/revolttest"
)

// importedScenarios is how many tests imported/*.test.mjs declare.
const importedScenarios = 3

// TestClientLibrariesImported imports a generated Revolt/Stoat dump with
// the built binary (ermine import revolt), starts Ermine on the result
// and runs imported/*.test.mjs: revolt.js and stoat.js log in with an
// imported account (password, old session token, bot token) and read
// the imported history.
func TestClientLibrariesImported(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the real-client suite builds and runs Ermine and Node")
	}
	node := nodeSuite(t)
	bin := buildErmine(t)
	f, err := revolttest.Write(t.TempDir(), revolttest.Options{Messages: 150})
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	imp := exec.CommandContext(t.Context(), bin, "--data", data, "import", "revolt", "--dump", f.Dump, "--files", f.Files)
	imp.Env = append(environ(), "ERMINE_IMPORT_ENCRYPTION_KEY="+f.Key)
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("ermine import revolt: %v\n%s", err, out)
	}
	url := startErmineOn(t, bin, data)

	desc, err := json.Marshal(map[string]any{
		"email": f.AliceEmail, "password": f.Password, "session": f.SessionToken, "bot": f.BotToken,
		"alice": f.Alice, "botUser": f.BotUser, "server": f.Server, "channel": f.General,
		"messages": f.Messages, "pinned": f.Pinned,
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("imported", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no imported/*.test.mjs (%v)", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	args := append([]string{"--test", "--test-concurrency=1", "--test-reporter=spec"}, files...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(environ(), "ERMINE_URL="+url, "ERMINE_IMPORT="+string(desc), "NO_COLOR=1", "FORCE_COLOR=0")
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("the imported-instance suite failed: %v (output above)", err)
	}
	counts := summary(out)
	if counts["pass"] != importedScenarios || counts["tests"] != importedScenarios {
		t.Errorf("pass %d of %d tests, want %d: every scenario must run and pass", counts["pass"], counts["tests"], importedScenarios)
	}
}
