package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tarGz(t testing.TB, entries map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzReadArchive unpacks arbitrary archives: nothing may be written
// outside the target directory, whatever the entry names.
func FuzzReadArchive(f *testing.F) {
	f.Add(tarGz(f, map[string]string{"ermine.db": "SQLite format 3\x00", "files/ab/cd": "x"}))
	f.Add(tarGz(f, map[string]string{"files/../../escape": "x"}))
	f.Add(tarGz(f, map[string]string{"files//etc/passwd": "x", "ermine.db": ""}))
	f.Add([]byte("not gzip"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		inside := filepath.Join(root, "data")
		_, _ = readArchive(bytes.NewReader(data), filepath.Join(inside, "db"), filepath.Join(inside, "files"))
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if path != root && !strings.HasPrefix(path, inside) {
				t.Errorf("wrote %s outside %s", path, inside)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
