// Package ratelimit decides which rate-limit bucket an HTTP request falls
// in and counts calls against it.
//
// Limits follow a fixed window: a key's window opens at its first call,
// lasts Window (10 seconds) and then resets fully; it does not slide and
// refused calls do not extend it. Resolve maps a method and path to a Rule
// (bucket, keyed resource, limit), Key combines a Rule with the identity the
// HTTP layer chose (a session, a bot or a client address), BucketID turns a
// key into the opaque value of the X-RateLimit-Bucket header, and a Limiter
// counts calls: Memory inside one process, Redis across nodes.
//
// The package decides nothing about who is limited and writes no HTTP
// responses; the API layer calls it and renders Result as headers or a 429.
package ratelimit
