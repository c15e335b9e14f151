package files

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gabriel-vasile/mimetype"
	"golang.org/x/image/tiff"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// prepare works out what a spooled upload is and the form to keep:
//
//   - The content type is sniffed from the bytes (the client's type and
//     file name are ignored).
//   - Images Ermine can read get Image{width, height} as displayed, after
//     their EXIF orientation. Their metadata (EXIF, GPS, XMP, comments) is
//     stripped; a photo whose orientation is not upright is decoded,
//     turned and re-encoded, so what is stored is upright and carries no
//     orientation. Images that cannot be decoded, or declare more than
//     MaxPixels, are kept as they are with File metadata: never decoded,
//     never previewed, and refused by every tag but attachments.
//   - Videos get Video{width, height} from ffprobe when it is installed,
//     File otherwise; audio gets Audio; UTF-8 text gets Text ("text/plain";
//     the original said "plain/text"); everything else File.
func (s *Service) prepare(ctx context.Context, sp *spooled) (*app.Prepared, error) {
	if _, err := sp.file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("rewind upload: %w", err)
	}
	mt, err := mimetype.DetectReader(sp.file)
	if err != nil {
		return nil, fmt.Errorf("sniff upload: %w", err)
	}
	ctype, _, _ := strings.Cut(mt.String(), ";")
	p := &app.Prepared{ContentType: ctype, Metadata: chat.Metadata{Type: chat.MetadataFile}}
	keep, size := sp.file, sp.size
	switch {
	case codecs[ctype].decode != nil:
		f, meta, err := s.prepareImage(sp, ctype)
		if err != nil {
			return nil, err
		}
		p.Metadata = meta
		if f != nil {
			keep = f
			st, err := f.Stat()
			if err != nil {
				return nil, fmt.Errorf("stat processed upload: %w", err)
			}
			size = st.Size()
		}
	case strings.HasPrefix(ctype, "video/"):
		p.Metadata = s.probeVideo(ctx, sp.file.Name())
	case strings.HasPrefix(ctype, "audio/"):
		p.Metadata.Type = chat.MetadataAudio
	case ctype == "text/plain":
		p.Metadata.Type = chat.MetadataText
	}
	if _, err := keep.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("rewind upload: %w", err)
	}
	p.Body, p.Size = keep, size
	return p, nil
}

// prepareImage strips an image and reads its displayed size. It returns
// the processed file to keep (nil to keep the upload as it came) and the
// metadata; only I/O failures are errors.
func (s *Service) prepareImage(sp *spooled, ctype string) (*os.File, chat.Metadata, error) {
	asFile := chat.Metadata{Type: chat.MetadataFile}
	c := codecs[ctype]
	if _, err := sp.file.Seek(0, io.SeekStart); err != nil {
		return nil, asFile, err
	}
	if _, err := checkConfig(c, bufio.NewReader(sp.file), s.maxPixels); err != nil {
		s.log.Info("upload kept as a plain file", "content_type", ctype, "reason", err)
		return nil, asFile, nil
	}
	out, err := s.tempFile(sp)
	if err != nil {
		return nil, asFile, err
	}
	if _, err := sp.file.Seek(0, io.SeekStart); err != nil {
		return nil, asFile, err
	}
	orientation := orientUpright
	src := bufio.NewReaderSize(sp.file, 64<<10)
	switch ctype {
	case "image/jpeg":
		orientation, err = stripJPEG(out, src)
	case "image/png":
		orientation, err = stripPNG(out, src)
	case "image/webp":
		err = stripWebP(out, src)
	default: // GIF and BMP carry no camera metadata; TIFF is re-encoded below
		_, err = io.Copy(out, src)
	}
	if errors.Is(err, errFormat) {
		s.log.Info("upload kept as a plain file", "content_type", ctype, "reason", err)
		return nil, asFile, nil
	}
	if err != nil {
		return nil, asFile, fmt.Errorf("strip image: %w", err)
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return nil, asFile, err
	}
	// Decode the whole image: an upload described as an Image must be
	// one that previews can be made of.
	img, err := decodeChecked(c, out, s.maxPixels)
	if err != nil {
		s.log.Info("upload kept as a plain file", "content_type", ctype, "reason", err)
		return nil, asFile, nil
	}
	if orientation != orientUpright || ctype == "image/tiff" {
		img = orient(img, orientation)
		if out, err = s.tempFile(sp); err != nil {
			return nil, asFile, err
		}
		w := bufio.NewWriterSize(out, 64<<10)
		switch ctype {
		case "image/jpeg":
			// Turning the pixels costs one generation of JPEG loss;
			// a high quality keeps it invisible.
			err = jpeg.Encode(w, img, &jpeg.Options{Quality: 92})
		case "image/tiff":
			// The TIFF encoder writes only what describes the pixels.
			err = tiff.Encode(w, img, &tiff.Options{Compression: tiff.Deflate})
		default:
			err = png.Encode(w, img)
		}
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			return nil, asFile, fmt.Errorf("re-encode image: %w", err)
		}
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	return out, chat.Metadata{Type: chat.MetadataImage, Width: &w, Height: &h}, nil
}

// tempFile creates a temporary file that is removed with the upload.
func (s *Service) tempFile(sp *spooled) (*os.File, error) {
	f, err := os.CreateTemp(s.tempDir, "ermine-processed-*")
	if err != nil {
		return nil, fmt.Errorf("create temporary file: %w", err)
	}
	sp.extra = append(sp.extra, f)
	return f, nil
}

// ffprobeTimeout bounds one run of ffprobe.
const ffprobeTimeout = 15 * time.Second

// probeVideo asks ffprobe for the size of a video's first video stream,
// as displayed (a rotation of ±90° swaps the sides). Without ffprobe, or
// when it fails, the video is described as a plain file and the log says
// why.
func (s *Service) probeVideo(ctx context.Context, path string) chat.Metadata {
	asFile := chat.Metadata{Type: chat.MetadataFile}
	if s.ffprobe == "" {
		s.log.Info("video described as File: ffprobe is not installed")
		return asFile
	}
	ctx, cancel := context.WithTimeout(ctx, ffprobeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.ffprobe, "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=width,height:stream_tags=rotate:stream_side_data=rotation",
		"-of", "json", "--", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		s.log.Warn("video described as File: ffprobe failed", "err", err, "stderr", strings.TrimSpace(stderr.String()))
		return asFile
	}
	w, h, err := parseProbe(out)
	if err != nil {
		s.log.Warn("video described as File: unexpected ffprobe output", "err", err)
		return asFile
	}
	return chat.Metadata{Type: chat.MetadataVideo, Width: &w, Height: &h}
}

// parseProbe reads ffprobe's JSON: the first stream's width and height,
// swapped when its rotation (a tag in older ffmpeg, side data in newer)
// is a quarter turn.
func parseProbe(out []byte) (int, int, error) {
	var probe struct {
		Streams []struct {
			Width  int `json:"width"`
			Height int `json:"height"`
			Tags   struct {
				Rotate string `json:"rotate"`
			} `json:"tags"`
			SideData []struct {
				Rotation *float64 `json:"rotation"`
			} `json:"side_data_list"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &probe); err != nil {
		return 0, 0, fmt.Errorf("parse ffprobe output: %w", err)
	}
	if len(probe.Streams) == 0 || probe.Streams[0].Width <= 0 || probe.Streams[0].Height <= 0 {
		return 0, 0, errors.New("no video stream with a size")
	}
	st := probe.Streams[0]
	rotation := 0
	if r, err := strconv.Atoi(st.Tags.Rotate); err == nil {
		rotation = r
	}
	for _, sd := range st.SideData {
		if sd.Rotation != nil {
			rotation = int(*sd.Rotation)
		}
	}
	if ((rotation%180)+180)%180 == 90 {
		return st.Height, st.Width, nil
	}
	return st.Width, st.Height, nil
}
