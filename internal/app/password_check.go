package app

import (
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// passwordMatches reports whether password hashes to the argon2id PHC
// string hash: $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>,
// salt and hash in unpadded standard base64. A hash of any other form
// (such as "!", no password) matches nothing.
func passwordMatches(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v=19" {
		return false
	}
	var m, t, p uint64
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return false
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n == 0 {
			return false
		}
		switch k {
		case "m":
			m = n
		case "t":
			t = n
		case "p":
			p = n
		default:
			return false
		}
	}
	if m == 0 || t == 0 || p == 0 || p > 255 {
		return false
	}
	salt, err := decodePHC(parts[4])
	if err != nil {
		return false
	}
	want, err := decodePHC(parts[5])
	if err != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, uint32(t), uint32(m), uint8(p), uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// decodePHC decodes a PHC base64 field, padded or not.
func decodePHC(s string) ([]byte, error) {
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}
