package embeds

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strings"

	"golang.org/x/image/bmp"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"ermine/internal/chat"
)

// Media is a proxied file, ready to serve.
type Media struct {
	ContentType string
	Body        []byte
}

// thumbnailSide is the largest width or height of a proxied image.
const thumbnailSide = 1280

// proxyCacheItem is the largest result the proxy keeps in its cache.
const proxyCacheItem = 1 << 20

// decoders are the image formats the proxy re-encodes, by sniffed type.
// The format is chosen from the bytes, never from the remote's header.
var decoders = map[string]struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}{
	"image/jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"image/png":  {png.DecodeConfig, png.Decode},
	"image/webp": {webp.DecodeConfig, webp.Decode},
	"image/bmp":  {bmp.DecodeConfig, bmp.Decode},
}

// Proxy fetches a remote image for a client that must not reach it
// directly: still images come back re-encoded as a thumbnail at most
// 1280×1280 (JPEG, or PNG when they have transparency), GIFs pass through
// once they decode, and anything else fails with FileTypeNotAllowed.
// Addresses Ermine may not fetch fail with InvalidOperation, unreachable
// ones with ProxyError.
func (s *Service) Proxy(ctx context.Context, raw string) (Media, error) {
	if m, ok := s.proxy.Get(raw); ok {
		return m, nil
	}
	v, err, _ := s.group.Do("proxy\x00"+raw, func() (any, error) {
		m, err := s.proxyFetch(ctx, raw)
		if err != nil {
			return Media{}, err
		}
		if len(m.Body) <= proxyCacheItem {
			s.proxy.Add(raw, m)
		}
		return m, nil
	})
	if err != nil {
		return Media{}, classify(err)
	}
	return v.(Media), nil
}

func (s *Service) proxyFetch(ctx context.Context, raw string) (Media, error) {
	resp, mt, err := s.fetch(ctx, raw, s.o.MediaBytes)
	if err != nil {
		return Media{}, err
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(mt, "image/") {
		return Media{}, chat.ErrFileTypeNotAllowed
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return Media{}, fmt.Errorf("read %s: %w", mt, err)
	}
	return s.reencode(data)
}

// reencode turns fetched image bytes into what the proxy serves.
func (s *Service) reencode(data []byte) (Media, error) {
	sniffed := http.DetectContentType(data)
	if sniffed == "image/gif" {
		cfg, err := gif.DecodeConfig(bytes.NewReader(data))
		if err != nil || s.tooLarge(cfg) {
			return Media{}, chat.ErrFileTypeNotAllowed
		}
		if _, err := gif.Decode(bytes.NewReader(data)); err != nil {
			return Media{}, chat.ErrFileTypeNotAllowed
		}
		return Media{ContentType: "image/gif", Body: data}, nil
	}
	d, ok := decoders[sniffed]
	if !ok {
		return Media{}, chat.ErrFileTypeNotAllowed
	}
	cfg, err := d.config(bytes.NewReader(data))
	if err != nil || s.tooLarge(cfg) {
		return Media{}, chat.ErrFileTypeNotAllowed
	}
	img, err := d.decode(bytes.NewReader(data))
	if err != nil {
		return Media{}, chat.ErrFileTypeNotAllowed
	}
	img = shrink(img, thumbnailSide)
	var out bytes.Buffer
	if opaque(img) {
		err = jpeg.Encode(&out, img, &jpeg.Options{Quality: 85})
		return Media{ContentType: "image/jpeg", Body: out.Bytes()}, err
	}
	err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&out, img)
	return Media{ContentType: "image/png", Body: out.Bytes()}, err
}

func (s *Service) tooLarge(cfg image.Config) bool {
	return cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > int64(s.o.MaxPixels)
}

// shrink scales img down to fit side×side, keeping its aspect ratio.
func shrink(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= side && h <= side {
		return img
	}
	if w >= h {
		w, h = side, max(1, h*side/w)
	} else {
		w, h = max(1, w*side/h), side
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// opaque reports whether img has no transparent pixel.
func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}
