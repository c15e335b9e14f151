package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Load builds the configuration from defaults, the TOML file, the
// environment and the flags in args, each overriding the one before, and
// returns it with the arguments left after the flags (a subcommand and its
// arguments). It does not call Validate.
//
// Flags: --config path (or ERMINE_CONFIG), --listen addr, --data dir.
// Flags stop at the first argument that is not a flag. The environment is
// read through getenv; an empty value counts as unset. Booleans are true,
// false, 1 or 0; durations are Go duration strings such as "90s".
//
// With -h or --help the error wraps flag.ErrHelp; print Usage then.
func Load(args []string, getenv func(string) string) (Config, []string, error) {
	fs := flag.NewFlagSet("ermine", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	path := fs.String("config", "", "")
	listen := fs.String("listen", "", "")
	data := fs.String("data", "", "")
	if err := fs.Parse(args); err != nil {
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	c := Default()
	if !set["config"] {
		*path = getenv(envPrefix + "CONFIG")
	}
	if *path != "" {
		if err := readFile(&c, *path); err != nil {
			return Config{}, nil, err
		}
	}
	if err := applyEnv(reflect.ValueOf(&c).Elem(), nil, getenv); err != nil {
		return Config{}, nil, err
	}
	if set["listen"] {
		c.Listen = *listen
	}
	if set["data"] {
		c.Data = *data
	}
	return c, fs.Args(), nil
}

// Usage describes the flags and environment variables understood by Load.
func Usage() string {
	return `Flags (before the subcommand):
  --config path   TOML configuration file (also ERMINE_CONFIG)
  --listen addr   host:port to listen on (also ERMINE_LISTEN; default 127.0.0.1:14702)
  --data dir      data directory (also ERMINE_DATA; default ./data)

Every key of the configuration file can also be set in the environment as
ERMINE_<SECTION>_<KEY>, for example ERMINE_DATABASE_URL or
ERMINE_FILES_S3_BUCKET; voice nodes as ERMINE_VOICE_NODES_<n>_<KEY>, n from 0.
Flags win over the environment, which wins over the file.
`
}

// readFile decodes the TOML file at path over c, rejecting keys that do
// not exist and durations written as numbers.
func readFile(c *Config, path string) error {
	md, err := toml.DecodeFile(path, c)
	if err != nil {
		return fmt.Errorf("config: read %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		names := make([]string, len(und))
		for i, k := range und {
			names[i] = k.String()
		}
		return fmt.Errorf("config: %s: unknown key %s", path, strings.Join(names, ", "))
	}
	// The TOML decoder reads a bare integer as nanoseconds, so
	// keepalive = 60 would mean 60ns; insist on "60s".
	return walk(reflect.ValueOf(c).Elem(), nil, func(l leaf) error {
		if l.v.Type() != durationType || !md.IsDefined(l.path...) {
			return nil
		}
		if typ := md.Type(l.path...); typ != "String" {
			return fmt.Errorf("config: %s: %s: must be a duration string such as \"60s\", not %s",
				path, keyName(l.path), strings.ToLower(typ))
		}
		return nil
	})
}

// applyEnv sets every field under the struct v whose variable is set.
// An array of tables grows by one element for each following index that
// has at least one variable set, so ERMINE_VOICE_NODES_0_URL alone creates
// a node when the file has none.
func applyEnv(v reflect.Value, prefix []string, getenv func(string) string) error {
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
			if err := applyEnv(fv, path, getenv); err != nil {
				return err
			}
		case isArrayOfTables(f.Type):
			for j := 0; ; j++ {
				elem := append(path[:len(path):len(path)], strconv.Itoa(j))
				if j >= fv.Len() {
					if !anyEnv(f.Type.Elem(), elem, getenv) {
						break
					}
					fv.Set(reflect.Append(fv, reflect.Zero(f.Type.Elem())))
				}
				if err := applyEnv(fv.Index(j), elem, getenv); err != nil {
					return err
				}
			}
		default:
			name := envName(path)
			s := getenv(name)
			if s == "" {
				continue
			}
			if err := setString(fv, s); err != nil {
				return fmt.Errorf("config: %s: %w", name, err)
			}
		}
	}
	return nil
}

// anyEnv reports whether any variable of a table of type t at prefix is set.
func anyEnv(t reflect.Type, prefix []string, getenv func(string) string) bool {
	found := false
	_ = walk(reflect.New(t).Elem(), prefix, func(l leaf) error {
		if getenv(envName(l.path)) != "" {
			found = true
		}
		return nil
	})
	return found
}

// setString parses s into v according to its type, strictly: no
// surrounding spaces, no trailing text.
func setString(v reflect.Value, s string) error {
	if v.Type() == durationType {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("invalid duration %q", s)
		}
		v.SetInt(int64(d))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		switch s {
		case "true", "1":
			v.SetBool(true)
		case "false", "0":
			v.SetBool(false)
		default:
			return fmt.Errorf("invalid boolean %q (want true, false, 1 or 0)", s)
		}
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if err != nil {
			return fmt.Errorf("invalid integer %q", s)
		}
		v.SetInt(n)
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.String {
			return errors.New("unsupported setting type " + v.Type().String())
		}
		// A list is written comma-separated: ERMINE_EMBEDS_BLOCKED_DOMAINS=a.com,b.org
		list := reflect.MakeSlice(v.Type(), 0, 4)
		for item := range strings.SplitSeq(s, ",") {
			if item = strings.TrimSpace(item); item != "" {
				list = reflect.Append(list, reflect.ValueOf(item).Convert(v.Type().Elem()))
			}
		}
		v.Set(list)
	case reflect.Float64:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("invalid number %q", s)
		}
		v.SetFloat(n)
	default:
		return errors.New("unsupported setting type " + v.Type().String())
	}
	return nil
}
