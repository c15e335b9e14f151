package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"strings"

	"ermine/internal/chat"
)

// Token lengths.
const (
	SessionTokenLength = 64 // X-Session-Token
	EmailTokenLength   = 32 // verification, password reset and deletion links
	TicketTokenLength  = 64 // MFA tickets
)

// NewSessionToken returns a session token: 64 URL-safe random characters.
func NewSessionToken() string { return chat.NewToken(SessionTokenLength) }

// NewEmailToken returns a single-use token for a link sent by email.
func NewEmailToken() string { return chat.NewToken(EmailTokenLength) }

// NewTicketToken returns the token of an MFA ticket.
func NewTicketToken() string { return chat.NewToken(TicketTokenLength) }

// Equal compares two secrets in constant time (for equal lengths).
func Equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// RecoveryCodeCount is how many recovery codes an account gets at once.
const RecoveryCodeCount = 10

// recoveryAlphabet has no characters that are easy to confuse on paper.
const recoveryAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// inviteAlphabet is the alphabet of registration invite codes: digits and
// letters without I, L, O and U in either case.
const inviteAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz"

// randomString returns n characters of alphabet chosen uniformly.
func randomString(alphabet string, n int) string {
	out := make([]byte, n)
	// Rejection sampling keeps the choice uniform: bytes at or above the
	// largest multiple of len(alphabet) are discarded.
	limit := 256 - 256%len(alphabet)
	buf := make([]byte, 2*n)
	for i := 0; i < n; {
		if _, err := rand.Read(buf); err != nil {
			panic("auth: crypto/rand failed: " + err.Error())
		}
		for _, b := range buf {
			if int(b) < limit && i < n {
				out[i] = alphabet[int(b)%len(alphabet)]
				i++
			}
		}
	}
	return string(out)
}

// NewRecoveryCodes returns RecoveryCodeCount fresh codes, each
// "xxxxx-xxxxx".
func NewRecoveryCodes() []string {
	codes := make([]string, RecoveryCodeCount)
	for i := range codes {
		s := randomString(recoveryAlphabet, 10)
		codes[i] = s[:5] + "-" + s[5:]
	}
	return codes
}

// MatchRecoveryCode returns the index of code among codes, or -1. The
// comparison ignores case, surrounding space and a missing dash, and
// looks at every code in constant time.
func MatchRecoveryCode(codes []string, code string) int {
	norm := func(s string) string {
		return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "")
	}
	code = norm(code)
	found := -1
	for i, c := range codes {
		if subtle.ConstantTimeCompare([]byte(norm(c)), []byte(code)) == 1 && found < 0 {
			found = i
		}
	}
	return found
}

// NewInviteCode returns a registration invite code of 10 characters.
func NewInviteCode() string { return randomString(inviteAlphabet, 10) }
