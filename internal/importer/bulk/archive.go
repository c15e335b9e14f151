package bulk

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Sink receives an export: chunks of the record stream and files' bytes.
type Sink interface {
	// Records stores the n-th chunk of the record stream (n from 1).
	Records(n int, chunk []byte) error
	// File stores the bytes of the file with SHA-256 hash.
	File(hash string, size int64, r io.Reader) error
	// Close finishes the export.
	Close() error
}

// Create opens a Sink at path: a directory when path ends in a slash or
// names an existing directory, else a tar archive (gzip'd when path ends
// in .gz or .tgz). An existing file is not overwritten.
func Create(path string) (Sink, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() || strings.HasSuffix(path, "/") {
		return newDirSink(path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	s := &tarSink{f: f}
	var w io.Writer = f
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".tgz") {
		s.gz = gzip.NewWriter(f)
		w = s.gz
	}
	s.tw = tar.NewWriter(w)
	return s, nil
}

func chunkName(n int) string { return fmt.Sprintf("%s/%06d.jsonl", RecordsDir, n) }

func fileName(hash string) string { return FilesDir + "/" + hash }

// tarSink writes a tar archive.
type tarSink struct {
	f  *os.File
	gz *gzip.Writer
	tw *tar.Writer
}

func (s *tarSink) entry(name string, size int64, r io.Reader) error {
	hdr := &tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: time.Now().Truncate(time.Second), Typeflag: tar.TypeReg}
	if err := s.tw.WriteHeader(hdr); err != nil {
		return err
	}
	n, err := io.Copy(s.tw, r)
	if err == nil && n != size {
		err = fmt.Errorf("%s: %d bytes, want %d", name, n, size)
	}
	return err
}

func (s *tarSink) Records(n int, chunk []byte) error {
	return s.entry(chunkName(n), int64(len(chunk)), strings.NewReader(string(chunk)))
}

func (s *tarSink) File(hash string, size int64, r io.Reader) error {
	return s.entry(fileName(hash), size, r)
}

func (s *tarSink) Close() error {
	err := s.tw.Close()
	if s.gz != nil {
		err = errors.Join(err, s.gz.Close())
	}
	return errors.Join(err, s.f.Close())
}

// dirSink writes a directory.
type dirSink struct{ dir string }

func newDirSink(dir string) (*dirSink, error) {
	for _, d := range []string{RecordsDir, FilesDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, RecordsDir)); len(ents) > 0 {
		return nil, fmt.Errorf("%s holds an export already", dir)
	}
	return &dirSink{dir: dir}, nil
}

func (s *dirSink) Records(n int, chunk []byte) error {
	return os.WriteFile(filepath.Join(s.dir, filepath.FromSlash(chunkName(n))), chunk, 0o600)
}

func (s *dirSink) File(hash string, size int64, r io.Reader) error {
	p := filepath.Join(s.dir, filepath.FromSlash(fileName(hash)))
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	return errors.Join(err, f.Close())
}

func (s *dirSink) Close() error { return nil }
