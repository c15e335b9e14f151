package files

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

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
	if _, err := checkConfig(c, bufio.NewReader(r), maxPixels); err != nil {
		return nil, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, err := c.decode(bufio.NewReaderSize(r, 64<<10))
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
// the largest whole factor that keeps the image at least tw×th (it
// averages every source pixel, so no detail aliases), then a bilinear
// filter for the remaining factor, which is below 2. YCbCr images, what
// JPEG decodes to, are scaled plane by plane and stay YCbCr, so a JPEG
// preview is encoded without converting colours at all; everything else
// is scaled as premultiplied RGBA.
func resize(img image.Image, tw, th int) image.Image {
	b := img.Bounds()
	if b.Dx() == tw && b.Dy() == th {
		return img
	}
	f := min(b.Dx()/tw, b.Dy()/th)
	if y, ok := img.(*image.YCbCr); ok && y.Rect.Min == (image.Point{}) {
		if f >= 2 {
			y = boxYCbCr(y, f)
		}
		dst := image.NewYCbCr(image.Rect(0, 0, tw, th), y.SubsampleRatio)
		sw, sh := y.Rect.Dx(), y.Rect.Dy()
		cw, ch := chromaSize(sw, sh, y.SubsampleRatio)
		dcw, dch := chromaSize(tw, th, y.SubsampleRatio)
		bilinearPlane(dst.Y, dst.YStride, tw, th, y.Y, y.YStride, sw, sh, 1)
		bilinearPlane(dst.Cb, dst.CStride, dcw, dch, y.Cb, y.CStride, cw, ch, 1)
		bilinearPlane(dst.Cr, dst.CStride, dcw, dch, y.Cr, y.CStride, cw, ch, 1)
		return dst
	}
	src := toRGBA(img)
	if f >= 2 {
		w, h := ceilDiv(src.Rect.Dx(), f), ceilDiv(src.Rect.Dy(), f)
		small := image.NewRGBA(image.Rect(0, 0, w, h))
		boxPlane(small.Pix, small.Stride, w, h, src.Pix, src.Stride, src.Rect.Dx(), src.Rect.Dy(), f, 4)
		src = small
	}
	dst := image.NewRGBA(image.Rect(0, 0, tw, th))
	bilinearPlane(dst.Pix, dst.Stride, tw, th, src.Pix, src.Stride, src.Rect.Dx(), src.Rect.Dy(), 4)
	return dst
}

// boxYCbCr divides both sides of a YCbCr image whose origin is (0, 0) by
// f, rounding up, plane by plane.
func boxYCbCr(y *image.YCbCr, f int) *image.YCbCr {
	w, h := ceilDiv(y.Rect.Dx(), f), ceilDiv(y.Rect.Dy(), f)
	dst := image.NewYCbCr(image.Rect(0, 0, w, h), y.SubsampleRatio)
	// ⌈⌈a/s⌉/f⌉ = ⌈⌈a/f⌉/s⌉: the shrunk chroma planes have exactly the
	// size the shrunk image's chroma planes must have.
	cw, ch := chromaSize(y.Rect.Dx(), y.Rect.Dy(), y.SubsampleRatio)
	dcw, dch := chromaSize(w, h, y.SubsampleRatio)
	boxPlane(dst.Y, dst.YStride, w, h, y.Y, y.YStride, y.Rect.Dx(), y.Rect.Dy(), f, 1)
	boxPlane(dst.Cb, dst.CStride, dcw, dch, y.Cb, y.CStride, cw, ch, f, 1)
	boxPlane(dst.Cr, dst.CStride, dcw, dch, y.Cr, y.CStride, cw, ch, f, 1)
	return dst
}

// bilinearPlane scales a plane of sw×sh pixels of n interleaved 8-bit
// channels to dw×dh, each output pixel interpolated between the four
// source pixels around its centre, in 8-bit fixed point.
func bilinearPlane(dst []uint8, dstride, dw, dh int, src []uint8, sstride, sw, sh, n int) {
	xt, yt := bilinearTaps(dw, sw), bilinearTaps(dh, sh)
	for i := range xt {
		xt[i].i0 *= n
		xt[i].i1 *= n
	}
	for dy, ty := range yt {
		r0 := src[ty.i0*sstride : ty.i0*sstride+sw*n]
		r1 := src[ty.i1*sstride : ty.i1*sstride+sw*n]
		out := dst[dy*dstride : dy*dstride+dw*n]
		wy := ty.w
		for dx, tx := range xt {
			for c := range n {
				top := uint32(r0[tx.i0+c])*(256-tx.w) + uint32(r0[tx.i1+c])*tx.w
				bot := uint32(r1[tx.i0+c])*(256-tx.w) + uint32(r1[tx.i1+c])*tx.w
				out[dx*n+c] = uint8((top*(256-wy) + bot*wy + 1<<15) >> 16)
			}
		}
	}
}

// tap is where an output pixel is read from along one axis: between
// source pixels i0 and i1, with weight w/256 on i1.
type tap struct {
	i0, i1 int
	w      uint32
}

// bilinearTaps maps d output pixels onto s source pixels by their
// centres.
func bilinearTaps(d, s int) []tap {
	t := make([]tap, d)
	for i := range t {
		// ((i+½)·s/d − ½) source pixels, in 1/256.
		p := max(0, (2*i+1)*s*128/d-128)
		i0, w := p>>8, uint32(p&255)
		i1 := i0 + 1
		if i1 >= s {
			i0, i1, w = s-1, s-1, 0
		}
		t[i] = tap{i0, i1, w}
	}
	return t
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

// boxPlane averages f×f blocks of a plane of sw×sh pixels of n
// interleaved 8-bit channels into a dw×dh plane, dw = ⌈sw/f⌉ and
// dh = ⌈sh/f⌉; blocks at the right and bottom edges may be partial. Each
// band of f rows is first summed column by column (a tight loop over
// contiguous bytes), then each block's columns are added up.
func boxPlane(dst []uint8, dstride, dw, dh int, src []uint8, sstride, sw, sh, f, n int) {
	acc := make([]uint32, sw*n)
	for dy := range dh {
		clear(acc)
		y0, y1 := dy*f, min(dy*f+f, sh)
		for y := y0; y < y1; y++ {
			row := src[y*sstride : y*sstride+sw*n]
			acc := acc[:len(row)]
			for i, v := range row {
				acc[i] += uint32(v)
			}
		}
		out := dst[dy*dstride : dy*dstride+dw*n]
		for dx := range dw {
			x0, x1 := dx*f, min(dx*f+f, sw)
			cnt := uint32((x1 - x0) * (y1 - y0))
			for c := range n {
				var t uint32
				for x := x0; x < x1; x++ {
					t += acc[x*n+c]
				}
				out[dx*n+c] = uint8((t + cnt/2) / cnt)
			}
		}
	}
}

// previewQuality is the JPEG quality of photo previews, the quality the
// original service gives its WebP previews.
const previewQuality = 80

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
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: previewQuality}); err != nil {
		return nil, "", fmt.Errorf("encode preview: %w", err)
	}
	return buf.Bytes(), "image/jpeg", nil
}
