package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"ermine/internal/blob"
	"ermine/internal/chat"
	"ermine/internal/store"
)

// ErrNotEmpty is returned by Begin when the target instance already
// holds users and no import into it is unfinished.
var ErrNotEmpty = errors.New("the target instance is not empty")

// ErrOtherImport is returned by Begin when an import of another source
// into the target is unfinished.
var ErrOtherImport = errors.New("another import into this instance is unfinished")

// DefaultBatch is how many source documents one transaction commits.
const DefaultBatch = 2000

// Options configure a Pipeline.
type Options struct {
	// Source names the reader ("revolt", "discord", "bulk"). A resumed
	// import must name the same source.
	Source string
	// Command is the command line that resumes this import; it is kept in
	// the marker and shown by a server that refuses to start.
	Command string
	// Progress receives progress: a bar per collection when Terminal is
	// set, plain lines otherwise. Nil shows nothing.
	Progress io.Writer
	// Terminal draws bars redrawn in place (Progress is a terminal).
	Terminal bool
	// Batch is how many source documents one transaction commits
	// (DefaultBatch when 0).
	Batch int
	// TempDir holds file bytes while they are hashed (os.TempDir when empty).
	TempDir string
	// Into lets the import write into an instance that holds data already
	// (a Discord import adds one server to a living instance); without it
	// Begin refuses a target that is not empty.
	Into bool
}

// Pipeline writes one import into a store and a blob store.
type Pipeline struct {
	st      store.Store
	blobs   blob.Store
	opt     Options
	state   *store.ImportState
	resumed bool
	prog    *progress
	// examples keeps a few document ids per collection and reason for
	// the report (this run only).
	examples map[string]map[string][]string
}

// Begin starts an import, or resumes the unfinished one of the same
// source. It refuses a target that holds users (ErrNotEmpty) and one with
// an unfinished import of another source (ErrOtherImport), and leaves
// the marker in the store until Finish.
func Begin(ctx context.Context, st store.Store, blobs blob.Store, opt Options) (*Pipeline, error) {
	if opt.Batch <= 0 {
		opt.Batch = DefaultBatch
	}
	p := &Pipeline{st: st, blobs: blobs, opt: opt, prog: newProgress(opt.Progress, opt.Terminal),
		examples: map[string]map[string][]string{}}
	state, err := st.FetchImport(ctx)
	switch {
	case err == nil && state.Source != opt.Source:
		return nil, fmt.Errorf("%w: an import from %s started %s; finish it with: %s", ErrOtherImport, state.Source, state.Started, state.Command)
	case err == nil:
		p.state, p.resumed = state, true
		if p.state.Done == nil {
			p.state.Done = map[string]int64{}
		}
		return p, nil
	case !errors.Is(err, store.ErrNotFound):
		return nil, fmt.Errorf("read import marker: %w", err)
	}
	n, err := st.CountObjects(ctx)
	if err != nil {
		return nil, fmt.Errorf("count objects: %w", err)
	}
	if !opt.Into && (n.Users > 0 || n.Accounts > 0 || n.Servers > 0 || n.Channels > 0 || n.Messages > 0) {
		return nil, fmt.Errorf("%w: it holds %d accounts, %d users, %d servers, %d channels and %d messages; import into a new instance (an empty --data directory or database)",
			ErrNotEmpty, n.Accounts, n.Users, n.Servers, n.Channels, n.Messages)
	}
	p.state = &store.ImportState{Source: opt.Source, Command: opt.Command, Started: chat.Now(), Done: map[string]int64{}}
	if err := st.SetImport(ctx, p.state); err != nil {
		return nil, fmt.Errorf("write import marker: %w", err)
	}
	return p, nil
}

// Resumed reports whether Begin found an unfinished import to continue.
func (p *Pipeline) Resumed() bool { return p.resumed }

// Done returns how many documents of collection earlier runs committed;
// the reader skips that many before handing documents to its Writer.
func (p *Pipeline) Done(collection string) int64 { return p.state.Done[collection] }

// Complete reports whether collection was read to its end already.
func (p *Pipeline) Complete(collection string) bool {
	return slices.Contains(p.state.Complete, collection)
}

// Store returns the target store, for a reader's lookups (such as
// whether a referenced object was imported). Writes go through a Writer.
func (p *Pipeline) Store() store.Store { return p.st }

// Finish removes the marker and returns the report. Call it after every
// collection's Writer is closed.
func (p *Pipeline) Finish(ctx context.Context) (*Report, error) {
	if err := p.st.DeleteImport(ctx); err != nil {
		return nil, fmt.Errorf("remove import marker: %w", err)
	}
	return p.Report(), nil
}

// Report returns what has been imported and skipped so far, over every run.
func (p *Pipeline) Report() *Report {
	r := &Report{Source: p.state.Source}
	names := slices.Clone(p.state.Complete)
	for name := range p.state.Done {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		c := CollectionReport{Name: name, Imported: p.state.Imported[name], Complete: p.Complete(name)}
		for reason, n := range p.state.Skipped[name] {
			c.Skipped = append(c.Skipped, Skip{Reason: reason, Count: n, Examples: p.examples[name][reason]})
		}
		slices.SortFunc(c.Skipped, func(a, b Skip) int { return int(b.Count - a.Count) })
		r.Collections = append(r.Collections, c)
	}
	return r
}

// Collection returns the Writer of a source collection. total is how many
// documents it holds, or -1 when unknown (for progress only).
func (p *Pipeline) Collection(name string, total int64) *Writer {
	w := &Writer{p: p, name: name, done: p.state.Done[name], started: time.Now()}
	p.prog.start(name, total, w.done)
	return w
}

// BlobKey is where the bytes with SHA-256 hash (hex) live in blob
// storage: the key the file server reads originals from.
func BlobKey(hash string) string { return "originals/" + hash[:2] + "/" + hash }

// PutFile copies bytes into blob storage, deduplicated like File's, and
// returns their hash and size, without a file record: for a reader that
// meets a file's bytes before the record naming them (the bulk format's
// archive holds each file's bytes ahead of its record).
func (p *Pipeline) PutFile(ctx context.Context, known string, open func() (io.ReadCloser, error)) (string, int64, error) {
	return p.putFile(ctx, known, open)
}

// putFile copies a file's bytes into blob storage unless bytes with the
// same hash are there, and returns their hash and size. The bytes pass
// through a temporary file while hashed, so memory stays bounded.
func (p *Pipeline) putFile(ctx context.Context, known string, open func() (io.ReadCloser, error)) (string, int64, error) {
	if validHash(known) {
		key := BlobKey(known)
		if ok, err := p.blobs.Exists(ctx, key); err != nil {
			return "", 0, fmt.Errorf("blob exists %s: %w", key, err)
		} else if ok {
			if o, err := p.blobs.Open(ctx, key); err == nil {
				size := o.Size()
				o.Close()
				return known, size, nil
			}
		}
	}
	r, err := open()
	if err != nil {
		return "", 0, err
	}
	defer r.Close()
	tmp, err := os.CreateTemp(p.opt.TempDir, "ermine-import-*")
	if err != nil {
		return "", 0, err
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	h := sha256.New()
	size, err := io.Copy(io.MultiWriter(tmp, h), r)
	if err != nil {
		return "", 0, err
	}
	hash := hex.EncodeToString(h.Sum(nil))
	key := BlobKey(hash)
	if ok, err := p.blobs.Exists(ctx, key); err != nil {
		return "", 0, fmt.Errorf("blob exists %s: %w", key, err)
	} else if ok {
		return hash, size, nil
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", 0, err
	}
	if err := p.blobs.Put(ctx, key, tmp, size); err != nil {
		return "", 0, fmt.Errorf("blob put %s: %w", key, err)
	}
	return hash, size, nil
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
