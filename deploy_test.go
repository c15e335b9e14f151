package ermine

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ermine/internal/config"
)

// TestDeployVariables checks that every ERMINE_* variable the deployment
// examples set names a setting, so a renamed key cannot leave them
// silently wrong.
func TestDeployVariables(t *testing.T) {
	name := regexp.MustCompile(`\bERMINE_[A-Z0-9_]+`)
	seen := 0
	err := filepath.WalkDir("deploy", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var env []string
		for _, n := range name.FindAllString(string(data), -1) {
			env = append(env, n+"=x")
		}
		seen += len(env)
		if unknown := config.UnknownEnv(env); len(unknown) > 0 {
			t.Errorf("%s: %v name no setting", path, unknown)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Errorf("found only %d ERMINE_* variables under deploy/", seen)
	}
}

// TestDeployProxyConfig loads the Ermine configuration each proxy example
// shows in its comments, which must be valid as written.
func TestDeployProxyConfig(t *testing.T) {
	for _, path := range []string{"deploy/caddy/Caddyfile", "deploy/nginx/ermine.conf"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, block, ok := strings.Cut(string(data), "In /etc/ermine/ermine.toml:\n#\n")
		if !ok {
			t.Fatalf("%s shows no configuration", path)
		}
		var toml strings.Builder
		for _, line := range strings.Split(block, "\n") {
			rest, ok := strings.CutPrefix(line, "#   ")
			if !ok {
				break
			}
			toml.WriteString(rest + "\n")
		}
		file := filepath.Join(t.TempDir(), "ermine.toml")
		if err := os.WriteFile(file, []byte(toml.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		c, _, err := config.Load([]string{"--config", file}, func(string) string { return "" })
		if err == nil {
			err = c.Validate()
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", path, err, toml.String())
			continue
		}
		if !strings.HasPrefix(c.Public.EventsURL, "wss://") || len(c.Public.TrustedProxies) == 0 {
			t.Errorf("%s: the example sets no wss events URL or trusted proxy: %+v", path, c.Public)
		}
	}
}

// TestSystemdUnit runs systemd-analyze verify on the service (with a
// binary that exists here in place of /usr/local/bin/ermine): any warning,
// such as a misspelt or unknown directive, fails.
func TestSystemdUnit(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed: the unit is not verified")
	}
	unit, err := os.ReadFile("deploy/systemd/ermine.service")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ermine.service")
	if err := os.WriteFile(path, bytes.ReplaceAll(unit, []byte("/usr/local/bin/ermine"), []byte(self)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), tool, "verify", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestSystemdUnitAccess checks what the unit and its instructions give
// the service: with a user systemd makes (DynamicUser), the service can
// read nothing root keeps in /etc/ermine, and systemd does not change an
// existing directory's owner, so the configuration must reach it as a
// credential (LoadCredential, read by systemd as root) and be read from
// the credentials directory; its state directory must be the one
// StateDirectory gives it. (No systemd runs here to start the unit.)
func TestSystemdUnitAccess(t *testing.T) {
	unit, err := os.ReadFile("deploy/systemd/ermine.service")
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string][]string{}
	for _, line := range strings.Split(string(unit), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			settings[k] = append(settings[k], v)
		}
	}
	cmdline := strings.Fields(strings.Join(settings["ExecStart"], " "))
	arg := func(flag string) string {
		for i, a := range cmdline {
			if a == flag && i+1 < len(cmdline) {
				return cmdline[i+1]
			}
		}
		return ""
	}
	if strings.Join(settings["DynamicUser"], "") == "yes" {
		config := arg("--config")
		cred := ""
		for _, c := range settings["LoadCredential"] {
			if name, src, ok := strings.Cut(c, ":"); ok && "%d/"+name == config {
				cred = src
			}
		}
		if cred == "" {
			t.Errorf("a dynamic user cannot read --config %s: the unit must pass it as a credential (LoadCredential) and read %%d/NAME", config)
		}
	}
	if data, state := arg("--data"), settings["StateDirectory"]; len(state) != 1 || data != "/var/lib/"+state[0] {
		t.Errorf("--data %s is not the StateDirectory %v systemd gives the service to write", data, state)
	}
	// The instructions keep the configuration root's, and the unit's
	// credential is what they install.
	readme, err := os.ReadFile("deploy/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"install -d -m 0700 /etc/ermine", "install -m 0600", "LoadCredential=ermine.toml:/etc/ermine/ermine.toml"} {
		if !strings.Contains(string(readme), want) && !strings.Contains(string(unit), want) {
			t.Errorf("the instructions lack %q", want)
		}
	}
}
