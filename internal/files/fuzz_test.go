package files_test

import (
	"bytes"
	"image/color"
	"testing"

	"ermine/internal/files"
)

// FuzzStrip feeds arbitrary bytes to the metadata strippers: they must
// never panic, never grow a file by more than its header fix-ups, and
// whatever they accept they must accept again unchanged (stripping is
// idempotent).
func FuzzStrip(f *testing.F) {
	f.Add(jpegWithExif(f, quadrants(16, 16), 6))
	f.Add(pngWithText(f, quadrants(16, 16), 3))
	f.Add(webpWithExif(16, 16, color.NRGBA{1, 2, 3, 255}))
	f.Add([]byte("\xff\xd8\xff\xe1\x00\x10Exif\x00\x00II*\x00\x08\x00\x00\x00\xff\xd9"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		strippers := map[string]func([]byte) ([]byte, error){
			"jpeg": func(b []byte) ([]byte, error) { out, _, err := files.StripJPEG(b); return out, err },
			"png":  func(b []byte) ([]byte, error) { out, _, err := files.StripPNG(b); return out, err },
			"webp": func(b []byte) ([]byte, error) { return files.StripWebP(dir, b) },
		}
		for name, strip := range strippers {
			out, err := strip(b)
			if err != nil {
				continue
			}
			if len(out) > len(b) {
				t.Fatalf("%s: stripping grew %d bytes to %d", name, len(b), len(out))
			}
			again, err := strip(out)
			if err != nil {
				t.Fatalf("%s: stripped output refused: %v", name, err)
			}
			if !bytes.Equal(again, out) {
				t.Fatalf("%s: stripping is not idempotent", name)
			}
		}
	})
}
