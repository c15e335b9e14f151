package gateway

import (
	"crypto/sha256"
	"sync"

	"ermine/internal/chat"
)

// tokenHints remembers whose session each recently authenticated token
// is, so that the next connection with it can follow that user's topics
// first and then read the session and Ready's facts together: one store
// read where a connection that must learn the user first makes two (see
// conn.authenticate). A hint grants nothing: the read checks the token
// and that its session is the hinted user's, and a connection whose hint
// is wrong authenticates the ordinary way. Tokens are kept hashed.
type tokenHints struct {
	mu    sync.Mutex
	users map[[16]byte]chat.ID
}

// tokenHintsMax bounds the hints a node keeps; past it an arbitrary one
// gives way.
const tokenHintsMax = 1 << 16

func hintKey(token string) [16]byte {
	sum := sha256.Sum256([]byte(token))
	return [16]byte(sum[:16])
}

// user returns the user whose session token was, if known.
func (h *tokenHints) user(token string) (chat.ID, bool) {
	k := hintKey(token)
	h.mu.Lock()
	u, ok := h.users[k]
	h.mu.Unlock()
	return u, ok
}

// remember notes that token is a session of user.
func (h *tokenHints) remember(token string, user chat.ID) {
	k := hintKey(token)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.users == nil {
		h.users = make(map[[16]byte]chat.ID)
	}
	if _, ok := h.users[k]; !ok && len(h.users) >= tokenHintsMax {
		for old := range h.users {
			delete(h.users, old)
			break
		}
	}
	h.users[k] = user
}

// forget drops token's hint.
func (h *tokenHints) forget(token string) {
	k := hintKey(token)
	h.mu.Lock()
	delete(h.users, k)
	h.mu.Unlock()
}
