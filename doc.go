// Package ermine is the root of the Ermine chat server module. The server
// is in cmd/ermine and the packages under internal/; this package holds
// only the repository-wide tests (architecture and documentation rules).
package ermine
