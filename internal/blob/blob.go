// Package blob is Ermine's byte storage contract: uploads and their
// previews are kept as immutable objects under string keys, on local disk
// (blob/disk) or in an S3-compatible object store (blob/s3). Every
// implementation passes the shared suite in blob/blobtest.
//
// The package knows nothing of files, tags or users; the app decides
// which keys exist and when they go away.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNotFound is returned by Open for a key that holds nothing.
var ErrNotFound = errors.New("blob: not found")

// ErrInvalidKey is returned for a key that breaks the rules of ValidKey.
var ErrInvalidKey = errors.New("blob: invalid key")

// ErrSize is returned by Put when the reader does not yield exactly the
// announced number of bytes. Nothing is stored then.
var ErrSize = errors.New("blob: size mismatch")

// ErrUnavailable is returned (wrapped) when the store cannot be reached
// or answers that it cannot serve now (a network failure, a 5xx): the
// request may succeed later. A Put that fails so stored nothing.
var ErrUnavailable = errors.New("blob: store unavailable")

// Store keeps objects under keys. Implementations are safe for concurrent
// use.
type Store interface {
	// Put stores the size bytes read from r under key, replacing what the
	// key held. Readers see either the old object or the new one whole,
	// never a part: a failed or cancelled Put leaves nothing behind. Put
	// returns ErrSize (wrapped) when r ends early or has more than size
	// bytes, and ErrInvalidKey for a bad key.
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Open returns the object under key for reading, or ErrNotFound. The
	// caller closes it.
	Open(ctx context.Context, key string) (Object, error)
	// Exists reports whether key holds an object.
	Exists(ctx context.Context, key string) (bool, error)
	// Delete removes the object under key. Deleting a key that holds
	// nothing is not an error.
	Delete(ctx context.Context, key string) error
	// List returns the keys that start with prefix, in lexical order.
	// prefix must be empty or a valid key followed by "/".
	List(ctx context.Context, prefix string) ([]string, error)
}

// Object is a stored object opened for reading. Seeking lets HTTP serve
// ranges of it.
type Object interface {
	io.ReadSeekCloser
	// Size is the object's length in bytes.
	Size() int64
}

// maxKey bounds the length of a key.
const maxKey = 512

// ValidKey reports whether key is usable: 1 to 512 bytes of segments
// separated by single slashes, each made of ASCII letters, digits, '.',
// '_' and '-' and not starting with '.'. The rules keep keys portable
// between file systems and object stores and rule out path traversal.
func ValidKey(key string) bool {
	if key == "" || len(key) > maxKey {
		return false
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg[0] == '.' {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
				return false
			}
		}
	}
	return true
}

// CheckKey returns ErrInvalidKey, naming key, when key is not valid.
func CheckKey(key string) error {
	if !ValidKey(key) {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	return nil
}

// CheckPrefix returns ErrInvalidKey when prefix is neither empty nor a
// valid key followed by a slash.
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if k, ok := strings.CutSuffix(prefix, "/"); ok && ValidKey(k) {
		return nil
	}
	return fmt.Errorf("%w: prefix %q", ErrInvalidKey, prefix)
}
