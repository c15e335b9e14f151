// Package contract embeds the interface contract Ermine implements:
// openapi.json of the chat platform API (MIT licence, see LICENSE beside
// it). The API serves it at /openapi.json and browses it at /swagger, and
// the tests validate responses against it.
package contract

import _ "embed"

// OpenAPI is the contract as published.
//
//go:embed openapi.json
var OpenAPI []byte
