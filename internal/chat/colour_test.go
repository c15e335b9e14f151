package chat

import (
	"strings"
	"testing"
)

func TestValidColour(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"red", true},
		{"Dark Slate Gray", true},
		{"RED", true},
		{"#fff", true},
		{"#A1B2C3", true},
		{"#a1b2c3ff", true},
		{"rgb(1, 2, 3)", true},
		{"RGBA(1,2,3,0)", true},
		{"var(--accent)", true},
		{"var(--Accent-2)", true},
		{"linear-gradient(red, blue)", true},
		{"linear-gradient(90deg, red 0%, #00f 100%)", true},
		{"repeating-linear-gradient(45deg, red 10%, blue 20%)", true},
		{"conic-gradient(var(--a), var(--b))", true},
		{"radial-gradient(rgb(1,2,3), rgba(4,5,6,1) 50%)", true},
		{"Repeating-Radial-Gradient(RED, BLUE)", true},
		{strings.Repeat("a", 128), true},
		// CSS colour-space interpolation (reference 0.15.2, #913).
		{"linear-gradient(90deg in oklch longer hue, red, blue)", true},
		{"linear-gradient(90deg in oklch, #f00 0%, #00f 100%)", true},
		{"conic-gradient(0deg in hsl shorter hue, red, blue)", true},
		{"linear-gradient(45deg in srgb-linear increasing hue 0, red, blue)", true},
		{"Linear-Gradient(90DEG IN OKLCH LONGER HUE, RED, BLUE)", true},

		{"", false},
		{strings.Repeat("a", 129), false},
		{"#ggg", false},
		{"red;", false},
		{"url(x)", false},
		{"linear-gradient(red)", false},
		{"linear-gradient(90deg)", false},
		{"linear-gradient(red, blue", false},
		{"sideways-gradient(red, blue)", false},
		{"var(accent)", false},
		{"rgb(1,2,3) red", false},
		{"expression(alert(1))", false},
		{"ſ", false}, // folds to "s" under Unicode case folding
		{"red\n", false},
		{"linear-gradient(90deg in, red, blue)", false},
		{"linear-gradient(90deg in oklch sideways hue, red, blue)", false},
		{"linear-gradient(90deg in oklch longer, red, blue)", false},
		{"linear-gradient(90deg in ok!ch, red, blue)", false},
		{"linear-gradient(45deg in display-p3, red, blue)", false}, // the reference's rule: letters and dashes
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ValidColour(tt.in); got != tt.want {
				t.Errorf("ValidColour(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestCheckColour(t *testing.T) {
	ok, bad := "#123456", "nope!"
	if err := CheckColour("colour", nil); err != nil {
		t.Errorf("nil: %v", err)
	}
	if err := CheckColour("colour", &ok); err != nil {
		t.Errorf("%q: %v", ok, err)
	}
	err := CheckColour("colour", &bad)
	if err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("%q: %v, want a FailedValidation naming colour", bad, err)
	}
}

// FuzzValidColour checks the invariants of the colour rule: accepted
// values are short ASCII, and letter case never changes the answer.
func FuzzValidColour(f *testing.F) {
	for _, s := range []string{"red", "#fff", "rgb(1,2,3)", "var(--x)", "linear-gradient(90deg, red 10%, blue)",
		"repeating-conic-gradient(#000, #fff 50%)", "", "ſ", "K"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := ValidColour(s)
		if !ok {
			return
		}
		if len(s) > MaxColourLength || s == "" {
			t.Fatalf("accepted %q of length %d", s, len(s))
		}
		for _, r := range s {
			if r >= 0x80 {
				t.Fatalf("accepted non-ASCII %q", s)
			}
		}
		if !ValidColour(strings.ToUpper(s)) || !ValidColour(strings.ToLower(s)) {
			t.Fatalf("%q accepted but a case variant is not", s)
		}
		if strings.ContainsAny(s, ";{}\"'<>\\\n") {
			t.Fatalf("accepted %q holding a character that could escape a style value", s)
		}
	})
}
