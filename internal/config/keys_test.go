package config

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// withNode is Default with one empty voice node, so that walking it
// reaches the node keys too.
func withNode() Config {
	c := Default()
	c.Voice.Nodes = []VoiceNode{{}}
	return c
}

// leaves returns the leaves of c by dotted key name.
func leaves(t *testing.T, c *Config) map[string]leaf {
	t.Helper()
	m := map[string]leaf{}
	if err := walk(reflect.ValueOf(c).Elem(), nil, func(l leaf) error {
		m[keyName(l.path)] = l
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

// change sets l to a value different from its current one and returns the
// value as an environment variable would spell it.
func change(t *testing.T, l leaf) string {
	t.Helper()
	v := l.v
	switch {
	case v.Type() == durationType:
		d := time.Duration(v.Int()) + 1500*time.Millisecond
		v.SetInt(int64(d))
		return d.String()
	case v.Kind() == reflect.String:
		s := "changed-" + keyName(l.path)
		v.SetString(s)
		return s
	case v.Kind() == reflect.Bool:
		v.SetBool(!v.Bool())
		return strconv.FormatBool(v.Bool())
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		v.SetInt(v.Int() + 7)
		return strconv.FormatInt(v.Int(), 10)
	case v.Kind() == reflect.Float64:
		v.SetFloat(v.Float() + 0.5)
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		a, b := "changed-"+keyName(l.path), "second.example.com"
		v.Set(reflect.ValueOf([]string{a, b}))
		return a + "," + b
	}
	t.Fatalf("%s: no sample value for type %s", keyName(l.path), v.Type())
	return ""
}

// TestEveryKeyFromEnv sets each key through its variable alone and checks
// that exactly that key changed.
func TestEveryKeyFromEnv(t *testing.T) {
	base := withNode()
	for name, l := range leaves(t, &base) {
		t.Run(name, func(t *testing.T) {
			want := withNode()
			value := change(t, leaves(t, &want)[name])
			vars := map[string]string{envName(l.path): value}
			got, _, err := Load(nil, func(k string) string { return vars[k] })
			if err != nil {
				t.Fatalf("Load with %s=%q: %v", envName(l.path), value, err)
			}
			if !strings.HasPrefix(name, "voice.nodes[") {
				want.Voice.Nodes = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s=%q gave\n%+v\nwant\n%+v", envName(l.path), value, got, want)
			}
		})
	}
}

// TestEveryKeyFromTOML changes every key at once and reads the result back
// from its TOML form.
func TestEveryKeyFromTOML(t *testing.T) {
	want := withNode()
	for _, l := range leaves(t, &want) {
		change(t, l)
	}
	out, err := want.TOML()
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/all.toml"
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load([]string{"--config", path}, func(string) string { return "" })
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v\nfrom\n%s", got, want, out)
	}
}

// TestKeys checks that every setting has a distinct variable and that
// Keys and walk agree.
func TestKeys(t *testing.T) {
	c := withNode()
	walked := leaves(t, &c)
	keys := Keys()
	if len(keys) != len(walked) {
		t.Errorf("Keys() has %d keys, Config has %d settings", len(keys), len(walked))
	}
	seen := map[string]string{}
	for _, k := range keys {
		if !strings.HasPrefix(k.Env, envPrefix) || len(k.Env) <= len(envPrefix) {
			t.Errorf("%s: bad variable %q", k.TOML, k.Env)
		}
		if prev, ok := seen[k.Env]; ok {
			t.Errorf("%s and %s share variable %s", prev, k.TOML, k.Env)
		}
		seen[k.Env] = k.TOML
		name := strings.Replace(k.TOML, "voice.nodes.", "voice.nodes[0].", 1)
		l, ok := walked[name]
		if !ok {
			t.Errorf("Keys() lists %s, which Config lacks", k.TOML)
			continue
		}
		if env := strings.Replace(k.Env, "<n>", "0", 1); env != envName(l.path) {
			t.Errorf("%s: Keys() says %s, Load reads %s", k.TOML, env, envName(l.path))
		}
		if k.Secret != l.secret {
			t.Errorf("%s: Secret = %v, tag says %v", k.TOML, k.Secret, l.secret)
		}
	}
}

// TestExampleDocumentsEveryKey keeps ermine.example.toml complete: every
// key is set in it, and every key line has a comment line right above it.
func TestExampleDocumentsEveryKey(t *testing.T) {
	const path = "../../ermine.example.toml"
	var c Config
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, k := range md.Keys() {
		defined[k.String()] = true
	}
	for _, k := range Keys() {
		if !defined[k.TOML] {
			t.Errorf("ermine.example.toml does not set %s", k.TOML)
		}
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	keyLine := regexp.MustCompile(`^([a-z0-9_]+)\s*=`)
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := keyLine.FindStringSubmatch(line); m != nil && !strings.HasPrefix(prev, "#") {
			t.Errorf("ermine.example.toml:%d: key %s has no comment line above it", n, m[1])
		}
		prev = strings.TrimSpace(line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
