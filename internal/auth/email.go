package auth

import (
	"net/mail"
	"strings"

	"ermine/internal/chat"
)

// maxEmailLength is the longest address SMTP can carry (RFC 5321).
const maxEmailLength = 254

// NormaliseEmail checks that email is a bare address (local@domain, no
// display name) and returns the form accounts are looked up by: lower
// case, with dots and any +suffix removed from the local part, so that
// variants of one mailbox cannot hold several accounts. A malformed
// address is chat.ErrIncorrectData("email").
func NormaliseEmail(email string) (string, error) {
	bad := chat.ErrIncorrectData("email")
	if email == "" || len(email) > maxEmailLength {
		return "", bad
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Name != "" || addr.Address != email {
		return "", bad
	}
	local, domain, ok := strings.Cut(strings.ToLower(email), "@")
	if !ok || strings.Contains(domain, "@") || domain == "" || strings.HasPrefix(domain, "[") {
		return "", bad
	}
	local, _, _ = strings.Cut(local, "+")
	local = strings.ReplaceAll(local, ".", "")
	if local == "" {
		return "", bad
	}
	return local + "@" + domain, nil
}
