package files_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// mp4 is the start of an MP4 file: enough for the content to be sniffed
// as video/mp4.
var mp4 = append([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom\x00\x00\x00\x08free"), bytes.Repeat([]byte{0}, 64)...)

// TestVideo checks videos are described by ffprobe when it is on PATH
// (a stand-in script here, answering as ffprobe 6 does for a phone video
// shot upright) and as plain files when it is not.
func TestVideo(t *testing.T) {
	tests := []struct {
		name    string
		ffprobe string // script body; empty for no ffprobe on PATH
		meta    string
		w, h    int
	}{
		{"ffprobe", `printf '{"streams":[{"width":1920,"height":1080,"side_data_list":[{"rotation":-90}]}]}'`, "Video", 1080, 1920},
		{"ffprobe fails", `echo "moov atom not found" >&2; exit 1`, "File", 0, 0},
		{"no ffprobe", "", "File", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			if tc.ffprobe != "" {
				script := "#!/bin/sh\n" + tc.ffprobe + "\n"
				must(t, os.WriteFile(filepath.Join(bin, "ffprobe"), []byte(script), 0o755))
			}
			t.Setenv("PATH", bin)
			n := start(t, backends[0])
			u := n.NewUser("gina")
			id := n.uploadID("attachments", u.Token, "clip.mp4", mp4)
			f := n.record(id)
			if f.ContentType != "video/mp4" || f.Metadata.Type != tc.meta {
				t.Fatalf("record %s %+v", f.ContentType, f.Metadata)
			}
			if tc.w != 0 && (*f.Metadata.Width != tc.w || *f.Metadata.Height != tc.h) {
				t.Fatalf("size %dx%d", *f.Metadata.Width, *f.Metadata.Height)
			}
			n.use(id)
			if res := n.get("/autumn/attachments/" + id); res.status != http.StatusPermanentRedirect {
				t.Fatalf("preview of a video: %d", res.status)
			}
			if res := n.get("/autumn/avatars/" + id); res.status != http.StatusNotFound {
				t.Fatalf("video under another tag: %d", res.status)
			}
			if res := n.upload("avatars", u.Token, "clip.mp4", mp4); res.Status != http.StatusBadRequest {
				t.Fatalf("video avatar: %d %s", res.Status, res.Body)
			}
		})
	}
}
