package avatar

import (
	"bytes"
	"image/png"
	"testing"
)

// TestPNG checks a picture is a 256-pixel PNG, the same for the same id
// (and the same bytes, drawn once), and that the seven colours are all
// reached by the ids' last characters.
func TestPNG(t *testing.T) {
	var d Defaults
	a, err := d.PNG("01HZX0000000000000000000A0")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != defaultAvatarSize || b.Dy() != defaultAvatarSize {
		t.Errorf("size %v, want %d×%d", b, defaultAvatarSize, defaultAvatarSize)
	}
	again, _ := d.PNG("01HZX0000000000000000000B0")
	if !bytes.Equal(a, again) || &a[0] != &again[0] {
		t.Error("ids ending alike got different or re-encoded pictures")
	}
	seen := map[string]bool{}
	for _, c := range crockford {
		b, err := d.PNG("01HZX000000000000000000" + string(c))
		if err != nil {
			t.Fatal(err)
		}
		seen[string(b)] = true
	}
	if len(seen) != len(avatarBackgrounds) {
		t.Errorf("%d different pictures over the alphabet, want %d", len(seen), len(avatarBackgrounds))
	}
	if _, err := d.PNG(""); err != nil {
		t.Errorf("empty id: %v", err)
	}
}
