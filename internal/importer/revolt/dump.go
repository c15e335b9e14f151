package revolt

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Database is the name mongodump gives the reference's database directory.
const Database = "revolt"

// maxDocument bounds one BSON document (MongoDB's limit is 16 MiB).
const maxDocument = 17 << 20

// Dump is a mongodump of the reference's database: a directory of
// <collection>.bson files (optionally .bson.gz), or an archive split into
// such files.
type Dump struct {
	dir     string
	cleanup func()
}

// OpenDump opens what mongodump wrote at path: a directory holding
// revolt/<collection>.bson or the collection files themselves, or a file
// written with --archive (optionally gzipped, as --gzip does), which is
// split into per-collection files under tmp first.
func OpenDump(path, tmp string) (*Dump, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("dump: %w", err)
	}
	if fi.IsDir() {
		dir := path
		if st, err := os.Stat(filepath.Join(path, Database)); err == nil && st.IsDir() {
			dir = filepath.Join(path, Database)
		}
		d := &Dump{dir: dir, cleanup: func() {}}
		if !d.Has("migrations") && !d.Has("users") {
			return nil, fmt.Errorf("dump: %s holds neither %s/ nor migrations.bson and users.bson: not a mongodump of the %q database", path, Database, Database)
		}
		return d, nil
	}
	dir, err := os.MkdirTemp(tmp, "ermine-revolt-archive-*")
	if err != nil {
		return nil, err
	}
	if err := splitArchive(path, dir); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("dump archive %s: %w", path, err)
	}
	return &Dump{dir: dir, cleanup: func() { os.RemoveAll(dir) }}, nil
}

// Close removes what OpenDump unpacked.
func (d *Dump) Close() error {
	d.cleanup()
	return nil
}

func (d *Dump) file(coll string) string {
	for _, name := range []string{coll + ".bson", coll + ".bson.gz"} {
		p := filepath.Join(d.dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Has reports whether the dump holds collection coll.
func (d *Dump) Has(coll string) bool { return d.file(coll) != "" }

// Count returns how many documents coll holds, -1 when that would need
// decompressing it.
func (d *Dump) Count(coll string) int64 {
	p := d.file(coll)
	if p == "" {
		return 0
	}
	if strings.HasSuffix(p, ".gz") {
		return -1
	}
	f, err := os.Open(p)
	if err != nil {
		return -1
	}
	defer f.Close()
	var n int64
	var size [4]byte
	for {
		if _, err := io.ReadFull(f, size[:]); err != nil {
			return n
		}
		l := int64(binary.LittleEndian.Uint32(size[:]))
		if l < 5 {
			return n
		}
		if _, err := f.Seek(l-4, io.SeekCurrent); err != nil {
			return n
		}
		n++
	}
}

// DocumentError is a document that cannot be read, named by collection,
// position and id when known.
type DocumentError struct {
	Collection string
	Index      int64  // 0-based position in the collection
	ID         string // the document's _id, or of the one before it
	Err        error
}

func (e *DocumentError) Error() string {
	id := e.ID
	if id == "" {
		id = "(unknown id)"
	}
	return fmt.Sprintf("collection %s, document %d %s: %v", e.Collection, e.Index, id, e.Err)
}

func (e *DocumentError) Unwrap() error { return e.Err }

// ErrTruncated is a collection file that ends inside a document.
var ErrTruncated = errors.New("file ends inside a document: the dump is truncated (run mongodump again)")

// Each calls fn with every document of coll in file order, after skipping
// the first skip. The document's bytes are valid only during the call.
func (d *Dump) Each(coll string, skip int64, fn func(doc bson.Raw) error) error {
	p := d.file(coll)
	if p == "" {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(p, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return &DocumentError{Collection: coll, Err: err}
		}
		defer z.Close()
		r = z
	}
	return readDocs(bufio.NewReaderSize(r, 1<<20), coll, skip, fn)
}

// readDocs reads BSON documents from r until EOF.
func readDocs(r io.Reader, coll string, skip int64, fn func(bson.Raw) error) error {
	buf := make([]byte, 0, 64<<10)
	var prev string
	for i := int64(0); ; i++ {
		doc, err := readDoc(r, buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &DocumentError{Collection: coll, Index: i, ID: after(prev), Err: err}
		}
		buf = doc[:0]
		if i < skip {
			continue
		}
		if err := doc.Validate(); err != nil {
			return &DocumentError{Collection: coll, Index: i, ID: docID(doc), Err: fmt.Errorf("malformed BSON: %w", err)}
		}
		prev = docID(doc)
		if err := fn(doc); err != nil {
			return err
		}
	}
}

func after(id string) string {
	if id == "" {
		return ""
	}
	return "after " + id
}

// readDoc reads one length-prefixed BSON document into buf; io.EOF at a
// clean end, ErrTruncated inside a document.
func readDoc(r io.Reader, buf []byte) (bson.Raw, error) {
	var size [4]byte
	n, err := io.ReadFull(r, size[:])
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		_ = n
		return nil, ErrTruncated
	}
	l := int(int32(binary.LittleEndian.Uint32(size[:])))
	if l < 5 || l > maxDocument {
		return nil, fmt.Errorf("document length %d is impossible: not a BSON file, or corrupted", l)
	}
	if cap(buf) < l {
		buf = make([]byte, l)
	}
	buf = buf[:l]
	copy(buf, size[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		return nil, ErrTruncated
	}
	return bson.Raw(buf), nil
}

// docID returns a document's _id as text, or "".
func docID(doc bson.Raw) string {
	v, err := doc.LookupErr("_id")
	if err != nil {
		return ""
	}
	switch v.Type {
	case bson.TypeString:
		return v.StringValue()
	case bson.TypeEmbeddedDocument, bson.TypeInt32, bson.TypeInt64, bson.TypeObjectID:
		b, _ := valueJSON(nil, v, false)
		return string(b)
	}
	return v.String()
}

// archiveMagic starts every mongodump --archive.
const archiveMagic = 0x8199e26d

// splitArchive writes each collection of the reference's database in the
// archive at path to dir/<collection>.bson. The archive is a magic
// number, a prelude (a header document and a metadata document per
// collection, ended by a -1 terminator), then blocks of documents, each
// led by a namespace header {db, collection, EOF} and ended by -1.
func splitArchive(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader = br
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return err
		}
		defer z.Close()
		r = bufio.NewReaderSize(z, 1<<20)
	}
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil || binary.LittleEndian.Uint32(magic[:]) != archiveMagic {
		return errors.New("not a mongodump archive (no archive magic number)")
	}
	buf := make([]byte, 0, 64<<10)
	// Prelude: documents until the terminator.
	for {
		doc, term, err := readArchiveDoc(r, buf)
		if err != nil {
			return fmt.Errorf("prelude: %w", err)
		}
		if term {
			break
		}
		buf = doc[:0]
	}
	out := map[string]*bufio.Writer{}
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var db, coll string
	inBlock := false
	var n int64
	for {
		doc, term, err := readArchiveDoc(r, buf)
		if err == io.EOF && !inBlock {
			break
		}
		if err == io.EOF {
			err = ErrTruncated
		}
		if err != nil {
			return &DocumentError{Collection: coll, Index: n, Err: err}
		}
		if term {
			inBlock = false
			continue
		}
		buf = doc[:0]
		if !inBlock {
			if err := doc.Validate(); err != nil {
				return fmt.Errorf("namespace header: %w", err)
			}
			db, _ = doc.Lookup("db").StringValueOK()
			coll, _ = doc.Lookup("collection").StringValueOK()
			inBlock = true
			continue
		}
		if db != Database && db != "" && !strings.EqualFold(db, Database) {
			continue
		}
		w := out[coll]
		if w == nil {
			if strings.ContainsAny(coll, `/\`) || coll == "" || strings.HasPrefix(coll, ".") {
				return fmt.Errorf("collection name %q is not a plain name", coll)
			}
			f, err := os.Create(filepath.Join(dir, coll+".bson"))
			if err != nil {
				return err
			}
			files[coll] = f
			w = bufio.NewWriterSize(f, 1<<20)
			out[coll] = w
		}
		if _, err := w.Write(doc); err != nil {
			return err
		}
		n++
	}
	for _, w := range out {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// readArchiveDoc reads a document or the -1 terminator of an archive.
func readArchiveDoc(r io.Reader, buf []byte) (bson.Raw, bool, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		if err == io.EOF {
			return nil, false, io.EOF
		}
		return nil, false, ErrTruncated
	}
	if bytes.Equal(size[:], []byte{0xff, 0xff, 0xff, 0xff}) {
		return nil, true, nil
	}
	l := int(int32(binary.LittleEndian.Uint32(size[:])))
	if l < 5 || l > maxDocument {
		return nil, false, fmt.Errorf("document length %d is impossible: corrupted archive", l)
	}
	if cap(buf) < l {
		buf = make([]byte, l)
	}
	buf = buf[:l]
	copy(buf, size[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		return nil, false, ErrTruncated
	}
	return bson.Raw(buf), false, nil
}
