// Package blobtest is the conformance suite every blob.Store passes: the
// disk store always, the S3 store against an in-process fake and, when
// ERMINE_TEST_S3 is set, against a real S3-compatible server.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"ermine/internal/blob"
)

// Run checks a Store against the contract. open returns a new, empty
// store and is called once per subtest.
func Run(t *testing.T, open func(t *testing.T) blob.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, blob.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"Large", testLarge},
		{"Empty", testEmpty},
		{"Replace", testReplace},
		{"Seek", testSeek},
		{"Missing", testMissing},
		{"Delete", testDelete},
		{"List", testList},
		{"SizeMismatch", testSizeMismatch},
		{"FailingReader", testFailingReader},
		{"InvalidKeys", testInvalidKeys},
		{"Concurrent", testConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

func put(t *testing.T, s blob.Store, key string, data []byte) {
	t.Helper()
	if err := s.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
}

// read returns the object's bytes, failing the test when it is missing or
// its Size disagrees with its content.
func read(t *testing.T, s blob.Store, key string) []byte {
	t.Helper()
	o, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%s): %v", key, err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	if o.Size() != int64(len(b)) {
		t.Fatalf("Size() = %d, read %d bytes", o.Size(), len(b))
	}
	return b
}

func exists(t *testing.T, s blob.Store, key string) bool {
	t.Helper()
	ok, err := s.Exists(context.Background(), key)
	if err != nil {
		t.Fatalf("Exists(%s): %v", key, err)
	}
	return ok
}

func random(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func testRoundTrip(t *testing.T, s blob.Store) {
	data := random(t, 70_000)
	put(t, s, "originals/ab/abcdef", data)
	if got := read(t, s, "originals/ab/abcdef"); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes that differ from the %d put", len(got), len(data))
	}
	if !exists(t, s, "originals/ab/abcdef") {
		t.Fatal("Exists = false after Put")
	}
	// A key's parent is not an object.
	if exists(t, s, "originals/ab") {
		t.Fatal("Exists(parent) = true")
	}
}

// testLarge puts an object larger than minio-go's 16 MiB part size, so the
// S3 store goes through a multipart upload.
func testLarge(t *testing.T, s blob.Store) {
	if testing.Short() {
		t.Skip("short")
	}
	data := random(t, 17<<20)
	put(t, s, "large", data)
	if got := read(t, s, "large"); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes that differ from the %d put", len(got), len(data))
	}
}

func testEmpty(t *testing.T, s blob.Store) {
	put(t, s, "empty", nil)
	if got := read(t, s, "empty"); len(got) != 0 {
		t.Fatalf("read %d bytes, want 0", len(got))
	}
}

func testReplace(t *testing.T, s blob.Store) {
	put(t, s, "k", []byte("first version"))
	put(t, s, "k", []byte("second"))
	if got := string(read(t, s, "k")); got != "second" {
		t.Fatalf("read %q after replacing", got)
	}
}

func testSeek(t *testing.T, s blob.Store) {
	put(t, s, "seek", []byte("0123456789"))
	o, err := s.Open(context.Background(), "seek")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.Seek(4, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	if _, err := io.ReadFull(o, b); err != nil {
		t.Fatal(err)
	}
	if string(b) != "456" {
		t.Fatalf("after Seek(4) read %q", b)
	}
	end, err := o.Seek(0, io.SeekEnd)
	if err != nil || end != 10 {
		t.Fatalf("Seek(0, end) = %d, %v", end, err)
	}
	if _, err := o.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(o)
	if err != nil || string(all) != "0123456789" {
		t.Fatalf("after rewinding read %q, %v", all, err)
	}
}

func testMissing(t *testing.T, s blob.Store) {
	_, err := s.Open(context.Background(), "nothing/here")
	if !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open(missing) = %v, want ErrNotFound", err)
	}
	if exists(t, s, "nothing/here") {
		t.Fatal("Exists(missing) = true")
	}
}

func testDelete(t *testing.T, s blob.Store) {
	put(t, s, "previews/ab/hash/128x128", []byte("x"))
	put(t, s, "previews/ab/other/128x128", []byte("y"))
	ctx := context.Background()
	if err := s.Delete(ctx, "previews/ab/hash/128x128"); err != nil {
		t.Fatal(err)
	}
	if exists(t, s, "previews/ab/hash/128x128") {
		t.Fatal("Exists after Delete")
	}
	if _, err := s.Open(ctx, "previews/ab/hash/128x128"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open after Delete = %v", err)
	}
	if err := s.Delete(ctx, "previews/ab/hash/128x128"); err != nil {
		t.Fatalf("second Delete = %v, want nil", err)
	}
	if got := string(read(t, s, "previews/ab/other/128x128")); got != "y" {
		t.Fatalf("neighbour changed to %q", got)
	}
	// The emptied directory, if the store has directories, must not stop
	// the key from being written again.
	put(t, s, "previews/ab/hash/64x64", []byte("z"))
	if got := string(read(t, s, "previews/ab/hash/64x64")); got != "z" {
		t.Fatalf("read %q", got)
	}
}

func testList(t *testing.T, s blob.Store) {
	ctx := context.Background()
	for _, k := range []string{"p/a/1", "p/a/2", "p/ab/1", "q/1", "top"} {
		put(t, s, k, []byte(k))
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"p/a/", []string{"p/a/1", "p/a/2"}},
		{"p/", []string{"p/a/1", "p/a/2", "p/ab/1"}},
		{"", []string{"p/a/1", "p/a/2", "p/ab/1", "q/1", "top"}},
		{"none/", nil},
	}
	for _, tc := range tests {
		t.Run(tc.prefix, func(t *testing.T) {
			got, err := s.List(ctx, tc.prefix)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("List(%q) = %v, want %v", tc.prefix, got, tc.want)
			}
		})
	}
	if _, err := s.List(ctx, "p/a"); !errors.Is(err, blob.ErrInvalidKey) {
		t.Fatalf("List without trailing slash = %v, want ErrInvalidKey", err)
	}
}

func testSizeMismatch(t *testing.T, s blob.Store) {
	ctx := context.Background()
	tests := []struct {
		name string
		data string
		size int64
	}{
		{"short", "abc", 10},
		{"long", "abcdefghijkl", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := "mismatch-" + tc.name
			err := s.Put(ctx, key, strings.NewReader(tc.data), tc.size)
			if err == nil {
				t.Fatal("Put succeeded")
			}
			if tc.name == "long" && !errors.Is(err, blob.ErrSize) {
				t.Fatalf("Put = %v, want ErrSize", err)
			}
			if exists(t, s, key) {
				t.Fatal("a failed Put left an object")
			}
		})
	}
}

func testFailingReader(t *testing.T, s blob.Store) {
	put(t, s, "kept", []byte("old"))
	r := io.MultiReader(strings.NewReader("partial"), iotest.ErrReader(errors.New("disk on fire")))
	if err := s.Put(context.Background(), "kept", r, 100); err == nil {
		t.Fatal("Put with a failing reader succeeded")
	}
	if got := string(read(t, s, "kept")); got != "old" {
		t.Fatalf("a failed Put replaced the object with %q", got)
	}
	keys, err := s.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "kept" {
		t.Fatalf("keys after a failed Put: %v", keys)
	}
}

func testInvalidKeys(t *testing.T, s blob.Store) {
	ctx := context.Background()
	for _, key := range []string{"", "../x", "a/../b", "/abs", "a//b", "a/", ".hidden", "a b", "a\\b", strings.Repeat("k", 600)} {
		if err := s.Put(ctx, key, strings.NewReader("x"), 1); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Put(%q) = %v, want ErrInvalidKey", key, err)
		}
		if _, err := s.Open(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Open(%q) = %v, want ErrInvalidKey", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidKey", key, err)
		}
		if _, err := s.Exists(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Exists(%q) = %v, want ErrInvalidKey", key, err)
		}
	}
}

// testConcurrent writes the same key from several goroutines while others
// read it: every read sees one whole version.
func testConcurrent(t *testing.T, s blob.Store) {
	versions := [][]byte{bytes.Repeat([]byte("a"), 50_000), bytes.Repeat([]byte("b"), 50_000)}
	put(t, s, "hot", versions[0])
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		wg.Go(func() {
			v := versions[i%2]
			if err := s.Put(context.Background(), "hot", bytes.NewReader(v), int64(len(v))); err != nil {
				errs <- err
			}
		})
		wg.Go(func() {
			o, err := s.Open(context.Background(), "hot")
			if err != nil {
				errs <- err
				return
			}
			defer o.Close()
			b, err := io.ReadAll(o)
			if err != nil {
				errs <- err
				return
			}
			if !bytes.Equal(b, versions[0]) && !bytes.Equal(b, versions[1]) {
				errs <- errors.New("read a mixed or partial version")
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
