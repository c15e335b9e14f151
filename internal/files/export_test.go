package files

import (
	"bufio"
	"bytes"
	"image"
	"io"
	"os"
)

// Internals exposed to the external tests of this package.

var (
	Fit             = fit
	Resize          = resize
	Orient          = orient
	ExifOrientation = exifOrientation
	ParseProbe      = parseProbe
)

// PreviewBox returns the preview box of a tag for a max_side value.
func PreviewBox(tag, maxSide string) (int, int) {
	b := previewBox(tag, maxSide)
	return b.w, b.h
}

// StripJPEG strips a JPEG in memory.
func StripJPEG(b []byte) ([]byte, int, error) {
	var out bytes.Buffer
	o, err := stripJPEG(&out, bufio.NewReader(bytes.NewReader(b)))
	return out.Bytes(), o, err
}

// StripPNG strips a PNG in memory.
func StripPNG(b []byte) ([]byte, int, error) {
	var out bytes.Buffer
	o, err := stripPNG(&out, bufio.NewReader(bytes.NewReader(b)))
	return out.Bytes(), o, err
}

// StripWebP strips a WebP through a temporary file.
func StripWebP(dir string, b []byte) ([]byte, error) {
	f, err := os.CreateTemp(dir, "webp")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := stripWebP(f, bufio.NewReader(bytes.NewReader(b))); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// RenderPreview renders the preview of an encoded image of type ctype
// fitted to a bw×bh box, as the first request for it does.
func RenderPreview(src []byte, ctype string, bw, bh int, lossless bool) ([]byte, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	tw, th := fit(cfg.Width, cfg.Height, bw, bh)
	s := &Service{maxPixels: defaultMaxPixels}
	return s.render(bytes.NewReader(src), ctype, tw, th, lossless)
}
