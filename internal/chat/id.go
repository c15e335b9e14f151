package chat

import (
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// ID is a ULID: 26 characters of upper-case Crockford base32 whose first
// ten encode the creation time in milliseconds. Clients decode that time
// (createdAt getters), so every resource id must be a real ULID.
type ID string

// SystemID is the author of messages the server itself writes.
const SystemID ID = "00000000000000000000000000"

var (
	idMu      sync.Mutex
	idEntropy = ulid.Monotonic(rand.Reader, 0)
)

// NewID returns a fresh ULID for the current time. Ids made in the same
// millisecond by one process sort in creation order.
func NewID() ID {
	return NewIDAt(time.Now())
}

// NewIDAt returns a fresh ULID for time t.
func NewIDAt(t time.Time) ID {
	idMu.Lock()
	id := ulid.MustNew(ulid.Timestamp(t), idEntropy)
	idMu.Unlock()
	return ID(id.String())
}

// FirstIDAt returns the smallest id a ULID made at t's millisecond can
// have: every id made before t sorts below it. Times before 1970 or past
// the ULID's range are clamped to it.
func FirstIDAt(t time.Time) ID {
	return idAt(t, [10]byte{})
}

// LastIDAt returns the largest id a ULID made at t's millisecond can
// have: every id made after t's millisecond sorts above it.
func LastIDAt(t time.Time) ID {
	return idAt(t, [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
}

func idAt(t time.Time, entropy [10]byte) ID {
	ms := max(t.UnixMilli(), 0)
	var u ulid.ULID
	if err := u.SetTime(min(uint64(ms), ulid.MaxTime())); err != nil {
		return SystemID
	}
	copy(u[6:], entropy[:])
	return ID(u.String())
}

// Time returns the creation time encoded in the id, or the zero time when
// the id is not a valid ULID.
func (id ID) Time() time.Time {
	u, err := ulid.ParseStrict(string(id))
	if err != nil {
		return time.Time{}
	}
	return ulid.Time(u.Time()).UTC()
}

// Valid reports whether id is a well-formed ULID in canonical form.
func (id ID) Valid() bool {
	if len(id) != ulid.EncodedSize {
		return false
	}
	u, err := ulid.ParseStrict(string(id))
	return err == nil && u.String() == string(id)
}

func (id ID) String() string { return string(id) }

// NewToken returns n URL-safe random characters ([A-Za-z0-9_-]) from the
// system's cryptographic random source. Tokens are concatenated into URLs
// unencoded by some clients, so they must stay URL-safe.
func NewToken(n int) string {
	b := make([]byte, (n*6+7)/8)
	if _, err := rand.Read(b); err != nil {
		panic("chat: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}
