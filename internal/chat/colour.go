package chat

import "regexp"

// MaxColourLength is the longest role or masquerade colour accepted, in
// characters (seed part 2).
const MaxColourLength = 128

// colourItem is one colour inside a value or a gradient: a CSS colour
// name, a custom property, rgb()/rgba() or a hexadecimal colour.
const colourItem = `[a-z ]+|var\(--[a-z\d-]+\)|rgba?\([\d, ]+\)|#[a-f0-9]+`

// colourSpace is a gradient's CSS colour interpolation after its first
// stop: "in oklch", "in hsl longer hue" (reference 0.15.2, #913).
const colourSpace = `([ ]+in[ ]+[a-z-]+([ ]+(shorter|longer|increasing|decreasing)[ ]+hue)?)?`

// colourPattern is the colour rule of the interface: a single colour, or a
// linear, conic or radial gradient (optionally repeating) whose first stop
// may be an angle followed by a colour space and whose stops may carry a
// position.
var colourPattern = regexp.MustCompile(`(?i)^(?:` + colourItem +
	`|(repeating-)?(linear|conic|radial)-gradient\((` + colourItem + `|\d+deg)` + colourSpace + `([ ]+(\d{1,3}%|0))?` +
	`(,[ ]*(` + colourItem + `)([ ]+(\d{1,3}%|0))?)+\))$`)

// ValidColour reports whether s is an acceptable role colour (and
// masquerade colour): at most 128 characters of ASCII matching the colour
// rule, compared case-insensitively.
func ValidColour(s string) bool {
	if s == "" || len(s) > MaxColourLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		// Unicode case folding would let look-alikes such as U+017F (ſ)
		// stand in for ASCII letters; colours are ASCII only.
		if s[i] >= 0x80 {
			return false
		}
	}
	return colourPattern.MatchString(s)
}

// CheckColour checks an optional colour field with ValidColour.
func CheckColour(field string, s *string) error {
	if s == nil || ValidColour(*s) {
		return nil
	}
	return ErrInvalidBody(field + ": not a valid colour")
}
