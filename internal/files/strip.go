package files

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The strippers below copy an image while leaving out the metadata a
// photo carries (EXIF with GPS position, camera serial numbers and
// timestamps, XMP, IPTC, comments, embedded thumbnails). They work on the
// container, not the pixels, so they keep the image exactly as it was and
// cost a single pass over the bytes. What a decoder needs to show the
// image as intended (colour profiles, Adobe colour transform, animation
// control) is kept. The EXIF orientation is read on the way so the caller
// can turn the pixels instead.

// errFormat reports bytes that do not follow the container's structure.
var errFormat = errors.New("malformed image container")

// Orientations are EXIF orientation values, 1 (upright) to 8.
const orientUpright = 1

// stripJPEG copies a JPEG from src to dst without its APP1 (EXIF, XMP),
// APP3–APP13 and APP15 segments, comments, APP0 segments other than JFIF,
// APP2 segments other than ICC profiles, and anything after the end of
// the image (where phones append previews and motion-photo videos). It
// returns the EXIF orientation it found, or 1.
func stripJPEG(dst io.Writer, src *bufio.Reader) (int, error) {
	var soi [2]byte
	if _, err := io.ReadFull(src, soi[:]); err != nil || soi != [2]byte{0xFF, 0xD8} {
		return 0, fmt.Errorf("jpeg: no start of image: %w", errFormat)
	}
	if _, err := dst.Write(soi[:]); err != nil {
		return 0, err
	}
	orientation := orientUpright
	var pending byte // a marker copyScan has read already
	for {
		marker := pending
		pending = 0
		if marker == 0 {
			var err error
			if marker, err = nextMarker(src); err != nil {
				return 0, err
			}
		}
		switch {
		case marker == 0xD9: // end of image: stop, dropping trailing data
			_, err := dst.Write([]byte{0xFF, 0xD9})
			return orientation, err
		case marker >= 0xD0 && marker <= 0xD7 || marker == 0x01: // no length
			if _, err := dst.Write([]byte{0xFF, marker}); err != nil {
				return 0, err
			}
			continue
		}
		var l [2]byte
		if _, err := io.ReadFull(src, l[:]); err != nil {
			return 0, fmt.Errorf("jpeg: segment length: %w", errFormat)
		}
		n := int(binary.BigEndian.Uint16(l[:]))
		if n < 2 {
			return 0, fmt.Errorf("jpeg: segment length %d: %w", n, errFormat)
		}
		payload := make([]byte, n-2)
		if _, err := io.ReadFull(src, payload); err != nil {
			return 0, fmt.Errorf("jpeg: truncated segment: %w", errFormat)
		}
		if marker == 0xE1 && bytes.HasPrefix(payload, []byte("Exif\x00\x00")) {
			if o := exifOrientation(payload[6:]); o != 0 {
				orientation = o
			}
		}
		if dropSegment(marker, payload) {
			continue
		}
		if _, err := dst.Write([]byte{0xFF, marker, l[0], l[1]}); err != nil {
			return 0, err
		}
		if _, err := dst.Write(payload); err != nil {
			return 0, err
		}
		if marker == 0xDA { // start of scan: entropy-coded data follows
			var err error
			if pending, err = copyScan(dst, src); err != nil {
				return 0, err
			}
		}
	}
}

// dropSegment tells the metadata segments apart from those a decoder
// needs.
func dropSegment(marker byte, payload []byte) bool {
	switch {
	case marker == 0xE0: // APP0: keep JFIF only
		return !bytes.HasPrefix(payload, []byte("JFIF\x00"))
	case marker == 0xE2: // APP2: keep ICC profiles only
		return !bytes.HasPrefix(payload, []byte("ICC_PROFILE\x00"))
	case marker == 0xEE: // APP14 Adobe: says how colours are transformed
		return false
	case marker >= 0xE1 && marker <= 0xEF: // other APPn: EXIF, XMP, IPTC, ...
		return true
	case marker == 0xFE: // comment
		return true
	}
	return false
}

// nextMarker reads up to and including the next marker byte, skipping
// fill bytes.
func nextMarker(src *bufio.Reader) (byte, error) {
	b, err := src.ReadByte()
	if err != nil || b != 0xFF {
		return 0, fmt.Errorf("jpeg: marker expected: %w", errFormat)
	}
	for {
		b, err = src.ReadByte()
		if err != nil {
			return 0, fmt.Errorf("jpeg: truncated marker: %w", errFormat)
		}
		if b != 0xFF {
			return b, nil
		}
	}
}

// copyScan copies entropy-coded data up to the next marker that is not
// a restart marker or a stuffed 0xFF, and returns that marker.
func copyScan(dst io.Writer, src *bufio.Reader) (byte, error) {
	w := bufio.NewWriterSize(dst, 32<<10)
	for {
		chunk, err := src.ReadSlice(0xFF)
		if errors.Is(err, bufio.ErrBufferFull) {
			if _, err := w.Write(chunk); err != nil {
				return 0, err
			}
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("jpeg: truncated scan: %w", errFormat)
		}
		if _, err := w.Write(chunk[:len(chunk)-1]); err != nil {
			return 0, err
		}
		next, err := src.ReadByte()
		for err == nil && next == 0xFF { // fill bytes
			next, err = src.ReadByte()
		}
		if err != nil {
			return 0, fmt.Errorf("jpeg: truncated scan: %w", errFormat)
		}
		if next == 0x00 || next >= 0xD0 && next <= 0xD7 {
			if _, err := w.Write([]byte{0xFF, next}); err != nil {
				return 0, err
			}
			continue
		}
		return next, w.Flush()
	}
}

// exifOrientation reads the orientation tag (0x0112) of IFD0 from TIFF
// structured EXIF data, or returns 0 when there is none or it is invalid.
func exifOrientation(tiff []byte) int {
	if len(tiff) < 8 {
		return 0
	}
	var order binary.ByteOrder
	switch string(tiff[:2]) {
	case "II":
		order = binary.LittleEndian
	case "MM":
		order = binary.BigEndian
	default:
		return 0
	}
	if order.Uint16(tiff[2:]) != 42 {
		return 0
	}
	ifd := int(order.Uint32(tiff[4:]))
	if ifd < 8 || ifd+2 > len(tiff) {
		return 0
	}
	n := int(order.Uint16(tiff[ifd:]))
	for i := range n {
		e := ifd + 2 + 12*i
		if e+12 > len(tiff) {
			return 0
		}
		if order.Uint16(tiff[e:]) != 0x0112 {
			continue
		}
		if typ := order.Uint16(tiff[e+2:]); typ != 3 { // SHORT
			return 0
		}
		o := int(order.Uint16(tiff[e+8:]))
		if o < 1 || o > 8 {
			return 0
		}
		return o
	}
	return 0
}

// pngSignature starts every PNG file.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// pngKeep are the PNG chunks kept: the critical ones, colour and
// transparency information, and APNG animation. Text chunks, eXIf, tIME
// and unknown private chunks are dropped.
var pngKeep = map[string]bool{
	"IHDR": true, "PLTE": true, "IDAT": true, "IEND": true, "tRNS": true,
	"cHRM": true, "gAMA": true, "iCCP": true, "sBIT": true, "sRGB": true, "cICP": true,
	"mDCV": true, "cLLI": true, "bKGD": true, "pHYs": true, "sPLT": true, "hIST": true,
	"acTL": true, "fcTL": true, "fdAT": true,
}

// maxPNGChunk bounds one chunk; the largest uploads are far below it.
const maxPNGChunk = 64 << 20

// stripPNG copies a PNG from src to dst with only the chunks of pngKeep,
// stopping at IEND. It returns the orientation of an eXIf chunk, or 1.
func stripPNG(dst io.Writer, src *bufio.Reader) (int, error) {
	sig := make([]byte, len(pngSignature))
	if _, err := io.ReadFull(src, sig); err != nil || !bytes.Equal(sig, pngSignature) {
		return 0, fmt.Errorf("png: no signature: %w", errFormat)
	}
	if _, err := dst.Write(sig); err != nil {
		return 0, err
	}
	orientation := orientUpright
	for {
		var head [8]byte
		if _, err := io.ReadFull(src, head[:]); err != nil {
			return 0, fmt.Errorf("png: truncated chunk: %w", errFormat)
		}
		n := binary.BigEndian.Uint32(head[:4])
		typ := string(head[4:])
		if n > maxPNGChunk {
			return 0, fmt.Errorf("png: chunk of %d bytes: %w", n, errFormat)
		}
		keep := pngKeep[typ]
		if typ == "eXIf" {
			data := make([]byte, n)
			if _, err := io.ReadFull(src, data); err != nil {
				return 0, fmt.Errorf("png: truncated chunk: %w", errFormat)
			}
			if o := exifOrientation(data); o != 0 {
				orientation = o
			}
			if _, err := src.Discard(4); err != nil {
				return 0, fmt.Errorf("png: truncated chunk: %w", errFormat)
			}
			continue
		}
		w := io.Discard
		if keep {
			w = dst
			if _, err := dst.Write(head[:]); err != nil {
				return 0, err
			}
		}
		if _, err := io.CopyN(w, src, int64(n)+4); err != nil { // data and CRC
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("png: truncated chunk: %w", errFormat)
			}
			return 0, err
		}
		if typ == "IEND" {
			return orientation, nil
		}
	}
}

// webpKeep are the WebP chunks kept: image data, alpha, animation, the
// extended header and the colour profile. EXIF and XMP are dropped.
var webpKeep = map[string]bool{
	"VP8 ": true, "VP8L": true, "VP8X": true, "ALPH": true, "ANIM": true, "ANMF": true, "ICCP": true,
}

// VP8X flags of the metadata chunks.
const (
	vp8xEXIF = 0x08
	vp8xXMP  = 0x04
)

// stripWebP copies a WebP from src to dst without its EXIF and XMP
// chunks, clearing their flags in the extended header and fixing the
// RIFF size. The file's own size field bounds what is read.
func stripWebP(dst io.WriteSeeker, src *bufio.Reader) error {
	var head [12]byte
	if _, err := io.ReadFull(src, head[:]); err != nil || string(head[:4]) != "RIFF" || string(head[8:]) != "WEBP" {
		return fmt.Errorf("webp: no RIFF header: %w", errFormat)
	}
	remaining := int64(binary.LittleEndian.Uint32(head[4:])) - 4
	if _, err := dst.Write(head[:]); err != nil {
		return err
	}
	written := int64(4) // "WEBP"
	for remaining > 0 {
		var ch [8]byte
		if _, err := io.ReadFull(src, ch[:]); err != nil {
			return fmt.Errorf("webp: truncated chunk: %w", errFormat)
		}
		n := int64(binary.LittleEndian.Uint32(ch[4:]))
		padded := n + n&1
		remaining -= 8 + padded
		if remaining < 0 {
			return fmt.Errorf("webp: chunk overruns the file: %w", errFormat)
		}
		typ := string(ch[:4])
		if !webpKeep[typ] {
			if _, err := src.Discard(int(padded)); err != nil {
				return fmt.Errorf("webp: truncated chunk: %w", errFormat)
			}
			continue
		}
		if _, err := dst.Write(ch[:]); err != nil {
			return err
		}
		if typ == "VP8X" && n >= 1 {
			flags, err := src.ReadByte()
			if err != nil {
				return fmt.Errorf("webp: truncated chunk: %w", errFormat)
			}
			if _, err := dst.Write([]byte{flags &^ (vp8xEXIF | vp8xXMP)}); err != nil {
				return err
			}
			padded--
		}
		if _, err := io.CopyN(dst, src, padded); err != nil {
			return fmt.Errorf("webp: truncated chunk: %w", errFormat)
		}
		written += 8 + n + n&1
	}
	if _, err := dst.Seek(4, io.SeekStart); err != nil {
		return err
	}
	var size [4]byte
	binary.LittleEndian.PutUint32(size[:], uint32(written))
	if _, err := dst.Write(size[:]); err != nil {
		return err
	}
	_, err := dst.Seek(0, io.SeekEnd)
	return err
}
