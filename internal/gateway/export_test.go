package gateway

import "ermine/internal/chat"

// SetBeforeLive makes every handshake of g call f once the connection
// follows its topics and before its Ready is queued; early reports how
// many frames from the bus wait for Ready. Set it before connecting.
func SetBeforeLive(g *Gateway, f func(early func() int)) { g.beforeLive = f }

// RememberHint makes g take token for a session of user (see tokenHints).
func RememberHint(g *Gateway, token string, user chat.ID) { g.hints.remember(token, user) }
