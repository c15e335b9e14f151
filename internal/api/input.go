package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"ermine/internal/chat"
)

// This file holds the rules every input passes before a handler sees it,
// so that each store receives the same strings: no text holds NUL (which
// PostgreSQL refuses and SQLite stores) and every identifier is the ULID
// form Ermine issues. A request that breaks them gets the contract's
// error, whatever the backend.

// nulPath returns the location of the first JSON string (object key or
// value) in body that holds U+0000, like "replies[0].id" or "body", and
// false when there is none. body must be valid JSON.
func nulPath(body []byte) (string, bool) {
	if !hasNULEscape(body) {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	type level struct {
		array bool
		index int
		key   string
		inKey bool // an object waiting for its next key
	}
	var stack []level
	path := func(last string) string {
		var b strings.Builder
		for _, l := range stack {
			if l.array {
				fmt.Fprintf(&b, "[%d]", l.index)
			} else if l.key != "" {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(l.key)
			}
		}
		if last != "" {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(last)
		}
		if b.Len() == 0 {
			return "body"
		}
		return strings.ReplaceAll(b.String(), "\x00", `\u0000`)
	}
	// value is called after each complete value of the current level.
	value := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].inKey = true
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "body", true
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '[':
				stack = append(stack, level{array: true})
			case '{':
				stack = append(stack, level{inKey: true})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
		case string:
			if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].inKey {
				stack[n-1].key, stack[n-1].inKey = t, false
				if strings.IndexByte(t, 0) >= 0 {
					return path(""), true
				}
				continue
			}
			if strings.IndexByte(t, 0) >= 0 {
				return path(""), true
			}
			value()
		default:
			value()
		}
	}
}

// hasNULEscape reports whether JSON text holds the escape \u0000 (a raw
// NUL byte cannot appear inside a valid JSON string). It is the fast
// path: bodies without one are not walked.
func hasNULEscape(body []byte) bool {
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte(`u0000`))
		if j < 0 {
			return false
		}
		j += i
		// The escape counts when an odd number of backslashes precede it.
		n := 0
		for k := j - 1; k >= 0 && body[k] == '\\'; k-- {
			n++
		}
		if n%2 == 1 {
			return true
		}
		i = j + 1
	}
}

var idType = reflect.TypeFor[chat.ID]()

// checkIDs walks a decoded body and returns the path of the first
// non-empty chat.ID that is not a well-formed ULID.
func checkIDs(v reflect.Value, path string) (string, bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return checkIDs(v.Elem(), path)
	case reflect.String:
		if v.Type() == idType && v.Len() > 0 && !chat.ID(v.String()).Valid() {
			return path, true
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "", false // raw JSON, bytes
		}
		for i := range v.Len() {
			if p, bad := checkIDs(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); bad {
				return p, true
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			p := join(path, fmt.Sprint(iter.Key().Interface()))
			if p, bad := checkIDs(iter.Key(), p); bad {
				return p, true
			}
			if p, bad := checkIDs(iter.Value(), p); bad {
				return p, true
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == "-" {
				continue
			} else if tag != "" {
				name = tag
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				name = ""
			}
			if p, bad := checkIDs(v.Field(i), join(path, name)); bad {
				return p, true
			}
		}
	}
	return "", false
}

func join(path, name string) string {
	switch {
	case name == "":
		return path
	case path == "":
		return name
	}
	return path + "." + name
}

// checkBody applies the input rules to a decoded body: no string holds
// NUL, every id is a ULID. body is the JSON text v was decoded from.
func checkBody(body []byte, v any) error {
	if p, bad := nulPath(body); bad {
		return chat.ErrInvalidBody(p + ": must not contain NUL characters")
	}
	if p, bad := checkIDs(reflect.ValueOf(v), ""); bad {
		if p == "" {
			p = "body"
		}
		return chat.ErrInvalidBody(p + ": not a valid id")
	}
	return nil
}

// nonIDParams are the path wildcards that are not ids, by route pattern
// prefix: invite codes, emoji (a Unicode emoji or a custom emoji id) and
// mailed codes. Every other wildcard holds an id.
var nonIDParams = map[string]bool{"emoji": true, "code": true, "token": true}

// idQueryParams are the query parameters that hold ids.
var idQueryParams = map[string]bool{"before": true, "after": true, "nearby": true, "user_id": true}

// checkRequest applies the input rules to the path and query of a
// matched route. A path id that is not a ULID, or any path value holding
// NUL or bytes that are not UTF-8, names nothing that can exist, so it
// gets the answer of a missing object (NotFound); a query value holding
// NUL or non-UTF-8 bytes, or a query id that is not a ULID, is a
// validation error naming the parameter.
func checkRequest(r *http.Request) error {
	for _, name := range wildcards(r.Pattern) {
		v := r.PathValue(name)
		if strings.IndexByte(v, 0) >= 0 || !utf8.ValidString(v) {
			return chat.ErrNotFound
		}
		switch {
		case nonIDParams[name]:
		case name == "target" && strings.Contains(r.Pattern, "/invites/{target}"):
			// an invite code
		case name == "target" && strings.Contains(r.Pattern, " /users/{target}") && v == "@me":
		case r.Pattern == "GET /users/{target}/default_avatar":
			// any text picks a picture; nothing is looked up
		default:
			if !chat.ID(v).Valid() {
				return chat.ErrNotFound
			}
		}
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	for name, values := range r.URL.Query() {
		if strings.IndexByte(name, 0) >= 0 || !utf8.ValidString(name) {
			return chat.ErrInvalidBody("query: parameter names must be UTF-8 without NUL characters")
		}
		for _, v := range values {
			if strings.IndexByte(v, 0) >= 0 {
				return chat.ErrInvalidBody(name + ": must not contain NUL characters")
			}
			if !utf8.ValidString(v) {
				return chat.ErrInvalidBody(name + ": not UTF-8")
			}
			if idQueryParams[name] && v != "" && !chat.ID(v).Valid() {
				return chat.ErrInvalidBody(name + ": not a valid id")
			}
		}
	}
	return nil
}

// wildcards returns the names of the {wildcards} of a route pattern.
func wildcards(pattern string) []string {
	var out []string
	for {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(pattern[i:], '}')
		if j < 0 {
			return out
		}
		name := strings.TrimSuffix(pattern[i+1:i+j], "...")
		if name != "$" {
			out = append(out, name)
		}
		pattern = pattern[i+j+1:]
	}
}

// readBody reads a request body of at most limit bytes; a larger one is
// a 413 with a FailedValidation body.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			e := chat.ErrFailedValidation("body: larger than " + strconv.FormatInt(tooBig.Limit, 10) + " bytes")
			e.Status = http.StatusRequestEntityTooLarge
			return nil, e
		}
		return nil, chat.ErrFailedValidation("body: could not be read")
	}
	return body, nil
}
