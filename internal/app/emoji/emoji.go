// Package emoji knows the Unicode emoji a message may be reacted with: a
// fixed list of 1914 fully-qualified emoji (up to Emoji 17.0, without skin-tone
// variants) committed as unicode.txt and embedded in the binary.
// gen.go rebuilds the list from its source; the build never needs it.
package emoji

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed unicode.txt
var list string

// variationSelector16 asks for emoji presentation. Clients and keyboards
// differ on whether they send it, so it does not take part in matching.
const variationSelector16 = "\ufe0f"

var set = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, 2048)
	for _, line := range strings.Split(list, "\n") {
		if line != "" {
			m[strings.ReplaceAll(line, variationSelector16, "")] = struct{}{}
		}
	}
	return m
})

// IsUnicode reports whether s is one emoji of the list, written with or
// without variation selectors.
func IsUnicode(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	_, ok := set()[strings.ReplaceAll(s, variationSelector16, "")]
	return ok
}

// Count is the number of emoji in the list.
func Count() int { return len(set()) }
