package files_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// The images uploaded in the tests are made here, in memory, so that
// their content, metadata and hostile parts are known exactly.

var (
	red   = color.RGBA{255, 0, 0, 255}
	green = color.RGBA{0, 255, 0, 255}
	blue  = color.RGBA{0, 0, 255, 255}
	white = color.RGBA{255, 255, 255, 255}
)

// secret is planted in the metadata of test images; it must never come
// back from the file service.
const secret = "ERMINE-GPS-48.8584N-2.2945E"

// quadrants returns a w×h image whose quarters are red (top left), green
// (top right), blue (bottom left) and white (bottom right).
func quadrants(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := red
			switch {
			case x >= w/2 && y < h/2:
				c = green
			case x < w/2 && y >= h/2:
				c = blue
			case x >= w/2 && y >= h/2:
				c = white
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// exifTIFF builds little-endian TIFF-structured EXIF data whose IFD0 has
// an orientation tag (when o > 0) and a GPS-looking ASCII tag holding
// secret.
func exifTIFF(o int) []byte {
	le := binary.LittleEndian
	b := []byte("II")
	b = le.AppendUint16(b, 42)
	b = le.AppendUint32(b, 8)
	entries := 1
	if o > 0 {
		entries++
	}
	b = le.AppendUint16(b, uint16(entries))
	dataOff := 8 + 2 + 12*entries + 4
	if o > 0 {
		b = le.AppendUint16(b, 0x0112)
		b = le.AppendUint16(b, 3)
		b = le.AppendUint32(b, 1)
		b = le.AppendUint16(b, uint16(o))
		b = le.AppendUint16(b, 0)
	}
	b = le.AppendUint16(b, 0x010E) // ImageDescription, ASCII
	b = le.AppendUint16(b, 2)
	b = le.AppendUint32(b, uint32(len(secret)+1))
	b = le.AppendUint32(b, uint32(dataOff))
	b = le.AppendUint32(b, 0) // no next IFD
	return append(append(b, secret...), 0)
}

// jpegWithExif encodes img as a JPEG with, right after the start of
// image, an APP1 EXIF segment (orientation o) and a comment, both
// carrying secret, and trailing data after the end of image.
func jpegWithExif(t testing.TB, img image.Image, o int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	plain := buf.Bytes()
	app1 := append([]byte("Exif\x00\x00"), exifTIFF(o)...)
	var out []byte
	out = append(out, plain[:2]...)
	out = append(out, segment(0xE1, app1)...)
	out = append(out, segment(0xFE, []byte("comment "+secret))...)
	out = append(out, plain[2:]...)
	return append(out, []byte("trailer "+secret)...)
}

func segment(marker byte, payload []byte) []byte {
	b := []byte{0xFF, marker}
	b = binary.BigEndian.AppendUint16(b, uint16(len(payload)+2))
	return append(b, payload...)
}

// pngChunk builds a PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}

// pngWithText encodes img as a PNG with a tEXt chunk and an eXIf chunk
// (orientation o, 0 for none) carrying secret after its header.
func pngWithText(t testing.TB, img image.Image, o int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	plain := buf.Bytes()
	ihdrEnd := 8 + 8 + 13 + 4
	var out []byte
	out = append(out, plain[:ihdrEnd]...)
	out = append(out, pngChunk("tEXt", []byte("Comment\x00"+secret))...)
	out = append(out, pngChunk("eXIf", exifTIFF(o))...)
	return append(out, plain[ihdrEnd:]...)
}

// pngBomb is a small PNG whose header declares w×h pixels.
func pngBomb(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, pngChunk("IEND", nil)...)
}

// pngCorrupt has a valid header and garbage pixel data.
func pngCorrupt(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 2, 0, 0, 0)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", bytes.Repeat([]byte{0xAB, 0xCD}, 50))...)
	return append(out, pngChunk("IEND", nil)...)
}

// gifOf encodes img as a GIF.
func gifOf(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bitWriter writes the least significant bit first, as VP8L reads.
type bitWriter struct {
	b     []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) write(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

func (w *bitWriter) bytes() []byte {
	if w.nbits > 0 {
		w.b = append(w.b, byte(w.acc))
	}
	return w.b
}

// vp8lSolid is a lossless WebP bitstream of a w×h image of one colour.
// Go has no WebP encoder and no tool here makes one, so it is written by
// hand: no transforms, no colour cache, and each of the five prefix codes
// a "simple" code of one symbol, which takes no bits per pixel.
func vp8lSolid(w, h int, c color.NRGBA) []byte {
	bw := &bitWriter{}
	bw.write(0x2f, 8) // signature
	bw.write(uint64(w-1), 14)
	bw.write(uint64(h-1), 14)
	bw.write(1, 1) // alpha is used
	bw.write(0, 3) // version
	bw.write(0, 1) // no transform
	bw.write(0, 1) // no colour cache
	bw.write(0, 1) // no meta prefix codes
	for _, sym := range []uint8{c.G, c.R, c.B, c.A, 0} {
		bw.write(1, 1) // simple code
		bw.write(0, 1) // one symbol
		bw.write(1, 1) // of 8 bits
		bw.write(uint64(sym), 8)
	}
	return bw.bytes()
}

func riffChunk(fourcc string, data []byte) []byte {
	b := append([]byte(fourcc), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
	b = append(b, data...)
	if len(data)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

// webpWithExif is an extended-format WebP (VP8X) of a solid w×h image
// with an EXIF and an XMP chunk carrying secret.
func webpWithExif(w, h int, c color.NRGBA) []byte {
	vp8x := []byte{0x10 | 0x08 | 0x04, 0, 0, 0} // alpha, EXIF, XMP
	vp8x = append(vp8x, byte(w-1), byte((w-1)>>8), byte((w-1)>>16))
	vp8x = append(vp8x, byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
	body := []byte("WEBP")
	body = append(body, riffChunk("VP8X", vp8x)...)
	body = append(body, riffChunk("VP8L", vp8lSolid(w, h, c))...)
	body = append(body, riffChunk("EXIF", exifTIFF(0))...)
	body = append(body, riffChunk("XMP ", []byte("<x:xmpmeta>"+secret+"</x:xmpmeta>"))...)
	return append([]byte("RIFF"), append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)...)
}

// webpSimple is a simple-format lossless WebP.
func webpSimple(w, h int, c color.NRGBA) []byte {
	body := append([]byte("WEBP"), riffChunk("VP8L", vp8lSolid(w, h, c))...)
	return append([]byte("RIFF"), append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)...)
}
