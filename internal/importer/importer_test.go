package importer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"ermine/internal/blob/disk"
	"ermine/internal/chat"
	"ermine/internal/importer"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

func open(t *testing.T) (store.Store, *disk.Store) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), t.TempDir()+"/ermine.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := disk.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st, b
}

func user(i int) *chat.User {
	return &chat.User{ID: chat.ID(fmt.Sprintf("01HZZZZZZZZZZZZZZZZZZZZ%03d", i)), Username: fmt.Sprintf("user%d", i), Discriminator: "0001"}
}

// importUsers is a reader over n users that fails, once, when it reaches
// failAt (a document index; -1 never), as an interrupted run does.
func importUsers(ctx context.Context, p *importer.Pipeline, n, failAt int) error {
	if p.Complete("users") {
		return nil
	}
	w := p.Collection("users", int64(n))
	for i := int(p.Done("users")); i < n; i++ {
		if i == failAt {
			return errors.New("interrupted")
		}
		u := user(i)
		if i == 7 { // same username#discriminator as user 6
			u.Username = "user6"
		}
		if i == 9 {
			w.Skip(string(u.ID), "unknown shape")
		} else {
			w.User(u)
		}
		if err := w.Next(ctx); err != nil {
			return err
		}
	}
	return w.Close(ctx)
}

func TestResume(t *testing.T) {
	ctx := t.Context()
	st, blobs := open(t)
	opt := importer.Options{Source: "test", Command: "ermine import test", Batch: 4}
	p, err := importer.Begin(ctx, st, blobs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := importUsers(ctx, p, 30, 13); err == nil {
		t.Fatal("want the interruption")
	}
	// The first run committed whole batches only, and the marker says so.
	mark, err := st.FetchImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if mark.Done["users"] != 12 || mark.Command != "ermine import test" {
		t.Fatalf("marker after interruption = %+v, want 12 users done", mark)
	}
	if _, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "other"}); !errors.Is(err, importer.ErrOtherImport) {
		t.Fatalf("Begin of another source over an unfinished import = %v", err)
	}

	p, err = importer.Begin(ctx, st, blobs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Resumed() {
		t.Fatal("second run did not resume")
	}
	if err := importUsers(ctx, p, 30, -1); err != nil {
		t.Fatal(err)
	}
	r, err := p.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Imported("users"); got != 28 {
		t.Errorf("imported %d users, want 28 (30 less a duplicate and a skip)", got)
	}
	if r.Skipped("users", "duplicate") != 1 || r.Skipped("users", "unknown shape") != 1 {
		var b bytes.Buffer
		_ = r.Write(&b)
		t.Errorf("report:\n%s", b.String())
	}
	for i := range 30 {
		_, err := st.FetchUser(ctx, user(i).ID)
		if (err == nil) != (i != 7 && i != 9) {
			t.Errorf("user %d: %v", i, err)
		}
	}
	if _, err := st.FetchImport(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("marker after Finish: %v", err)
	}
	// A finished import leaves a target that is not empty.
	if _, err := importer.Begin(ctx, st, blobs, opt); !errors.Is(err, importer.ErrNotEmpty) {
		t.Errorf("Begin on an imported instance = %v, want ErrNotEmpty", err)
	}
}

func TestFilesDeduplicated(t *testing.T) {
	ctx := t.Context()
	st, blobs := open(t)
	var progress bytes.Buffer
	p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "test", Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	w := p.Collection("attachments", 3)
	opened := 0
	body := func(s string) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { opened++; return io.NopCloser(strings.NewReader(s)), nil }
	}
	recs := []*chat.FileRecord{{File: chat.File{ID: "a", Tag: "attachments"}}, {File: chat.File{ID: "b", Tag: "attachments"}}, {File: chat.File{ID: "c", Tag: "avatars"}}}
	for i, data := range []string{"same bytes", "same bytes", "other"} {
		if err := w.File(ctx, recs[i], body(data)); err != nil {
			t.Fatal(err)
		}
		if err := w.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if recs[0].Hash != recs[1].Hash || recs[0].Hash == recs[2].Hash || recs[0].Size != 10 {
		t.Errorf("records: %+v %+v %+v", recs[0], recs[1], recs[2])
	}
	keys, err := blobs.List(ctx, "originals/")
	if err != nil || len(keys) != 2 {
		t.Errorf("blobs = %v, %v; want two", keys, err)
	}
	// A known hash already stored spares reading the bytes.
	w = p.Collection("more", 1)
	opened = 0
	again := &chat.FileRecord{File: chat.File{ID: "d", Tag: "attachments"}, Hash: recs[0].Hash}
	if err := w.File(ctx, again, body("never read")); err != nil || opened != 0 || again.Size != 10 {
		t.Errorf("File with a stored hash: err %v, opened %d, size %d", err, opened, again.Size)
	}
	if err := w.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := st.FetchFile(ctx, "b")
	if err != nil || got.Hash != recs[0].Hash {
		t.Errorf("FetchFile(b) = %+v, %v", got, err)
	}
	o, err := blobs.Open(ctx, importer.BlobKey(got.Hash))
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if b, _ := io.ReadAll(o); string(b) != "same bytes" {
		t.Errorf("blob = %q", b)
	}
	if !strings.Contains(progress.String(), "import: attachments: done, 3 imported") {
		t.Errorf("progress lines:\n%s", progress.String())
	}
}

func TestNonEmptyTarget(t *testing.T) {
	ctx := t.Context()
	st, blobs := open(t)
	if err := st.InsertUser(ctx, user(1)); err != nil {
		t.Fatal(err)
	}
	_, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "test"})
	if !errors.Is(err, importer.ErrNotEmpty) || !strings.Contains(err.Error(), "1 users") {
		t.Fatalf("Begin on a non-empty target = %v", err)
	}
	if _, err := st.FetchImport(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("refused import left a marker: %v", err)
	}
	if err := st.InsertAccount(ctx, &chat.Account{ID: chat.NewID(), Email: "a@b.c", EmailNormalised: "a@b.c"}); err != nil {
		t.Fatal(err)
	}
	// Into: an import that adds to a living instance (Discord's).
	p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "test", Into: true})
	if err != nil {
		t.Fatalf("Begin with Into on a non-empty target = %v", err)
	}
	if _, err := p.Finish(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestPutFile stores bytes met before their record; File then finds them
// by hash without reading them again.
func TestPutFile(t *testing.T) {
	ctx := t.Context()
	st, blobs := open(t)
	p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hash, size, err := p.PutFile(ctx, "", func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("early bytes")), nil })
	if err != nil || size != 11 {
		t.Fatalf("PutFile = %s, %d, %v", hash, size, err)
	}
	if ok, _ := blobs.Exists(ctx, importer.BlobKey(hash)); !ok {
		t.Fatal("PutFile stored nothing")
	}
	w := p.Collection("files", 1)
	rec := &chat.FileRecord{File: chat.File{ID: "f1", Tag: chat.TagAttachments, Filename: "a.txt"}, Hash: hash, UploaderID: "u", UploadedAt: chat.Now()}
	if err := w.File(ctx, rec, func() (io.ReadCloser, error) { return nil, errors.New("read again") }); err != nil {
		t.Fatalf("File with a stored hash read the bytes again: %v", err)
	}
	if rec.Size != 11 {
		t.Errorf("size = %d", rec.Size)
	}
}

// TestErrorNamesDocument checks a failure that is not a duplicate names
// the collection and document, and commits nothing of its batch.
func TestErrorNamesDocument(t *testing.T) {
	ctx := t.Context()
	st, blobs := open(t)
	p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	w := p.Collection("things", 2)
	w.User(user(1))
	if err := w.Next(ctx); err != nil {
		t.Fatal(err)
	}
	w.ID("doc-2")
	w.Do(func(context.Context, store.Store) error { return errors.New("disk on fire") })
	if err := w.Next(ctx); err != nil {
		t.Fatal(err)
	}
	err = w.Close(ctx)
	if err == nil || !strings.Contains(err.Error(), "import things: document doc-2: disk on fire") {
		t.Fatalf("Close = %v", err)
	}
	mark, _ := st.FetchImport(ctx)
	if mark == nil || mark.Done["things"] != 1 {
		t.Fatalf("marker = %+v; want the document before the failure committed", mark)
	}
}
