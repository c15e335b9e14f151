package files

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	xdraw "golang.org/x/image/draw"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// codec decodes one image format. Formats are chosen by the sniffed
// content type, never through image.Decode's global registry, so only
// the decoder for what the bytes are is ever run on them.
type codec struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

// codecs are the image formats Ermine reads, by content type. Other
// image types (AVIF, HEIC, JPEG XL, ICO, SVG) are kept as plain files.
var codecs = map[string]codec{
	"image/jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"image/png":  {png.DecodeConfig, png.Decode},
	"image/gif":  {gif.DecodeConfig, gif.Decode}, // the first frame
	"image/webp": {webp.DecodeConfig, webp.Decode},
	"image/bmp":  {bmp.DecodeConfig, bmp.Decode},
	"image/tiff": {tiff.DecodeConfig, tiff.Decode},
}

// errTooManyPixels refuses to decode an image whose header declares more
// pixels than the cap: a few kilobytes can declare gigabytes of pixels.
var errTooManyPixels = errors.New("image has too many pixels to decode")

// checkConfig reads an image's header and checks its dimensions against
// maxPixels before anything is decoded.
func checkConfig(c codec, r io.Reader, maxPixels int) (image.Config, error) {
	cfg, err := c.config(r)
	if err != nil {
		return cfg, fmt.Errorf("read image header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return cfg, fmt.Errorf("image of %dx%d: %w", cfg.Width, cfg.Height, errFormat)
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels) {
		return cfg, fmt.Errorf("image of %dx%d: %w", cfg.Width, cfg.Height, errTooManyPixels)
	}
	return cfg, nil
}

// decodeChecked decodes an image from a seekable source after checking
// its header.
func decodeChecked(c codec, r io.ReadSeeker, maxPixels int) (image.Image, error) {
	if _, err := checkConfig(c, r, maxPixels); err != nil {
		return nil, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, err := c.decode(r)
	if err != nil {
		return nil, fmt.Errorf("decode image: %w", err)
	}
	return img, nil
}

// orient turns img so that it looks as EXIF orientation o says it should:
// 2 mirrors, 3 turns 180°, 4 flips, 5 transposes, 6 turns 90° clockwise,
// 7 transverses, 8 turns 90° counter-clockwise.
func orient(img image.Image, o int) image.Image {
	if o <= orientUpright || o > 8 {
		return img
	}
	src := toRGBA(img)
	w, h := src.Rect.Dx(), src.Rect.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range h {
		row := src.Pix[y*src.Stride : y*src.Stride+4*w]
		for x := range w {
			var dx, dy int
			switch o {
			case 2:
				dx, dy = w-1-x, y
			case 3:
				dx, dy = w-1-x, h-1-y
			case 4:
				dx, dy = x, h-1-y
			case 5:
				dx, dy = y, x
			case 6:
				dx, dy = h-1-y, x
			case 7:
				dx, dy = h-1-y, w-1-x
			case 8:
				dx, dy = y, w-1-x
			}
			copy(dst.Pix[dy*dst.Stride+4*dx:dy*dst.Stride+4*dx+4], row[4*x:4*x+4])
		}
	}
	return dst
}

// toRGBA returns img as an *image.RGBA with its origin at (0, 0).
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Rect, img, b.Min, draw.Src)
	return dst
}

// fit returns the size of a w×h image scaled down to fit a bw×bh box,
// keeping its aspect ratio and never enlarging it.
func fit(w, h, bw, bh int) (int, int) {
	if w <= bw && h <= bh {
		return w, h
	}
	// Compare w/h with bw/bh without floating point.
	if int64(w)*int64(bh) >= int64(h)*int64(bw) {
		return bw, max(1, int((int64(h)*int64(bw)+int64(w)/2)/int64(w)))
	}
	return max(1, int((int64(w)*int64(bh)+int64(h)/2)/int64(h))), bh
}

// resize scales img down to tw×th in two steps: first a box filter by
// the largest whole factor that keeps the image at least tw×th (cheap,
// and it averages every source pixel, so no detail aliases), then a
// bilinear filter for the remaining factor, which is below 2.
func resize(img image.Image, tw, th int) image.Image {
	b := img.Bounds()
	if b.Dx() == tw && b.Dy() == th {
		return img
	}
	if f := min(b.Dx()/tw, b.Dy()/th); f >= 2 {
		img = boxShrink(img, f)
	}
	dst := image.NewRGBA(image.Rect(0, 0, tw, th))
	xdraw.ApproxBiLinear.Scale(dst, dst.Rect, img, img.Bounds(), xdraw.Src, nil)
	return dst
}

// boxShrink divides both sides of img by f (rounding up), each output
// pixel the average of the f×f pixels it covers. YCbCr images, what JPEG
// decodes to, are shrunk plane by plane without conversion.
func boxShrink(img image.Image, f int) image.Image {
	if y, ok := img.(*image.YCbCr); ok && y.Rect.Min == (image.Point{}) {
		w, h := ceilDiv(y.Rect.Dx(), f), ceilDiv(y.Rect.Dy(), f)
		dst := image.NewYCbCr(image.Rect(0, 0, w, h), y.SubsampleRatio)
		cw, ch := chromaSize(y.Rect.Dx(), y.Rect.Dy(), y.SubsampleRatio)
		dcw, dch := chromaSize(w, h, y.SubsampleRatio)
		boxPlane(dst.Y, dst.YStride, w, h, y.Y, y.YStride, y.Rect.Dx(), y.Rect.Dy(), f, 1)
		boxPlane(dst.Cb, dst.CStride, dcw, dch, y.Cb, y.CStride, cw, ch, f, 1)
		boxPlane(dst.Cr, dst.CStride, dcw, dch, y.Cr, y.CStride, cw, ch, f, 1)
		return dst
	}
	src := toRGBA(img)
	w, h := ceilDiv(src.Rect.Dx(), f), ceilDiv(src.Rect.Dy(), f)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	boxPlane(dst.Pix, dst.Stride, w, h, src.Pix, src.Stride, src.Rect.Dx(), src.Rect.Dy(), f, 4)
	return dst
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// chromaSize is the size of the chroma planes of a w×h YCbCr image.
func chromaSize(w, h int, r image.YCbCrSubsampleRatio) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return ceilDiv(w, 2), h
	case image.YCbCrSubsampleRatio420:
		return ceilDiv(w, 2), ceilDiv(h, 2)
	case image.YCbCrSubsampleRatio440:
		return w, ceilDiv(h, 2)
	case image.YCbCrSubsampleRatio411:
		return ceilDiv(w, 4), h
	case image.YCbCrSubsampleRatio410:
		return ceilDiv(w, 4), ceilDiv(h, 2)
	}
	return w, h
}

// boxPlane averages f×f blocks of a plane of sw×sh pixels of n (1 or 4)
// interleaved 8-bit channels into a dw×dh plane, dw = ⌈sw/f⌉ and
// dh = ⌈sh/f⌉; blocks at the right and bottom edges may be partial.
func boxPlane(dst []uint8, dstride, dw, dh int, src []uint8, sstride, sw, sh, f, n int) {
	sums := make([]uint32, dw*n)
	for dy := range dh {
		clear(sums)
		y0, y1 := dy*f, min(dy*f+f, sh)
		for y := y0; y < y1; y++ {
			row := src[y*sstride : y*sstride+sw*n]
			if n == 1 {
				for dx := range dw {
					var t uint32
					for _, v := range row[dx*f : min(dx*f+f, sw)] {
						t += uint32(v)
					}
					sums[dx] += t
				}
				continue
			}
			for dx := range dw {
				px := row[dx*f*4 : min(dx*f+f, sw)*4]
				var r, g, b, a uint32
				for i := 0; i+3 < len(px); i += 4 {
					r += uint32(px[i])
					g += uint32(px[i+1])
					b += uint32(px[i+2])
					a += uint32(px[i+3])
				}
				s := sums[dx*4 : dx*4+4 : dx*4+4]
				s[0] += r
				s[1] += g
				s[2] += b
				s[3] += a
			}
		}
		out := dst[dy*dstride : dy*dstride+dw*n]
		for dx := range dw {
			cnt := uint32((min(dx*f+f, sw) - dx*f) * (y1 - y0))
			for c := range n {
				out[dx*n+c] = uint8((sums[dx*n+c] + cnt/2) / cnt)
			}
		}
	}
}

// jpegQuality is used for re-encoded photos and photo previews.
const jpegQuality = 85

// opaque reports whether every pixel of img is fully opaque.
func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

// encodePreview encodes a preview. Go has no WebP encoder (the original
// service sends WebP), so previews are PNG, lossless and with
// transparency, when lossless is asked for (icons, avatars, emoji) or the
// image has transparent pixels, and JPEG otherwise (photos).
func encodePreview(img image.Image, lossless bool) ([]byte, string, error) {
	var buf bytes.Buffer
	if lossless || !opaque(img) {
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, img); err != nil {
			return nil, "", fmt.Errorf("encode preview: %w", err)
		}
		return buf.Bytes(), "image/png", nil
	}
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return nil, "", fmt.Errorf("encode preview: %w", err)
	}
	return buf.Bytes(), "image/jpeg", nil
}
