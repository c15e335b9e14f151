// Package avatar draws the default avatars of users without one: a
// sitting ermine, white with a black tail tip, on one of seven background
// colours chosen by the last character of the user id, so a user keeps the
// same picture. It is pure drawing: no I/O, no knowledge of users.
package avatar

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
)

// defaultAvatarSize is the side of a default avatar in pixels.
const defaultAvatarSize = 256

// avatarBackgrounds are the seven background colours.
var avatarBackgrounds = [...]color.NRGBA{
	{0xE0, 0x5A, 0x47, 0xFF}, // vermilion
	{0xF2, 0xA5, 0x41, 0xFF}, // amber
	{0x4C, 0xAF, 0x7D, 0xFF}, // jade
	{0x3F, 0x88, 0xC5, 0xFF}, // cobalt
	{0x7A, 0x5C, 0xC7, 0xFF}, // violet
	{0xD1, 0x5C, 0x9A, 0xFF}, // rose
	{0x4A, 0x55, 0x68, 0xFF}, // slate
}

// Defaults draws each of the seven images once and keeps it encoded;
// its zero value is ready and it is safe for concurrent use.
type Defaults struct {
	mu  sync.Mutex
	png [len(avatarBackgrounds)][]byte
}

// crockford is the ULID alphabet; a character's place in it picks the
// picture.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// defaultAvatarIndex picks one of the seven pictures by the last
// character of id.
func defaultAvatarIndex(id string) int {
	if id == "" {
		return 0
	}
	last := id[len(id)-1]
	n := strings.IndexByte(crockford, byte(strings.ToUpper(string(last))[0]))
	if n < 0 {
		n = int(last)
	}
	return n % len(avatarBackgrounds)
}

// PNG returns the picture of the user with id, PNG-encoded. The caller
// must not modify the bytes: they are shared.
func (d *Defaults) PNG(id string) ([]byte, error) {
	i := defaultAvatarIndex(id)
	d.mu.Lock()
	defer d.mu.Unlock()
	if b := d.png[i]; b != nil {
		return b, nil
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, drawErmine(avatarBackgrounds[i])); err != nil {
		return nil, fmt.Errorf("encode default avatar: %w", err)
	}
	d.png[i] = buf.Bytes()
	return d.png[i], nil
}

// shape is a filled region in unit coordinates (0..1 on both axes) with
// its colour; later shapes are painted over earlier ones.
type shape struct {
	inside func(x, y float64) bool
	fill   color.NRGBA
}

// ellipse returns the inside test of an axis-aligned ellipse.
func ellipse(cx, cy, rx, ry float64) func(x, y float64) bool {
	return func(x, y float64) bool {
		dx, dy := (x-cx)/rx, (y-cy)/ry
		return dx*dx+dy*dy <= 1
	}
}

// drawErmine paints the ermine on bg, with 4×4 supersampling for smooth
// edges.
func drawErmine(bg color.NRGBA) *image.NRGBA {
	fur := color.NRGBA{0xF7, 0xF5, 0xEE, 0xFF}
	ink := color.NRGBA{0x1E, 0x1E, 0x22, 0xFF}
	pink := color.NRGBA{0xF0, 0xA8, 0xB4, 0xFF}
	shapes := []shape{
		{ellipse(0.70, 0.80, 0.16, 0.055), fur}, // tail
		{ellipse(0.86, 0.78, 0.055, 0.05), ink}, // black tail tip
		{ellipse(0.50, 0.66, 0.18, 0.25), fur},  // body
		{ellipse(0.50, 0.45, 0.11, 0.12), fur},  // neck
		{ellipse(0.40, 0.25, 0.05, 0.055), fur}, // ears
		{ellipse(0.60, 0.25, 0.05, 0.055), fur},
		{ellipse(0.40, 0.255, 0.025, 0.03), pink},
		{ellipse(0.60, 0.255, 0.025, 0.03), pink},
		{ellipse(0.50, 0.34, 0.14, 0.12), fur},    // head
		{ellipse(0.445, 0.32, 0.02, 0.024), ink},  // eyes
		{ellipse(0.555, 0.32, 0.02, 0.024), ink},  //
		{ellipse(0.50, 0.385, 0.022, 0.016), ink}, // nose
		{ellipse(0.42, 0.88, 0.06, 0.035), fur},   // paws
		{ellipse(0.58, 0.88, 0.06, 0.035), fur},
	}
	const n = defaultAvatarSize
	const ss = 4 // samples per axis
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	for py := 0; py < n; py++ {
		for px := 0; px < n; px++ {
			var r, g, b int
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / n
					y := (float64(py) + (float64(sy)+0.5)/ss) / n
					c := bg
					for _, s := range shapes {
						if s.inside(x, y) {
							c = s.fill
						}
					}
					r, g, b = r+int(c.R), g+int(c.G), b+int(c.B)
				}
			}
			img.SetNRGBA(px, py, color.NRGBA{uint8(r / (ss * ss)), uint8(g / (ss * ss)), uint8(b / (ss * ss)), 0xFF})
		}
	}
	return img
}
