package files_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"net/http"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/files"
)

// photo is a w×h JPEG at quality 90 with gradients and noise, so that it
// compresses like a camera photo rather than a flat test card.
func photo(b testing.TB, w, h int) []byte {
	b.Helper()
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			img.Y[y*img.YStride+x] = uint8((x*200/w+y*200/h)/2 + r.IntN(24))
		}
	}
	for y := range h / 2 {
		for x := range w / 2 {
			img.Cb[y*img.CStride+x] = uint8(64 + x*128/w + r.IntN(8))
			img.Cr[y*img.CStride+x] = uint8(64 + y*128/h + r.IntN(8))
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkUploadAttachment measures uploads of distinct 1 MB binary
// attachments over HTTP on the disk backend: spooling, hashing,
// sniffing, storing and the record.
func BenchmarkUploadAttachment(b *testing.B) {
	n := start(b, backends[0])
	data := make([]byte, 1<<20)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	var u *apitest.User
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := range b.N {
		if i%10 == 0 { // stay under the upload rate limit
			b.StopTimer()
			u = n.NewUser("bench")
			b.StartTimer()
		}
		binary.LittleEndian.PutUint64(data, uint64(i)) // distinct bytes: no deduplication
		if res := n.upload("attachments", u.Token, "data.bin", data); res.Status != http.StatusOK {
			b.Fatalf("upload: %d %s", res.Status, res.Body)
		}
	}
}

// BenchmarkPreview measures previews of a 4000×3000 photo: rendering
// alone (decode, scale, encode) for the attachment box and an icon, the
// whole first request over HTTP (the cached preview is deleted before
// each), and a request served from the cache.
func BenchmarkPreview(b *testing.B) {
	src := photo(b, 4000, 3000)
	b.Logf("photo: %d bytes", len(src))
	b.Run("render/attachment", func(b *testing.B) {
		for range b.N {
			if _, err := files.RenderPreview(src, "image/jpeg", 1280, 1280, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("render/icon", func(b *testing.B) {
		for range b.N {
			if _, err := files.RenderPreview(src, "image/jpeg", 256, 256, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	n := start(b, backends[0])
	u := n.NewUser("bench")
	id := n.uploadID("attachments", u.Token, "photo.jpg", src)
	n.use(id)
	path := "/autumn/attachments/" + id
	b.Run("first", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			keys := n.keys("previews/")
			for _, k := range keys {
				must(b, n.blobs.Delete(context.Background(), k))
			}
			b.StartTimer()
			if res := n.get(path); res.status != http.StatusOK {
				b.Fatalf("preview: %d", res.status)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		n.get(path)
		b.ResetTimer()
		for range b.N {
			if res := n.get(path); res.status != http.StatusOK {
				b.Fatalf("preview: %d", res.status)
			}
		}
	})
}
