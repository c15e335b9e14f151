package chat

import "regexp"

// colourPattern is the contract's rule for role and masquerade colours:
// a CSS colour name, var(--name), rgb()/rgba(), a hexadecimal colour, or a
// linear, conic or radial gradient (optionally repeating) of those.
var colourPattern = regexp.MustCompile(`(?i)^(?:[a-z ]+|var\(--[a-z\d-]+\)|rgba?\([\d, ]+\)|#[a-f0-9]+|(repeating-)?(linear|conic|radial)-gradient\(([a-z ]+|var\(--[a-z\d-]+\)|rgba?\([\d, ]+\)|#[a-f0-9]+|\d+deg)([ ]+(\d{1,3}%|0))?(,[ ]*([a-z ]+|var\(--[a-z\d-]+\)|rgba?\([\d, ]+\)|#[a-f0-9]+)([ ]+(\d{1,3}%|0))?)+\))$`)

// maxColourLength is the longest colour accepted, in characters.
const maxColourLength = 128

// ValidColour reports whether s is a colour a role or a masquerade may
// carry: at most 128 characters matching the contract's pattern,
// case-insensitively.
func ValidColour(s string) bool {
	return s != "" && len([]rune(s)) <= maxColourLength && colourPattern.MatchString(s)
}
