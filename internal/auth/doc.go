// Package auth holds the primitives of Ermine's accounts: argon2id
// password hashes in PHC strings with bounded concurrent hashing, the
// password policy (length and a bundled list of common compromised
// passwords), email normalisation, TOTP codes with replay protection,
// recovery codes and the random tokens sent to users. It does no I/O and
// knows nothing of storage; app decides when each is used.
package auth
