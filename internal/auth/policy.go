package auth

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strings"

	"ermine/internal/chat"
)

// MinPasswordBytes is the shortest password accepted, counted in bytes.
const MinPasswordBytes = 8

// commonPasswords is the bundled list of common compromised passwords,
// lower-case, one per line (see common-passwords.NOTICE).
//
//go:embed common-passwords.txt.gz
var commonPasswords []byte

// Policy decides which passwords may be used.
type Policy struct {
	common map[string]struct{}
}

// NewPolicy returns the password policy with the bundled list of common
// compromised passwords loaded (about 49,000 entries).
func NewPolicy() (*Policy, error) {
	zr, err := gzip.NewReader(bytes.NewReader(commonPasswords))
	if err != nil {
		return nil, fmt.Errorf("read common passwords: %w", err)
	}
	p := &Policy{common: make(map[string]struct{}, 50_000)}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if w := sc.Text(); w != "" {
			p.common[w] = struct{}{}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read common passwords: %w", err)
	}
	return p, nil
}

// Len is the number of passwords on the compromised list.
func (p *Policy) Len() int { return len(p.common) }

// Check returns chat.ErrShortPassword for a password under
// MinPasswordBytes bytes and chat.ErrCompromisedPassword for one on the
// list (compared case-insensitively), else nil.
func (p *Policy) Check(password string) error {
	if len(password) < MinPasswordBytes {
		return chat.ErrShortPassword
	}
	if _, ok := p.common[strings.ToLower(password)]; ok {
		return chat.ErrCompromisedPassword
	}
	return nil
}
