// Package e2e holds end-to-end tests that build the ermine command and
// run it as separate processes against real PostgreSQL and NATS servers,
// driving them only through their public HTTP and WebSocket interfaces.
// It has no code of its own besides the tests.
package e2e
