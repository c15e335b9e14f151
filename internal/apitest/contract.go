package apitest

import (
	"encoding/json"
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

// Contract returns the parsed interface contract.
func Contract(t testing.TB) *openapi3.T {
	t.Helper()
	docOnce.Do(func() {
		data, err := loadable(contract.OpenAPI)
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

// loadable rewrites the one construct of the contract the OpenAPI 3.0
// loader cannot read: a tuple "items": [A, B] (the [timestamp, value]
// pairs of settings) becomes "items": {"anyOf": [A, B]} with exactly two
// items, which checks the same values apart from their order.
func loadable(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
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
	fixServerWithChannels(v)
	return json.Marshal(v)
}

// fixServerWithChannels corrects the contract's FetchServerResponse. With
// include_channels the reference server flattens the server and adds a
// second "channels" key holding Channel objects; JSON readers keep the
// last key, so clients receive channel objects there (revolt.js builds
// channels from them). The generated schema says strings in both
// variants; the second variant is rewritten to say Channel objects.
func fixServerWithChannels(doc any) {
	schemas, _ := dig(doc, "components", "schemas").(map[string]any)
	resp, _ := schemas["FetchServerResponse"].(map[string]any)
	variants, _ := resp["anyOf"].([]any)
	if len(variants) != 2 {
		return
	}
	if ch, ok := dig(variants[1], "properties", "channels").(map[string]any); ok {
		ch["items"] = map[string]any{"$ref": "#/components/schemas/Channel"}
	}
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
