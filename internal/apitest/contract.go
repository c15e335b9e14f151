package apitest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"ermine/internal/api/contract"
)

var (
	docOnce sync.Once
	doc     *openapi3.T
	docErr  error
)

// Contract returns the parsed document Ermine serves: the interface
// contract with its additions (contract.Served).
func Contract(t testing.TB) *openapi3.T {
	t.Helper()
	docOnce.Do(func() {
		served, err := contract.Served()
		if err != nil {
			docErr = err
			return
		}
		data, err := loadable(served)
		if err != nil {
			docErr = err
			return
		}
		loader := openapi3.NewLoader()
		// The document is loaded, not validated: its schema names
		// ("Authifier Error") break the 3.0 identifier rule, which does not
		// matter for checking responses against the schemas.
		doc, docErr = loader.LoadFromData(data)
	})
	if docErr != nil {
		t.Fatalf("apitest: load contract: %v", docErr)
	}
	return doc
}

// CheckSchema fails the test when body does not match the named schema of
// the contract's components.
func CheckSchema(t testing.TB, schema string, body []byte) {
	t.Helper()
	ref, ok := Contract(t).Components.Schemas[schema]
	if !ok {
		t.Fatalf("apitest: no schema %q in the contract", schema)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("apitest: body is not JSON: %v", err)
	}
	if err := ref.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		t.Fatalf("response does not match schema %s: %v\nbody: %s", schema, err, body)
	}
}

// loadable rewrites what the checks cannot take as published:
//
//   - the one construct the OpenAPI 3.0 loader cannot read: a tuple
//     "items": [A, B] (the [timestamp, value] pairs of settings) becomes
//     "items": {"anyOf": [A, B]} with exactly two items, which checks the
//     same values apart from their order;
//   - one schema the contract's generator got wrong: the with-channels
//     variant of FetchServerResponse (GET /servers/{target}?include_channels=true)
//     lists channel ids, because Server's own channels field was flattened
//     over it, where the server sends Channel objects and revolt.js's
//     ServerCollection.fetch hydrates them as such.
func loadable(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	channels, err := lookup(v, "components", "schemas", "FetchServerResponse", "anyOf", 1, "properties", "channels")
	if err != nil {
		return nil, fmt.Errorf("rewrite FetchServerResponse: %w", err)
	}
	channels.(map[string]any)["items"] = map[string]any{"$ref": "#/components/schemas/Channel"}
	var fix func(any)
	fix = func(n any) {
		switch n := n.(type) {
		case map[string]any:
			if items, ok := n["items"].([]any); ok {
				n["items"] = map[string]any{"anyOf": items}
				n["minItems"], n["maxItems"] = len(items), len(items)
			}
			for _, c := range n {
				fix(c)
			}
		case []any:
			for _, c := range n {
				fix(c)
			}
		}
	}
	fix(v)
	return json.Marshal(v)
}

// lookup follows object keys (string) and array indexes (int) from v.
func lookup(v any, path ...any) (any, error) {
	for _, step := range path {
		switch k := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok || m[k] == nil {
				return nil, fmt.Errorf("no %q", k)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil, fmt.Errorf("no item %d", k)
			}
			v = a[k]
		}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("not an object")
	}
	return v, nil
}
