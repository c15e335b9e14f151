// Package perm is Ermine's permission engine. It computes what a user may
// do on a server, in a channel and towards another user, checks the
// "ranked below" rule and the rule for granting permissions through
// overrides.
//
// The package is pure: it does no I/O and keeps no state. The app gathers
// the facts (the server, the member, the channel, relationships) and asks
// ForServer, ForChannel or ForUser for the answer.
//
// Permissions resolve by applying overrides in sequence, allows first and
// then denies: p = (p | allow) &^ deny. Role overrides are applied from the
// numerically largest rank to the smallest, so the most important role
// (rank 0) is applied last and wins a conflict.
package perm
