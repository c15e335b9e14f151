package config

import (
	"bytes"
	"fmt"
	"net/url"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// mask replaces a secret that is set.
const mask = "****"

// Masked returns a copy of c that is safe to print: every secret that is
// set becomes "****", as does the password inside database.url and bus.url.
// c itself is not changed.
func (c Config) Masked() Config {
	m := c
	cloneArrays(reflect.ValueOf(&m).Elem())
	_ = walk(reflect.ValueOf(&m).Elem(), nil, func(l leaf) error {
		if l.secret && l.v.Kind() == reflect.String && l.v.String() != "" {
			l.v.SetString(mask)
		}
		return nil
	})
	m.Database.URL = maskURLPassword(m.Database.URL)
	m.Bus.URL = maskURLPassword(m.Bus.URL)
	return m
}

// cloneArrays gives every array of tables under the struct v its own
// backing array, so that changing the copy leaves the original alone.
func cloneArrays(v reflect.Value) {
	for i := range v.NumField() {
		fv := v.Field(i)
		switch t := fv.Type(); {
		case tomlName(v.Type().Field(i)) == "":
		case isTable(t):
			cloneArrays(fv)
		case isArrayOfTables(t) && !fv.IsNil():
			fv.Set(reflect.AppendSlice(reflect.MakeSlice(t, 0, fv.Len()), fv))
			for j := range fv.Len() {
				cloneArrays(fv.Index(j))
			}
		}
	}
}

// maskURLPassword hides the password of a URL's user information.
func maskURLPassword(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); !ok {
		return s
	}
	// url.String escapes '*'; go through a placeholder that needs no
	// escaping. A user name cannot hold ":x@" unescaped, so the replace
	// hits the password only.
	u.User = url.UserPassword(u.User.Username(), "x")
	return strings.Replace(u.String(), ":x@", ":"+mask+"@", 1)
}

// TOML returns c as a configuration file that Load reads back to the same
// Config. Call Masked first when the output is shown to people.
func (c Config) TOML() (string, error) {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	if err := enc.Encode(c); err != nil {
		return "", fmt.Errorf("config: encode: %w", err)
	}
	return b.String(), nil
}
