// Package chat holds Ermine's domain: the resources of the chat platform
// interface with their wire JSON tags, identifiers, timestamps, events and
// the catalogue of errors a client can be told about.
//
// Field names and shapes are copied exactly from the interface contract
// (openapi.json); Go spelling is used in code and wire spelling in tags.
// Fields that the contract omits when they hold their default value carry
// omitempty, so objects serialise as real clients expect.
package chat
