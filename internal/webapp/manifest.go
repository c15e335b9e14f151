package webapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
)

// Manifest is a client plugin manifest, revision 1 (the seed's part 2).
// The web client's plugin manager (web/src/plugins/manifest.ts) applies
// the same rules; web/src/plugins/manifest-vectors.json holds the cases
// both test suites check.
type Manifest struct {
	Format     int    `json:"format"`
	Version    string `json:"version"`
	Namespace  string `json:"namespace"`
	ID         string `json:"id"`
	Entrypoint string `json:"entrypoint"`
	Enabled    bool   `json:"enabled"`
}

// ManifestError names the field a manifest gets wrong.
type ManifestError struct {
	Field   string
	Message string
}

func (e *ManifestError) Error() string { return e.Field + ": " + e.Message }

var (
	// semverRE is the Semantic Versioning 2.0.0 grammar.
	semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
		`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
		`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	// slugRE is a URL slug: lower-case letters and digits in words joined by single hyphens.
	slugRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
)

// MaxNameLength bounds namespace and id.
const MaxNameLength = 64

// ParseManifest checks a manifest's JSON. It returns the manifest (with
// enabled defaulting to true) and warnings that do not make it invalid
// (a format other than 1, which the seed says is not enforced yet), or
// a *ManifestError naming the first field that is wrong.
func ParseManifest(data []byte) (Manifest, []string, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return Manifest{}, nil, &ManifestError{"manifest", "must be a JSON object"}
	}
	if dec.More() {
		return Manifest{}, nil, &ManifestError{"manifest", "must be a single JSON object"}
	}
	m := Manifest{Enabled: true}
	var warnings []string

	f, ok := raw["format"]
	if !ok {
		return m, nil, &ManifestError{"format", "is required (set it to 1)"}
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(f))
	d.UseNumber()
	_ = d.Decode(&v) // f is valid JSON: it came out of the object
	num, isNum := v.(json.Number)
	if !isNum {
		return m, nil, &ManifestError{"format", "must be an integer (1)"}
	}
	// JSON has one number type: 1.0 is the integer 1, as JavaScript reads it.
	fl, err := num.Float64()
	if err != nil || fl != math.Trunc(fl) || math.Abs(fl) > 1<<53 {
		return m, nil, &ManifestError{"format", "must be an integer (1)"}
	}
	n := int64(fl)
	if n != 1 {
		warnings = append(warnings, fmt.Sprintf("format: %d is not 1; it is accepted for now, but set it to 1 to avoid future breakage", n))
	}
	m.Format = int(n)

	str := func(name string, dst *string) error {
		v, ok := raw[name]
		if !ok {
			return &ManifestError{name, "is required"}
		}
		if json.Unmarshal(v, dst) != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return &ManifestError{name, "must be a string"}
		}
		return nil
	}
	if err := str("version", &m.Version); err != nil {
		return m, nil, err
	}
	if !semverRE.MatchString(m.Version) {
		return m, nil, &ManifestError{"version", "must be a semantic version such as 1.0.0"}
	}
	if err := str("namespace", &m.Namespace); err != nil {
		return m, nil, err
	}
	if err := name("namespace", m.Namespace); err != nil {
		return m, nil, err
	}
	if err := str("id", &m.ID); err != nil {
		return m, nil, err
	}
	if len(m.ID) > MaxNameLength || !slugRE.MatchString(m.ID) {
		return m, nil, &ManifestError{"id", fmt.Sprintf("must be a URL slug (lower-case letters, digits and single hyphens, at most %d characters)", MaxNameLength)}
	}
	if err := str("entrypoint", &m.Entrypoint); err != nil {
		return m, nil, err
	}
	if len(bytes.TrimSpace([]byte(m.Entrypoint))) == 0 {
		return m, nil, &ManifestError{"entrypoint", "must be the JavaScript source of a function"}
	}
	if v, ok := raw["enabled"]; ok {
		if json.Unmarshal(v, &m.Enabled) != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return m, nil, &ManifestError{"enabled", "must be true or false"}
		}
	}
	return m, warnings, nil
}

// name checks a namespace: not blank, no "/" (it separates namespace and
// id in a plugin's key), no control characters, bounded.
func name(field, s string) error {
	if len(bytes.TrimSpace([]byte(s))) == 0 {
		return &ManifestError{field, "must not be empty"}
	}
	if len([]rune(s)) > MaxNameLength {
		return &ManifestError{field, fmt.Sprintf("must be at most %d characters", MaxNameLength)}
	}
	for _, r := range s {
		if r == '/' || r < 0x20 || r == 0x7f {
			return &ManifestError{field, `must not contain "/" or control characters`}
		}
	}
	return nil
}
