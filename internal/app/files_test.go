package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"ermine/internal/blob"
	"ermine/internal/blob/disk"
	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

// fileApp is an App over a fresh SQLite store and disk blobs with a
// clock the test moves.
type fileApp struct {
	*App
	blobs blob.Store
	mu    sync.Mutex
	clock time.Time
}

func newFileApp(t *testing.T) *fileApp {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, "ermine.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	bl, err := disk.Open(filepath.Join(dir, "files"))
	if err != nil {
		t.Fatal(err)
	}
	fa := &fileApp{blobs: bl, clock: time.Now()}
	fa.App = New(Deps{Store: st, Blobs: bl, Settings: Settings{Limits: DefaultLimits()}, Now: func() time.Time {
		fa.mu.Lock()
		defer fa.mu.Unlock()
		return fa.clock
	}})
	return fa
}

func (fa *fileApp) advance(d time.Duration) {
	fa.mu.Lock()
	fa.clock = fa.clock.Add(d)
	fa.mu.Unlock()
}

// prepared counts the calls of Prepare for bytes.
type prepared struct {
	calls int
	meta  chat.Metadata
	ctype string
}

func (fa *fileApp) upload(t *testing.T, tag string, data []byte, p *prepared) (*chat.File, error) {
	t.Helper()
	sum := sha256.Sum256(data)
	c := &Caller{User: &chat.User{ID: chat.NewID()}}
	return fa.UploadFile(context.Background(), c, Upload{Tag: tag, Filename: "f.bin", Size: int64(len(data)),
		Hash: hex.EncodeToString(sum[:]), Prepare: func(context.Context) (*Prepared, error) {
			p.calls++
			return &Prepared{ContentType: p.ctype, Metadata: p.meta, Body: bytes.NewReader(data), Size: int64(len(data))}, nil
		}})
}

func imageMeta() chat.Metadata {
	w, h := 10, 20
	return chat.Metadata{Type: chat.MetadataImage, Width: &w, Height: &h}
}

func TestUploadFileRules(t *testing.T) {
	fa := newFileApp(t)
	img := &prepared{meta: imageMeta(), ctype: "image/png"}
	text := &prepared{meta: chat.Metadata{Type: chat.MetadataText}, ctype: "text/plain"}
	tests := []struct {
		name string
		tag  string
		data []byte
		p    *prepared
		err  error
	}{
		{"unknown tag", "secrets", []byte("x"), img, chat.ErrNotFound},
		{"empty", "attachments", nil, img, chat.ErrFileTooSmall},
		{"too large", "emojis", make([]byte, 500_001), img, chat.ErrFileTooLarge(500_000)},
		{"text avatar", "avatars", []byte("hello"), text, chat.ErrFileTypeNotAllowed},
		{"text attachment", "attachments", []byte("hello"), text, nil},
		{"image emoji", "emojis", []byte("pretend png"), img, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := fa.upload(t, tc.tag, tc.data, tc.p)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if tc.tag == chat.TagEmojis && !chat.ID(f.ID).Valid() {
				t.Fatalf("emoji file id %q is not a ULID", f.ID)
			}
			if tc.tag != chat.TagEmojis && len(f.ID) != 42 {
				t.Fatalf("file id %q is not 42 characters", f.ID)
			}
		})
	}
	var fe *chat.Error
	if _, err := fa.upload(t, "emojis", make([]byte, 500_001), img); !errors.As(err, &fe) || fe.Fields["max"] != int64(500_000) {
		t.Fatalf("FileTooLarge = %v", err)
	}
	// A refused text avatar stored nothing.
	keys, err := fa.blobs.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 {
		t.Fatalf("blobs %v, want the text attachment and the emoji", keys)
	}
}

func TestUploadDeduplicates(t *testing.T) {
	fa := newFileApp(t)
	p := &prepared{meta: imageMeta(), ctype: "image/png"}
	a, err := fa.upload(t, "attachments", []byte("same bytes"), p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fa.upload(t, "avatars", []byte("same bytes"), p)
	if err != nil {
		t.Fatal(err)
	}
	if p.calls != 1 {
		t.Fatalf("Prepare called %d times for the same bytes", p.calls)
	}
	if a.ID == b.ID || b.ContentType != "image/png" || *b.Metadata.Height != 20 || b.Size != a.Size {
		t.Fatalf("second upload %+v", b)
	}
	// Stored metadata decides for the second upload too: text bytes
	// already stored as an attachment cannot become an avatar.
	text := &prepared{meta: chat.Metadata{Type: chat.MetadataText}, ctype: "text/plain"}
	if _, err := fa.upload(t, "attachments", []byte("notes"), text); err != nil {
		t.Fatal(err)
	}
	if _, err := fa.upload(t, "avatars", []byte("notes"), text); !errors.Is(err, chat.ErrFileTypeNotAllowed) {
		t.Fatalf("deduplicated text avatar: %v", err)
	}
}

// TestUseAndDropFile checks the use-once rule with the helpers routes
// call, and that serving follows it.
func TestUseAndDropFile(t *testing.T) {
	fa := newFileApp(t)
	ctx := context.Background()
	p := &prepared{meta: imageMeta(), ctype: "image/png"}
	f, err := fa.upload(t, "avatars", []byte("avatar"), p)
	if err != nil {
		t.Fatal(err)
	}
	use := func(id, tag string) (*chat.File, error) {
		var out *chat.File
		err := fa.store.InTx(ctx, func(tx store.Store) error {
			var err error
			out, err = useFile(ctx, tx, id, tag, fileUseAvatar, chat.NewID())
			return err
		})
		return out, err
	}
	if _, err := fa.ServedFile(ctx, "avatars", f.ID); !errors.Is(err, chat.ErrNotFound) {
		t.Fatalf("unused file served: %v", err)
	}
	tests := []struct {
		name   string
		id     string
		tag    string
		wantOK bool
	}{
		{"unknown", "nope", "avatars", false},
		{"wrong tag", f.ID, "icons", false},
		{"first use", f.ID, "avatars", true},
		{"used twice", f.ID, "avatars", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := use(tc.id, tc.tag)
			if tc.wantOK {
				if err != nil || got.ID != f.ID {
					t.Fatalf("useFile = %v, %v", got, err)
				}
				return
			}
			if !errors.Is(err, chat.ErrNotFound) {
				t.Fatalf("useFile = %v, want NotFound", err)
			}
		})
	}
	if _, err := fa.ServedFile(ctx, "avatars", f.ID); err != nil {
		t.Fatalf("used file not served: %v", err)
	}
	if _, err := fa.ServedFile(ctx, "icons", f.ID); !errors.Is(err, chat.ErrNotFound) {
		t.Fatalf("served under another tag: %v", err)
	}
	release := func(id string) error {
		return fa.store.InTx(ctx, func(tx store.Store) error { return dropFile(ctx, tx, &chat.File{ID: id}) })
	}
	if err := release(f.ID); err != nil {
		t.Fatal(err)
	}
	if err := release(f.ID); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if err := release("never-existed"); err != nil {
		t.Fatalf("releasing an unknown file: %v", err)
	}
	if _, err := fa.ServedFile(ctx, "avatars", f.ID); !errors.Is(err, chat.ErrNotFound) {
		t.Fatalf("released file served: %v", err)
	}
	if _, err := use(f.ID, "avatars"); !errors.Is(err, chat.ErrNotFound) {
		t.Fatalf("released file used: %v", err)
	}
	// A transaction that fails leaves the file unused.
	g, err := fa.upload(t, "avatars", []byte("second"), p)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = fa.store.InTx(ctx, func(tx store.Store) error {
		if _, err := useFile(ctx, tx, g.ID, "avatars", fileUseAvatar, chat.NewID()); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, err := use(g.ID, "avatars"); err != nil {
		t.Fatalf("file used by a rolled-back transaction: %v", err)
	}
}

func TestSweepFiles(t *testing.T) {
	fa := newFileApp(t)
	ctx := context.Background()
	p := &prepared{meta: imageMeta(), ctype: "image/png"}
	unused, _ := fa.upload(t, "attachments", []byte("shared"), p)
	used, _ := fa.upload(t, "attachments", []byte("shared"), p)
	released, _ := fa.upload(t, "attachments", []byte("released"), p)
	reported, _ := fa.upload(t, "attachments", []byte("reported"), p)
	for _, id := range []string{used.ID, released.ID, reported.ID} {
		err := fa.store.InTx(ctx, func(tx store.Store) error {
			_, err := useFile(ctx, tx, id, "attachments", "message", chat.NewID())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{released.ID, reported.ID} {
		if err := fa.store.InTx(ctx, func(tx store.Store) error { return dropFile(ctx, tx, &chat.File{ID: id}) }); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := fa.store.FetchFile(ctx, reported.ID)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	rec.Reported = &yes
	if err := fa.store.UpdateFile(ctx, rec); err != nil {
		t.Fatal(err)
	}
	// A preview of the released file, to see it removed with its bytes.
	relRec, _ := fa.store.FetchFile(ctx, released.ID)
	if err := fa.blobs.Put(ctx, previewKey(relRec.Hash, "1x1-png"), bytes.NewReader([]byte("p")), 1); err != nil {
		t.Fatal(err)
	}

	// Before the TTL only the released file goes.
	n, err := fa.SweepFiles(ctx)
	if err != nil || n != 1 {
		t.Fatalf("first sweep removed %d, %v; want the released file", n, err)
	}
	if ok, _ := fa.blobs.Exists(ctx, originalKey(relRec.Hash)); ok {
		t.Fatal("bytes of the released file kept")
	}
	if keys, _ := fa.blobs.List(ctx, previewPrefix(relRec.Hash)); len(keys) != 0 {
		t.Fatalf("previews of the released file kept: %v", keys)
	}
	fa.advance(61 * time.Minute)
	n, err = fa.SweepFiles(ctx)
	if err != nil || n != 1 {
		t.Fatalf("second sweep removed %d, %v; want the unused file", n, err)
	}
	for id, want := range map[string]bool{unused.ID: false, used.ID: true, released.ID: false, reported.ID: true} {
		_, err := fa.store.FetchFile(ctx, id)
		if got := err == nil; got != want {
			t.Errorf("record %s kept = %v, want %v", id, got, want)
		}
	}
	usedRec, _ := fa.store.FetchFile(ctx, used.ID)
	if ok, _ := fa.blobs.Exists(ctx, originalKey(usedRec.Hash)); !ok {
		t.Fatal("bytes shared with a used file were removed")
	}
	o, err := fa.OpenFile(ctx, usedRec)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(o)
	_ = o.Close()
	if string(b) != "shared" {
		t.Fatalf("stored bytes %q", b)
	}
}

func TestFilePreviewRendersOnce(t *testing.T) {
	fa := newFileApp(t)
	ctx := context.Background()
	p := &prepared{meta: imageMeta(), ctype: "image/png"}
	f, _ := fa.upload(t, "attachments", []byte("picture"), p)
	rec, _ := fa.store.FetchFile(ctx, f.ID)
	var mu sync.Mutex
	renders := 0
	render := func(src io.ReadSeeker) ([]byte, error) {
		b, err := io.ReadAll(src)
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		renders++
		mu.Unlock()
		return append([]byte("preview of "), b...), err
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			o, err := fa.FilePreview(ctx, rec, "10x20-auto", render)
			if err != nil {
				t.Error(err)
				return
			}
			defer o.Close()
			b, _ := io.ReadAll(o)
			if string(b) != "preview of picture" {
				t.Errorf("preview %q", b)
			}
		})
	}
	wg.Wait()
	o, err := fa.FilePreview(ctx, rec, "10x20-auto", render)
	if err != nil {
		t.Fatal(err)
	}
	_ = o.Close()
	if renders != 1 {
		t.Fatalf("rendered %d times", renders)
	}
	if _, err := fa.FilePreview(ctx, rec, "../escape", render); err == nil {
		t.Fatal("a variant with a slash was accepted")
	}
}

func TestCleanFilename(t *testing.T) {
	long := string(bytes.Repeat([]byte("é"), 100))
	tests := map[string]string{
		"photo.jpg":         "photo.jpg",
		"":                  "unnamed-file",
		"  ":                "unnamed-file",
		"..":                "unnamed-file",
		"a/b\\c?d#e%f.txt":  "a_b_c_d_e_f.txt",
		"tab\there\x00.txt": "tab_here_.txt",
		"naïve résumé.pdf":  "naïve résumé.pdf",
		long:                string(bytes.Repeat([]byte("é"), 64)),
	}
	for in, want := range tests {
		if got := cleanFilename(in); got != want {
			t.Errorf("cleanFilename(%q) = %q, want %q", in, got, want)
		}
	}
}
