// Package disk keeps blobs as files under a directory, one file per key
// with the key's slashes as subdirectories. Writes go to a temporary file
// in the target directory that is synced and then renamed over the key,
// so a reader or a crash never sees half an object.
package disk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"ermine/internal/blob"
)

// tempPrefix starts the names of files being written. Keys cannot start
// a segment with '.', so List can tell them apart.
const tempPrefix = ".put-"

// Store is a blob.Store in a directory.
type Store struct {
	root string
}

var _ blob.Store = (*Store)(nil)

// Open returns a Store rooted at dir, creating dir when it is missing.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("open blob directory: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open blob directory: %w", err)
	}
	return &Store{root: abs}, nil
}

// path maps a valid key to its file.
func (s *Store) path(key string) string {
	return filepath.Join(s.root, filepath.FromSlash(key))
}

// Put implements blob.Store.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64) (err error) {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("put %s: negative size: %w", key, blob.ErrSize)
	}
	target := s.path(key)
	dir := filepath.Dir(target)
	f, err := s.createTemp(dir)
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	n, err := io.Copy(f, io.LimitReader(ctxReader{ctx, r}, size+1))
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	if n != size {
		return fmt.Errorf("put %s: got %d bytes, want %d: %w", key, n, size, blob.ErrSize)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	if err := os.Rename(f.Name(), target); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// createTemp makes the directory and a temporary file in it. A Delete
// pruning empty directories may remove dir between the two steps, so a
// missing directory is retried a few times.
func (s *Store) createTemp(dir string) (*os.File, error) {
	var err error
	for range 3 {
		if err = os.MkdirAll(dir, 0o750); err != nil {
			return nil, err
		}
		var f *os.File
		f, err = os.CreateTemp(dir, tempPrefix+"*")
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, err
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Open implements blob.Store.
func (s *Store) Open(_ context.Context, key string) (blob.Object, error) {
	if err := blob.CheckKey(key); err != nil {
		return nil, err
	}
	f, err := os.Open(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open %s: %w", key, blob.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("open %s: %w", key, blob.ErrNotFound)
	}
	return &object{File: f, size: st.Size()}, nil
}

// object is an open file with its size.
type object struct {
	*os.File
	size int64
}

func (o *object) Size() int64 { return o.size }

// Exists implements blob.Store.
func (s *Store) Exists(_ context.Context, key string) (bool, error) {
	if err := blob.CheckKey(key); err != nil {
		return false, err
	}
	st, err := os.Stat(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", key, err)
	}
	return st.Mode().IsRegular(), nil
}

// Delete implements blob.Store. Directories left empty are removed up to
// the root, so deleted keys leave no trace.
func (s *Store) Delete(_ context.Context, key string) error {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	p := s.path(key)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	for dir := filepath.Dir(p); dir != s.root && strings.HasPrefix(dir, s.root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // not empty, or gone already
			break
		}
	}
	return nil
}

// List implements blob.Store.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if err := blob.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	start := s.root
	if prefix != "" {
		start = s.path(strings.TrimSuffix(prefix, "/"))
	}
	var keys []string
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != start {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		keys = append(keys, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	sort.Strings(keys)
	return keys, nil
}
