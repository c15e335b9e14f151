package webapp_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"ermine/internal/webapp"
)

// vector is one case of web/src/plugins/manifest-vectors.json, which the
// web client's Vitest suite runs too, so both sides apply the same rules.
type vector struct {
	Name     string `json:"name"`
	JSON     string `json:"json"`
	Valid    bool   `json:"valid"`
	Field    string `json:"field"`
	Warnings int    `json:"warnings"`
	Enabled  bool   `json:"enabled"`
}

func TestManifestVectors(t *testing.T) {
	data, err := os.ReadFile("../../web/src/plugins/manifest-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []vector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 20 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			m, warnings, err := webapp.ParseManifest([]byte(v.JSON))
			if !v.Valid {
				var me *webapp.ManifestError
				if !errors.As(err, &me) {
					t.Fatalf("want an error naming %q, got %v", v.Field, err)
				}
				if me.Field != v.Field {
					t.Fatalf("error names %q (%v), want %q", me.Field, err, v.Field)
				}
				return
			}
			if err != nil {
				t.Fatalf("want valid, got %v", err)
			}
			if len(warnings) != v.Warnings {
				t.Errorf("warnings %q, want %d", warnings, v.Warnings)
			}
			if m.Enabled != v.Enabled {
				t.Errorf("enabled %v, want %v", m.Enabled, v.Enabled)
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"format":1,"version":"1.0.0","namespace":"a","id":"b","entrypoint":"()=>({})"}`))
	f.Add([]byte(`{"format":1.5}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := webapp.ParseManifest(data)
		if err != nil {
			var me *webapp.ManifestError
			if !errors.As(err, &me) || me.Field == "" {
				t.Fatalf("error without a field: %v", err)
			}
			return
		}
		if m.Namespace == "" || m.ID == "" || m.Version == "" || m.Entrypoint == "" {
			t.Fatalf("valid manifest with an empty field: %+v", m)
		}
	})
}
