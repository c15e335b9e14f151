package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are the argon2id cost parameters of a hash. They are written
// into every PHC string, so hashes made with older parameters still
// verify after the defaults change.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen uint32 // bytes
	KeyLen  uint32 // bytes
}

// DefaultParams returns OWASP's first argon2id recommendation (m=19 MiB,
// t=2, p=1), about 37 ms per hash on the reference machine.
func DefaultParams() Params {
	return Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}
}

// ErrMalformedHash is returned when a stored hash is not an argon2id or
// argon2i PHC string this package can read.
var ErrMalformedHash = errors.New("auth: malformed password hash")

// Hasher hashes and verifies passwords. At most a fixed number of hashes
// run at once, each holding Params.Memory, so a flood of logins queues up
// instead of exhausting memory.
type Hasher struct {
	params Params
	sem    chan struct{}
}

// NewHasher returns a Hasher making hashes with p and running at most
// concurrency hashes at once (runtime.NumCPU() when concurrency < 1).
func NewHasher(p Params, concurrency int) *Hasher {
	if concurrency < 1 {
		concurrency = runtime.NumCPU()
	}
	return &Hasher{params: p, sem: make(chan struct{}, concurrency)}
}

// acquire waits for a hashing slot or for ctx to end.
func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait to hash: %w", ctx.Err())
	}
}

func (h *Hasher) release() { <-h.sem }

// Hash returns the PHC string of password with a fresh random salt:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>, base64 without padding.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, h.params.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("salt: %w", err)
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, h.params.Time, h.params.Memory, h.params.Threads, h.params.KeyLen)
	h.release()
	p := h.params
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// Verify reports whether password matches the PHC string encoded, using
// the variant and parameters stored in it and comparing in constant time.
// Besides the argon2id strings Hash writes it reads argon2i ones, which
// accounts imported from a Revolt/Stoat instance carry (m=4096, t=3,
// p=1 there); Outdated reports those so a login replaces them. A hash
// that cannot be read (such as "!" for accounts without a password)
// matches nothing and returns ErrMalformedHash.
func (h *Hasher) Verify(ctx context.Context, password, encoded string) (bool, error) {
	variant, p, salt, want, err := parseHash(encoded)
	if err != nil {
		return false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	derive := argon2.IDKey
	if variant == "argon2i" {
		derive = argon2.Key
	}
	got := derive([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	h.release()
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// Outdated reports whether encoded was made with other parameters than
// the Hasher's, so it should be replaced after the next successful login.
func (h *Hasher) Outdated(encoded string) bool {
	variant, p, salt, key, err := parseHash(encoded)
	if err != nil {
		return true
	}
	return variant != "argon2id" || p.Memory != h.params.Memory || p.Time != h.params.Time || p.Threads != h.params.Threads ||
		uint32(len(salt)) != h.params.SaltLen || uint32(len(key)) != h.params.KeyLen
}

// maxMemory bounds the memory a stored hash may ask for (4 GiB), so that
// a corrupted row cannot make one verification allocate without limit.
const maxMemory = 4 << 20

// parseHash reads $argon2id$v=19$m=..,t=..,p=..$salt$hash (or $argon2i$)
// and returns the variant with the rest.
func parseHash(encoded string) (variant string, p Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || (parts[1] != "argon2id" && parts[1] != "argon2i") ||
		parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return "", p, nil, nil, ErrMalformedHash
	}
	variant = parts[1]
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return "", p, nil, nil, ErrMalformedHash
		}
		n, perr := strconv.ParseUint(v, 10, 32)
		if perr != nil {
			return "", p, nil, nil, ErrMalformedHash
		}
		switch k {
		case "m":
			p.Memory = uint32(n)
		case "t":
			p.Time = uint32(n)
		case "p":
			if n > 255 {
				return "", p, nil, nil, ErrMalformedHash
			}
			p.Threads = uint8(n)
		default:
			return "", p, nil, nil, ErrMalformedHash
		}
	}
	if p.Time == 0 || p.Threads == 0 || p.Memory < 8*uint32(p.Threads) || p.Memory > maxMemory {
		return "", p, nil, nil, ErrMalformedHash
	}
	if salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(salt) == 0 {
		return "", p, nil, nil, ErrMalformedHash
	}
	if key, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(key) < 16 {
		return "", p, nil, nil, ErrMalformedHash
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	return variant, p, salt, key, nil
}
