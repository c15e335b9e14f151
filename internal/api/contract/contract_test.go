package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestServed checks the additions apply and that each added operation,
// schema and error variant names the reference version it comes from.
func TestServed(t *testing.T) {
	doc, err := Served()
	if err != nil {
		t.Fatal(err)
	}
	var served map[string]any
	if err := json.Unmarshal(doc, &served); err != nil {
		t.Fatal(err)
	}
	var patch []struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	if err := json.Unmarshal(Additions, &patch); err != nil {
		t.Fatal(err)
	}
	for _, p := range patch {
		if p.Op != "add" {
			t.Errorf("%s %s: additions only add", p.Op, p.Path)
		}
		obj, ok := p.Value.(map[string]any)
		if !ok || strings.HasPrefix(p.Path, "/info/") || strings.HasPrefix(p.Path, "/components/parameters") ||
			strings.HasSuffix(p.Path, "/x-reference-version") {
			continue
		}
		if strings.HasPrefix(p.Path, "/paths/") && obj["operationId"] == nil && !strings.HasSuffix(p.Path, "/parameters/-") {
			for method, op := range obj { // a whole path item
				if m, ok := op.(map[string]any); ok && m["x-reference-version"] == nil {
					t.Errorf("%s %s: no x-reference-version", p.Path, method)
				}
			}
			continue
		}
		if obj["x-reference-version"] == nil {
			t.Errorf("%s: no x-reference-version", p.Path)
		}
	}
}
