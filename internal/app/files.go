package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"

	"ermine/internal/avatar"
	"ermine/internal/blob"
	"ermine/internal/chat"
	"ermine/internal/store"
)

// The file rules (behaviour.md §7):
//
//   - An upload is kept under its tag with a fresh id: a ULID for emojis
//     (the emoji takes its file's id), 42 URL-safe characters otherwise.
//   - Identical bytes are stored once. The blob key is the SHA-256 of the
//     bytes as uploaded; a second upload of them gets its own record that
//     reuses the stored bytes, type and metadata without processing them
//     again. The blob goes when the last record naming it goes.
//   - A file is used at most once, by a route that takes a file of its tag
//     (useFile in file_use.go, inside the
//     route's transaction, NotFound for an unknown, used, released or
//     wrongly tagged id). Until then it cannot be downloaded, and if it
//     stays unused for Limits.UnusedFileTTL the sweep removes it.
//   - Routes that drop a used file (message deleted, avatar replaced or
//     removed) mark it deleted (dropFile); it stops being
//     served at once and the sweep removes it and, when nothing else
//     refers to them, its bytes.
//
// Blob writes cannot join a database transaction, so records and blobs
// are kept consistent by order and by a lock per hash: an upload stores
// the bytes before it inserts the record, the sweep deletes the record
// before it counts what is left and removes the bytes, and both hold the
// hash's lock meanwhile. The lock is per process; nodes that share a blob
// store could race on the same hash in the gap between an upload's check
// and its insert, which needs two identical uploads and a sweep within
// the same milliseconds.

// fileState is the app's bookkeeping for files.
type fileState struct {
	blobs    blob.Store      // bytes of uploads and their previews
	avatars  avatar.Defaults // drawn on first use
	seed     maphash.Seed    // made by New
	locks    [64]sync.Mutex
	previews singleflight.Group
}

// lockHash locks the bytes stored under hash against concurrent uploads,
// sweeps and preview writes; it returns the unlock function.
func (a *App) lockHash(hash string) func() {
	m := &a.files.locks[maphash.String(a.files.seed, hash)%uint64(len(a.files.locks))]
	m.Lock()
	return m.Unlock
}

// originalKey is where the bytes with hash are kept; previewKey where a
// preview of them is. Keys are spread over 256 directories by the hash's
// first byte so no directory of the disk store grows too large.
func originalKey(hash string) string { return "originals/" + hash[:2] + "/" + hash }

func previewPrefix(hash string) string { return "previews/" + hash[:2] + "/" + hash + "/" }

func previewKey(hash, variant string) string { return previewPrefix(hash) + variant }

// validHash reports whether h is a SHA-256 in lower-case hex.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !('0' <= h[i] && h[i] <= '9' || 'a' <= h[i] && h[i] <= 'f') {
			return false
		}
	}
	return true
}

// FileLimit returns the largest upload accepted for tag in bytes, or
// NotFound for a tag Ermine does not have. The file service uses it to
// stop reading a body as soon as it is too large.
func (a *App) FileLimit(tag string) (int64, error) {
	n, ok := a.settings.Limits.Uploads[tag]
	if !ok {
		return 0, chat.ErrNotFound
	}
	return n, nil
}

// Upload is a file the file service has received into temporary storage.
type Upload struct {
	Tag      string
	Filename string
	// Size is the number of bytes received and Hash their SHA-256 in
	// lower-case hex.
	Size int64
	Hash string
	// Prepare is called only when these bytes are not stored yet. It
	// inspects them and returns what to keep: the bytes with their
	// metadata stripped, the content type and the metadata.
	Prepare func(ctx context.Context) (*Prepared, error)
}

// Prepared is an upload made ready to keep.
type Prepared struct {
	ContentType string
	Metadata    chat.Metadata
	// Body yields Size bytes, the form to store and serve.
	Body io.Reader
	Size int64
}

// UploadFile keeps an upload (POST /autumn/{tag}) and returns its file.
// Errors: NotFound for an unknown tag, FileTooSmall for no bytes,
// FileTooLarge{max} above the tag's limit, FileTypeNotAllowed for
// anything but an image under a tag other than attachments.
func (a *App) UploadFile(ctx context.Context, c *Caller, up Upload) (*chat.File, error) {
	limit, err := a.FileLimit(up.Tag)
	if err != nil {
		return nil, err
	}
	switch {
	case up.Size < 1:
		return nil, chat.ErrFileTooSmall
	case up.Size > limit:
		return nil, chat.ErrFileTooLarge(limit)
	case !validHash(up.Hash):
		return nil, fmt.Errorf("upload: malformed hash %q", up.Hash)
	}
	unlock := a.lockHash(up.Hash)
	defer unlock()

	rec := &chat.FileRecord{Hash: up.Hash, UploaderID: c.ID(), UploadedAt: chat.TimeOf(a.now())}
	rec.Tag, rec.Filename = up.Tag, cleanFilename(up.Filename)
	stored, err := a.store.FetchFileByHash(ctx, up.Hash)
	fresh := errors.Is(err, store.ErrNotFound)
	switch {
	case fresh:
		p, err := up.Prepare(ctx)
		if err != nil {
			return nil, err
		}
		rec.ContentType, rec.Metadata, rec.Size = p.ContentType, p.Metadata, p.Size
		if err := allowedKind(up.Tag, rec.Metadata); err != nil {
			return nil, err
		}
		if err := a.files.blobs.Put(ctx, originalKey(up.Hash), p.Body, p.Size); err != nil {
			return nil, storageError("store upload", err)
		}
	case err != nil:
		return nil, dbError("fetch file by hash", err)
	default:
		rec.ContentType, rec.Metadata, rec.Size = stored.ContentType, stored.Metadata, stored.Size
		if err := allowedKind(up.Tag, rec.Metadata); err != nil {
			return nil, err
		}
	}
	if up.Tag == chat.TagEmojis {
		rec.ID = string(chat.NewIDAt(a.now()))
	} else {
		rec.ID = chat.NewToken(fileIDLength)
	}
	if err := a.store.InsertFile(ctx, rec); err != nil {
		if fresh {
			a.dropUnreferenced(context.WithoutCancel(ctx), up.Hash)
		}
		return nil, dbError("insert file", err)
	}
	f := rec.File
	return &f, nil
}

// fileIDLength is the length of file ids other than emojis'.
const fileIDLength = 42

// allowedKind applies the rule that tags other than attachments take
// images only.
func allowedKind(tag string, m chat.Metadata) error {
	if tag != chat.TagAttachments && m.Type != chat.MetadataImage {
		return chat.ErrFileTypeNotAllowed
	}
	return nil
}

// maxFilename bounds a stored file name, in bytes.
const maxFilename = 128

// cleanFilename makes a client's file name safe to keep and to put in a
// URL path: no path separators or control characters, no '?', '#' or
// '%' (clients concatenate the name into URLs unencoded), at most
// maxFilename bytes of whole characters, and "unnamed-file" when nothing
// is left.
func cleanFilename(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '/' || r == '\\' || r == '?' || r == '#' || r == '%' || r < 0x20 || r == 0x7f || r == 0xfffd:
			r = '_'
		}
		if b.Len()+len(string(r)) > maxFilename {
			break
		}
		b.WriteRune(r)
	}
	s := strings.TrimSpace(b.String())
	if s == "" || s == "." || s == ".." {
		return "unnamed-file"
	}
	return s
}

func isDeleted(f *chat.FileRecord) bool { return f.Deleted != nil && *f.Deleted }

// ServedFile returns the file id under tag for downloading
// (GET /autumn/{tag}/{id}...). Only used files that were not released
// are served; anything else, including a file still waiting to be used,
// is NotFound.
func (a *App) ServedFile(ctx context.Context, tag, id string) (*chat.FileRecord, error) {
	if len(id) == 0 || len(id) > fileIDLength {
		return nil, chat.ErrNotFound
	}
	rec, err := a.store.FetchFile(ctx, id)
	if err != nil {
		return nil, notFound(dbError("fetch file", err))
	}
	if rec.Tag != tag || rec.UsedFor == "" || isDeleted(rec) || !validHash(rec.Hash) {
		return nil, chat.ErrNotFound
	}
	return rec, nil
}

// OpenFile opens the stored bytes of a file ServedFile returned. Bytes
// that have gone missing are NotFound (and logged).
func (a *App) OpenFile(ctx context.Context, f *chat.FileRecord) (blob.Object, error) {
	o, err := a.files.blobs.Open(ctx, originalKey(f.Hash))
	if errors.Is(err, blob.ErrNotFound) {
		a.log.WarnContext(ctx, "file bytes missing", "file", f.ID, "hash", f.Hash)
		return nil, chat.ErrNotFound.Wrap(err)
	}
	if err != nil {
		return nil, storageError("open file "+f.ID, err)
	}
	return o, nil
}

// storageError is err from the blob store as the client sees it:
// StorageUnavailable (503) while the store cannot be reached, an internal
// error otherwise.
func storageError(what string, err error) error {
	if errors.Is(err, blob.ErrUnavailable) {
		return chat.ErrStorageUnavailable.Wrap(fmt.Errorf("%s: %w", what, err))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// FilePreview returns the preview variant (a name such as "128x128") of
// a file ServedFile returned. The first request renders it with render,
// which reads the original, and keeps the result in blob storage; later
// requests read it from there. Concurrent first requests render once.
func (a *App) FilePreview(ctx context.Context, f *chat.FileRecord, variant string, render func(original io.ReadSeeker) ([]byte, error)) (blob.Object, error) {
	if strings.Contains(variant, "/") || !blob.ValidKey(variant) {
		return nil, fmt.Errorf("preview variant %q: %w", variant, blob.ErrInvalidKey)
	}
	key := previewKey(f.Hash, variant)
	o, err := a.files.blobs.Open(ctx, key)
	if err == nil {
		return o, nil
	}
	if !errors.Is(err, blob.ErrNotFound) {
		return nil, storageError("open preview", err)
	}
	v, err, _ := a.files.previews.Do(key, func() (any, error) {
		// The first caller's cancellation must not fail the others.
		ctx := context.WithoutCancel(ctx)
		src, err := a.OpenFile(ctx, f)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		b, err := render(src)
		if err != nil {
			return nil, err
		}
		unlock := a.lockHash(f.Hash)
		defer unlock()
		// A sweep may have removed the original meanwhile; a preview
		// written now would outlive it.
		if ok, err := a.files.blobs.Exists(ctx, originalKey(f.Hash)); err != nil || !ok {
			return b, err
		}
		if err := a.files.blobs.Put(ctx, key, bytes.NewReader(b), int64(len(b))); err != nil {
			a.log.WarnContext(ctx, "keep preview", "file", f.ID, "err", err)
		}
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	return bytesObject{bytes.NewReader(v.([]byte))}, nil
}

// bytesObject is a rendered preview served from memory.
type bytesObject struct{ *bytes.Reader }

func (bytesObject) Close() error { return nil }

// sweepBatch is how many records one pass of the sweep handles at most.
const sweepBatch = 200

// SweepFiles removes uploads left unused for longer than
// Limits.UnusedFileTTL and files released by what used them (files
// flagged by a safety report are kept), with their bytes and previews
// when nothing else refers to them. It returns how many records it
// removed. The server calls it periodically; it is safe to run on every
// node at once.
func (a *App) SweepFiles(ctx context.Context) (int, error) {
	cutoff := chat.TimeOf(a.now().Add(-a.settings.Limits.UnusedFileTTL))
	removed := 0
	for {
		unused, err := a.store.FetchUnusedFiles(ctx, cutoff, sweepBatch)
		if err != nil {
			return removed, dbError("fetch unused files", err)
		}
		n, err := a.removeFiles(ctx, unused, func(f *chat.FileRecord) bool {
			return f.UsedFor == "" && !isDeleted(f) && f.UploadedAt.Before(cutoff.Time)
		})
		removed += n
		if err != nil || len(unused) < sweepBatch {
			if err != nil {
				return removed, err
			}
			break
		}
	}
	deleted, err := a.store.FetchDeletedFiles(ctx, sweepBatch)
	if err != nil {
		return removed, dbError("fetch deleted files", err)
	}
	n, err := a.removeFiles(ctx, deleted, func(f *chat.FileRecord) bool {
		return isDeleted(f) && (f.Reported == nil || !*f.Reported)
	})
	return removed + n, err
}

// removeFiles deletes the records among files for which still holds when
// checked again inside a transaction (a file may have been used since it
// was listed), then their bytes when no record names them any more.
func (a *App) removeFiles(ctx context.Context, files []*chat.FileRecord, still func(*chat.FileRecord) bool) (int, error) {
	n := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		ok, err := a.removeFile(ctx, f, still)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

func (a *App) removeFile(ctx context.Context, f *chat.FileRecord, still func(*chat.FileRecord) bool) (bool, error) {
	unlock := a.lockHash(f.Hash)
	defer unlock()
	removed := false
	err := a.store.InTx(ctx, func(tx store.Store) error {
		cur, err := tx.FetchFile(ctx, f.ID)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return dbError("fetch file", err)
		}
		if !still(cur) {
			return nil
		}
		removed = true
		return dbError("delete file", tx.DeleteFile(ctx, cur.ID))
	})
	if err != nil || !removed {
		return false, err
	}
	if validHash(f.Hash) {
		a.dropUnreferenced(ctx, f.Hash)
	}
	return true, nil
}

// dropUnreferenced removes the bytes stored under hash and their previews
// when no record names the hash. The caller holds the hash's lock.
// Failures are logged: the bytes stay, and nothing refers to them.
func (a *App) dropUnreferenced(ctx context.Context, hash string) {
	n, err := a.store.CountFilesByHash(ctx, hash)
	if err != nil || n > 0 {
		if err != nil {
			a.log.WarnContext(ctx, "count files by hash", "hash", hash, "err", err)
		}
		return
	}
	keys, err := a.files.blobs.List(ctx, previewPrefix(hash))
	if err != nil {
		a.log.WarnContext(ctx, "list previews", "hash", hash, "err", err)
	}
	for _, k := range append(keys, originalKey(hash)) {
		if err := a.files.blobs.Delete(ctx, k); err != nil {
			a.log.WarnContext(ctx, "delete blob", "key", k, "err", err)
		}
	}
}
