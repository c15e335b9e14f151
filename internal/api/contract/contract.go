// Package contract embeds the interface contract Ermine implements:
// openapi.json of the chat platform API (MIT licence, see LICENSE beside
// it), and additions.json, what Ermine serves beyond it from later
// versions of the reference. The API serves the two merged at
// /openapi.json and browses them at /swagger, and the tests validate
// responses against the merged document.
//
// additions.json is a JSON Patch (RFC 6902) applied to the contract in
// order: add an operation under /paths, a schema under
// /components/schemas, a field under a schema's properties, a value to
// an enum or a variant to a oneOf with "/-". Every added operation,
// schema, field and error variant carries "x-reference-version", the
// reference release it first appeared in; enum values are listed in an
// "x-reference-version" map on their enum. The contract file itself is
// never edited, so it stays the published document.
package contract

import (
	_ "embed"
	"fmt"
	"sync"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// OpenAPI is the contract as published.
//
//go:embed openapi.json
var OpenAPI []byte

// Additions is the JSON Patch that turns the contract into the document
// Ermine serves.
//
//go:embed additions.json
var Additions []byte

// Served returns the contract with the additions applied: the document
// that describes what Ermine serves. It is built once; an error means
// additions.json does not apply to the contract (a test catches that).
var Served = sync.OnceValues(func() ([]byte, error) {
	patch, err := jsonpatch.DecodePatch(Additions)
	if err != nil {
		return nil, fmt.Errorf("contract: decode additions: %w", err)
	}
	doc, err := patch.ApplyIndent(OpenAPI, "")
	if err != nil {
		return nil, fmt.Errorf("contract: apply additions: %w", err)
	}
	return doc, nil
})
