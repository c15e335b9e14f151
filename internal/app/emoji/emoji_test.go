package emoji

import "testing"

func TestIsUnicode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"simple", "😀", true},
		{"thumbs up", "👍", true},
		{"heart fully qualified", "❤️", true},
		{"heart without selector", "❤", true},
		{"keycap", "#️⃣", true},
		{"zwj sequence", "👨‍👩‍👧", true},
		{"flag", "🇫🇷", true},
		{"two emoji", "😀😀", false},
		{"letter", "a", false},
		{"shortcode", ":smile:", false},
		{"empty", "", false},
		{"ulid", "01HZY8Z1V8Y0Q6W3D1H3R6K9ZC", false},
		{"long", string(make([]byte, 100)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsUnicode(tt.in); got != tt.want {
				t.Errorf("IsUnicode(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	// Dropping the variation selector must not merge two entries.
	if n := Count(); n != 1914 {
		t.Errorf("Count() = %d, want 1914", n)
	}
}
