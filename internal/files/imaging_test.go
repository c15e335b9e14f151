package files_test

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"golang.org/x/image/webp"

	"ermine/internal/files"
)

// near reports whether two colours are within tol on every channel.
func near(a, b color.Color, tol int) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	d := func(x, y uint32) bool { return max(int(x>>8)-int(y>>8), int(y>>8)-int(x>>8)) <= tol }
	return d(ar, br) && d(ag, bg) && d(ab, bb) && d(aa, ba)
}

// corners samples an image a little inside its four corners: top left,
// top right, bottom left, bottom right.
func corners(img image.Image) [4]color.Color {
	b := img.Bounds()
	dx, dy := max(1, b.Dx()/8), max(1, b.Dy()/8)
	return [4]color.Color{
		img.At(b.Min.X+dx, b.Min.Y+dy), img.At(b.Max.X-1-dx, b.Min.Y+dy),
		img.At(b.Min.X+dx, b.Max.Y-1-dy), img.At(b.Max.X-1-dx, b.Max.Y-1-dy),
	}
}

func checkCorners(t *testing.T, img image.Image, want [4]color.Color, tol int) {
	t.Helper()
	got := corners(img)
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Fatalf("corner %d is %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

func TestOrient(t *testing.T) {
	src := quadrants(40, 20) // red green / blue white
	tests := []struct {
		o    int
		w, h int
		want [4]color.Color
	}{
		{1, 40, 20, [4]color.Color{red, green, blue, white}},
		{2, 40, 20, [4]color.Color{green, red, white, blue}},
		{3, 40, 20, [4]color.Color{white, blue, green, red}},
		{4, 40, 20, [4]color.Color{blue, white, red, green}},
		{5, 20, 40, [4]color.Color{red, blue, green, white}},
		{6, 20, 40, [4]color.Color{blue, red, white, green}},
		{7, 20, 40, [4]color.Color{white, green, blue, red}},
		{8, 20, 40, [4]color.Color{green, white, red, blue}},
	}
	for _, tc := range tests {
		t.Run(string(rune('0'+tc.o)), func(t *testing.T) {
			got := files.Orient(src, tc.o)
			if b := got.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
				t.Fatalf("size %v, want %dx%d", b, tc.w, tc.h)
			}
			checkCorners(t, got, tc.want, 0)
		})
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		w, h, bw, bh int
		tw, th       int
	}{
		{100, 50, 128, 128, 100, 50}, // never enlarged
		{4000, 3000, 1280, 1280, 1280, 960},
		{3000, 4000, 1280, 1280, 960, 1280},
		{1920, 1080, 1280, 720, 1280, 720},
		{1000, 1000, 1280, 720, 720, 720},
		{10000, 1, 128, 128, 128, 1}, // never 0 pixels
		{1, 10000, 128, 128, 1, 128},
		{128, 128, 128, 128, 128, 128},
	}
	for _, tc := range tests {
		tw, th := files.Fit(tc.w, tc.h, tc.bw, tc.bh)
		if tw != tc.tw || th != tc.th {
			t.Errorf("Fit(%dx%d in %dx%d) = %dx%d, want %dx%d", tc.w, tc.h, tc.bw, tc.bh, tw, th, tc.tw, tc.th)
		}
	}
}

func TestResize(t *testing.T) {
	rgba := quadrants(1000, 600)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, rgba, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	ycbcr, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		img    image.Image
		tw, th int
	}{
		{"rgba by 7.8", rgba, 128, 77},
		{"ycbcr by 7.8", ycbcr, 128, 77},
		{"ycbcr by 1.5", ycbcr, 667, 400},
		{"rgba by 3", rgba, 333, 200},
		{"ycbcr odd", ycbcr, 99, 61},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := files.Resize(tc.img, tc.tw, tc.th)
			if b := got.Bounds(); b.Dx() != tc.tw || b.Dy() != tc.th {
				t.Fatalf("size %v, want %dx%d", b, tc.tw, tc.th)
			}
			checkCorners(t, got, [4]color.Color{red, green, blue, white}, 40)
		})
	}
}

func TestExifOrientation(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want int
	}{
		{"rotated", exifTIFF(6), 6},
		{"none", exifTIFF(0), 0},
		{"empty", nil, 0},
		{"garbage", []byte("not a tiff header at all"), 0},
		{"bad offset", append([]byte("II*\x00"), 0xff, 0xff, 0xff, 0x7f), 0},
		{"big endian", func() []byte {
			b := []byte("MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x08\x00\x00\x00\x00\x00\x00")
			return b
		}(), 8},
		{"out of range", func() []byte {
			b := exifTIFF(6)
			binary.LittleEndian.PutUint16(b[8+2+8:], 9)
			return b
		}(), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := files.ExifOrientation(tc.data); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestStripJPEG(t *testing.T) {
	in := jpegWithExif(t, quadrants(64, 32), 6)
	out, o, err := files.StripJPEG(in)
	if err != nil {
		t.Fatal(err)
	}
	if o != 6 {
		t.Fatalf("orientation %d, want 6", o)
	}
	for _, bad := range []string{secret, "Exif", "trailer"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Fatalf("stripped JPEG still holds %q", bad)
		}
	}
	img, err := jpeg.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("stripped JPEG does not decode: %v", err)
	}
	checkCorners(t, img, [4]color.Color{red, green, blue, white}, 40)
	if !bytes.HasSuffix(out, []byte{0xFF, 0xD9}) {
		t.Fatal("stripped JPEG does not end with EOI")
	}
	for _, bad := range [][]byte{nil, []byte("\xff\xd8"), in[:len(in)/2], []byte("\xff\xd8\xff\xe1\x00\x01")} {
		if _, _, err := files.StripJPEG(bad); err == nil {
			t.Errorf("StripJPEG(%d bytes of garbage) succeeded", len(bad))
		}
	}
}

func TestStripPNG(t *testing.T) {
	in := pngWithText(t, quadrants(30, 20), 3)
	out, o, err := files.StripPNG(in)
	if err != nil {
		t.Fatal(err)
	}
	if o != 3 {
		t.Fatalf("orientation %d, want 3", o)
	}
	if bytes.Contains(out, []byte(secret)) || bytes.Contains(out, []byte("tEXt")) || bytes.Contains(out, []byte("eXIf")) {
		t.Fatal("stripped PNG still holds metadata")
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("stripped PNG does not decode: %v", err)
	}
	checkCorners(t, img, [4]color.Color{red, green, blue, white}, 0)
	if _, _, err := files.StripPNG(in[:len(in)-20]); err == nil {
		t.Fatal("truncated PNG stripped without error")
	}
}

func TestWebPFixture(t *testing.T) {
	c := color.NRGBA{10, 200, 30, 255}
	for name, b := range map[string][]byte{"simple": webpSimple(33, 17, c), "extended": webpWithExif(33, 17, c)} {
		t.Run(name, func(t *testing.T) {
			img, err := webp.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if got := img.Bounds(); got.Dx() != 33 || got.Dy() != 17 {
				t.Fatalf("size %v", got)
			}
			if !near(img.At(5, 5), c, 0) {
				t.Fatalf("colour %v, want %v", img.At(5, 5), c)
			}
		})
	}
}

func TestStripWebP(t *testing.T) {
	c := color.NRGBA{10, 200, 30, 255}
	out, err := files.StripWebP(t.TempDir(), webpWithExif(33, 17, c))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(secret)) || bytes.Contains(out, []byte("EXIF")) || bytes.Contains(out, []byte("XMP ")) {
		t.Fatal("stripped WebP still holds metadata")
	}
	if n := binary.LittleEndian.Uint32(out[4:]); int(n) != len(out)-8 {
		t.Fatalf("RIFF size %d, file holds %d", n, len(out)-8)
	}
	if flags := out[20]; flags&0x0C != 0 {
		t.Fatalf("VP8X flags %#x still announce metadata", flags)
	}
	img, err := webp.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("stripped WebP does not decode: %v", err)
	}
	if !near(img.At(1, 1), c, 0) {
		t.Fatalf("colour %v", img.At(1, 1))
	}
	if _, err := files.StripWebP(t.TempDir(), webpWithExif(33, 17, c)[:40]); err == nil {
		t.Fatal("truncated WebP stripped without error")
	}
}

func TestParseProbe(t *testing.T) {
	tests := []struct {
		name string
		out  string
		w, h int
		err  bool
	}{
		{"plain", `{"streams":[{"width":1920,"height":1080}]}`, 1920, 1080, false},
		{"rotate tag", `{"streams":[{"width":1920,"height":1080,"tags":{"rotate":"90"}}]}`, 1080, 1920, false},
		{"side data", `{"streams":[{"width":1920,"height":1080,"side_data_list":[{"rotation":-90}]}]}`, 1080, 1920, false},
		{"upside down", `{"streams":[{"width":640,"height":480,"side_data_list":[{"rotation":180}]}]}`, 640, 480, false},
		{"no stream", `{"streams":[]}`, 0, 0, true},
		{"not json", `oops`, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, h, err := files.ParseProbe([]byte(tc.out))
			if (err != nil) != tc.err || w != tc.w || h != tc.h {
				t.Fatalf("got %dx%d, %v", w, h, err)
			}
		})
	}
}

func TestPreviewBox(t *testing.T) {
	tests := []struct {
		tag, maxSide string
		w, h         int
	}{
		{"attachments", "", 1280, 1280},
		{"attachments", "64", 1280, 1280}, // ignored outside icons and avatars
		{"backgrounds", "", 1280, 720},
		{"banners", "", 480, 480},
		{"emojis", "", 128, 128},
		{"icons", "", 128, 128},
		{"icons", "256", 256, 256},
		{"icons", "4096", 256, 256}, // capped
		{"avatars", "64", 64, 64},
		{"avatars", "-3", 128, 128},
		{"avatars", "big", 128, 128},
	}
	for _, tc := range tests {
		if w, h := files.PreviewBox(tc.tag, tc.maxSide); w != tc.w || h != tc.h {
			t.Errorf("PreviewBox(%s, %q) = %dx%d, want %dx%d", tc.tag, tc.maxSide, w, h, tc.w, tc.h)
		}
	}
}
