package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginValidate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"format":1,"version":"1.2.3","namespace":"ermine","id":"hello","entrypoint":"(s) => ({})","enabled":false}`)
	future := write("future.json", `{"format":2,"version":"1.0.0","namespace":"ermine","id":"next","entrypoint":"(s) => ({})"}`)
	bad := write("bad.json", `{"format":1,"version":"1.0","namespace":"ermine","id":"hello","entrypoint":"(s) => ({})"}`)

	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"plugin", "validate", good, future}, env(nil), &out, &errOut); err != nil {
		t.Fatalf("valid manifests: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "good.json: valid plugin ermine/hello 1.2.3 (disabled)") ||
		!strings.Contains(out.String(), "future.json: valid plugin ermine/next 1.0.0 (enabled)") {
		t.Errorf("stdout = %q", out.String())
	}
	if !strings.Contains(errOut.String(), "future.json: warning: format: 2 is not 1") {
		t.Errorf("no format warning: %q", errOut.String())
	}

	out.Reset()
	errOut.Reset()
	err := run(t.Context(), []string{"plugin", "validate", good, bad}, env(nil), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 manifests are invalid") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(errOut.String(), "bad.json: invalid: version: must be a semantic version") {
		t.Errorf("stderr = %q", errOut.String())
	}

	for _, args := range [][]string{{"plugin"}, {"plugin", "check", good}, {"plugin", "validate"}} {
		if err := run(t.Context(), args, env(nil), &out, &errOut); err == nil {
			t.Errorf("%q: want a usage error", args)
		}
	}
	if err := run(t.Context(), []string{"plugin", "validate", filepath.Join(dir, "missing.json")}, env(nil), &out, &errOut); err == nil {
		t.Error("a missing file: want an error")
	}

	// The example plugins shipped with the web client validate.
	examples, _ := filepath.Glob("../../web/plugins/*.json")
	if len(examples) < 2 {
		t.Fatalf("want two example plugins in web/plugins, found %q", examples)
	}
	out.Reset()
	if err := run(t.Context(), append([]string{"plugin", "validate"}, examples...), env(nil), &out, &errOut); err != nil {
		t.Errorf("example plugins: %v\n%s", err, errOut.String())
	}
}
