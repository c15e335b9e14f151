package config

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The settings are walked by reflection over the toml tags of Config, so
// a new field is reachable from TOML, the environment, Masked and the
// documentation test without a table to keep in step.

var durationType = reflect.TypeFor[time.Duration]()

// envPrefix starts every environment variable name.
const envPrefix = "ERMINE_"

// envName returns the variable for a key path: ["files","s3","bucket"] is
// ERMINE_FILES_S3_BUCKET. Indexes of array elements appear as numbers:
// ERMINE_VOICE_NODES_0_URL.
func envName(path []string) string {
	return envPrefix + strings.ToUpper(strings.Join(path, "_"))
}

// keyName returns the dotted key for messages, with array indexes in
// brackets: voice.nodes[0].url.
func keyName(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// tomlName is the key of a struct field, or "" for a field without one.
func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// isTable reports whether values of t are TOML tables walked field by field.
func isTable(t reflect.Type) bool { return t.Kind() == reflect.Struct && t != durationType }

// isArrayOfTables reports whether t is a slice of tables, like voice.nodes.
func isArrayOfTables(t reflect.Type) bool { return t.Kind() == reflect.Slice && isTable(t.Elem()) }

// leaf is one setting inside a value being walked.
type leaf struct {
	path   []string      // key path, array indexes as decimal strings
	secret bool          // tagged secret:"true"
	v      reflect.Value // settable field
}

// walk calls fn for every leaf setting under the struct v, in field order,
// descending into tables and into each element of arrays of tables.
// v must be addressable.
func walk(v reflect.Value, prefix []string, fn func(leaf) error) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := tomlName(f)
		if name == "" {
			continue
		}
		path := append(prefix[:len(prefix):len(prefix)], name)
		fv := v.Field(i)
		switch {
		case isTable(f.Type):
			if err := walk(fv, path, fn); err != nil {
				return err
			}
		case isArrayOfTables(f.Type):
			for j := range fv.Len() {
				if err := walk(fv.Index(j), append(path[:len(path):len(path)], strconv.Itoa(j)), fn); err != nil {
					return err
				}
			}
		default:
			if err := fn(leaf{path: path, secret: f.Tag.Get("secret") == "true", v: fv}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Key describes one setting for documentation and tests.
type Key struct {
	TOML   string // dotted key; array elements without an index: voice.nodes.url
	Env    string // environment variable; <n> stands for an array index
	Secret bool   // hidden by Masked
}

// Keys lists every setting of Config in field order.
func Keys() []Key {
	var keys []Key
	var visit func(t reflect.Type, prefix, envPath []string)
	visit = func(t reflect.Type, prefix, envPath []string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name := tomlName(f)
			if name == "" {
				continue
			}
			path := append(prefix[:len(prefix):len(prefix)], name)
			env := append(envPath[:len(envPath):len(envPath)], name)
			switch {
			case isTable(f.Type):
				visit(f.Type, path, env)
			case isArrayOfTables(f.Type):
				visit(f.Type.Elem(), path, append(env, "<n>"))
			default:
				keys = append(keys, Key{
					TOML:   strings.Join(path, "."),
					Env:    strings.Replace(envName(env), "<N>", "<n>", 1),
					Secret: f.Tag.Get("secret") == "true",
				})
			}
		}
	}
	visit(reflect.TypeFor[Config](), nil, nil)
	return keys
}

// notSettings are ERMINE_* variables that are not settings and must not be
// reported as unknown: the test suites' and the developer tools'.
var notSettings = []string{"ERMINE_TEST_", "ERMINE_E2E_", "ERMINE_CONTRACT_REPORT", "ERMINE_SCALE_DATABASE"}

// UnknownEnv lists, sorted, the ERMINE_* variables of environ (as
// os.Environ gives it) that name no setting, so that a misspelt
// ERMINE_DATABSE_URL is reported instead of silently ignored.
func UnknownEnv(environ []string) []string {
	known := map[string]bool{envPrefix + "CONFIG": true}
	var arrays [][2]string // ERMINE_VOICE_NODES_, _URL around <n>
	for _, k := range Keys() {
		if before, after, ok := strings.Cut(k.Env, "<n>"); ok {
			arrays = append(arrays, [2]string{before, after})
			continue
		}
		known[k.Env] = true
	}
	var out []string
next:
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || known[name] {
			continue
		}
		for _, p := range notSettings {
			if strings.HasPrefix(name, p) {
				continue next
			}
		}
		for _, a := range arrays {
			if n, ok := strings.CutPrefix(name, a[0]); ok {
				if n, ok = strings.CutSuffix(n, a[1]); ok && n != "" && strings.Trim(n, "0123456789") == "" {
					continue next
				}
			}
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
