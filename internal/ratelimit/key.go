package ratelimit

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"strconv"
)

// Key returns the counter key for identity (chosen by the HTTP layer: a
// session, a bot or a client address) in bucket for resource. Distinct
// triples always give distinct keys: bucket and resource are length
// prefixed, so no choice of strings can make two triples collide. The key
// is readable, e.g. "9:messaging|26:01J0...|session:01J1...".
func Key(identity, bucket, resource string) string {
	b := make([]byte, 0, len(identity)+len(bucket)+len(resource)+8)
	b = strconv.AppendInt(b, int64(len(bucket)), 10)
	b = append(b, ':')
	b = append(b, bucket...)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(len(resource)), 10)
	b = append(b, ':')
	b = append(b, resource...)
	b = append(b, '|')
	b = append(b, identity...)
	return string(b)
}

// BucketID returns an opaque, stable identifier of key for the
// X-RateLimit-Bucket header: the first 8 bytes of its SHA-256 as 16 hex
// digits. It is the same on every node and across restarts, and a
// preimage-resistant hash keeps the session or address inside the key from
// being read back out of the header.
func BucketID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// Host is the host of a host:port address (a request's RemoteAddr), or
// the address itself when it has no port: the client address that
// per-address limits count against.
func Host(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	return host
}
