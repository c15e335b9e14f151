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
		{"Light Blue", true},
		{"#ff00AA", true},
		{"#FFF", true},
		{"rgb(1, 2, 3)", true},
		{"RGBA(1,2,3,0)", true},
		{"var(--accent-1)", true},
		{"linear-gradient(30deg, red, #00ff00 50%)", true},
		{"repeating-radial-gradient(red 0, blue 10%)", true},
		{"conic-gradient(var(--a), rgb(1,2,3))", true},
		{"", false},
		{"#ggg", false},
		{"red; background: url(x)", false},
		{"url(https://example.com)", false},
		{"linear-gradient(red)", false},
		{"rgb(1,2,3", false},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ValidColour(tt.in); got != tt.want {
				t.Errorf("ValidColour(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
