package bulk

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/importer"
	"ermine/internal/store"
)

// ErrNotExport is returned for input that is not a bulk export: no
// header first, a line that is not a record, or a stream that ends
// without its End record (a truncated export).
var ErrNotExport = errors.New("not an Ermine bulk export")

// maxLine bounds one record's line.
const maxLine = 64 << 20

// Import reads the export at path (a tar archive, gzip'd or not, or a
// directory, as Export writes them) into the pipeline, streaming. Each
// record type is a collection of the pipeline, read in the stream's
// order, so an interrupted import resumes where it stopped. It returns
// the header.
func Import(ctx context.Context, p *importer.Pipeline, path string) (*Header, error) {
	r := &reader{ctx: ctx, p: p, writers: map[string]*importer.Writer{}, seen: map[string]int64{}}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		err = r.readDir(path)
	} else {
		err = r.readArchive(path)
	}
	if err != nil {
		return r.header, err
	}
	if r.end == nil {
		return r.header, fmt.Errorf("%w: it ends without its End record (truncated?)", ErrNotExport)
	}
	for typ, n := range r.end.Counts {
		if r.seen[typ] != n {
			return r.header, fmt.Errorf("%w: it holds %d %s records where its End record counts %d (truncated?)", ErrNotExport, r.seen[typ], typ, n)
		}
	}
	names := make([]string, 0, len(r.writers))
	for name := range r.writers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := r.writers[name].Close(ctx); err != nil {
			return r.header, err
		}
	}
	return r.header, nil
}

type reader struct {
	ctx     context.Context
	p       *importer.Pipeline
	header  *Header
	end     *End
	line    int64
	writers map[string]*importer.Writer
	seen    map[string]int64 // records of each type read
	// file opens the bytes of a file by hash (a directory export); nil
	// for an archive, whose bytes were stored as they came.
	file func(hash string) (io.ReadCloser, error)
}

func (r *reader) readDir(dir string) error {
	r.file = func(hash string) (io.ReadCloser, error) {
		if !validHash(hash) {
			return nil, errNoBytes
		}
		return os.Open(filepath.Join(dir, FilesDir, hash))
	}
	chunks, err := filepath.Glob(filepath.Join(dir, RecordsDir, "*.jsonl"))
	if err != nil {
		return err
	}
	if len(chunks) == 0 {
		return fmt.Errorf("%w: %s has no %s/*.jsonl", ErrNotExport, dir, RecordsDir)
	}
	slices.Sort(chunks)
	for _, c := range chunks {
		f, err := os.Open(c)
		if err != nil {
			return err
		}
		err = r.records(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) readArchive(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrNotExport, err)
		}
		defer gz.Close()
		in = gz
	}
	tr := tar.NewReader(in)
	entries := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: archive: %v", ErrNotExport, err)
		}
		entries++
		switch dir, base := path.Split(hdr.Name); dir {
		case FilesDir + "/":
			if !validHash(base) {
				return fmt.Errorf("%w: archive entry %s is not named by a SHA-256", ErrNotExport, hdr.Name)
			}
			// Stored now: the record naming these bytes comes later.
			hash, _, err := r.p.PutFile(r.ctx, base, func() (io.ReadCloser, error) { return io.NopCloser(tr), nil })
			if err != nil {
				return fmt.Errorf("archive entry %s: %w", hdr.Name, err)
			}
			if hash != base {
				return fmt.Errorf("%w: archive entry %s holds bytes whose SHA-256 is %s", ErrNotExport, hdr.Name, hash)
			}
		case RecordsDir + "/":
			if err := r.records(tr); err != nil {
				return err
			}
		}
	}
	if entries == 0 {
		return fmt.Errorf("%w: the archive is empty", ErrNotExport)
	}
	return nil
}

// records reads one chunk of the record stream.
func (r *reader) records(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	for sc.Scan() {
		r.line++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil || rec.Type == "" {
			return fmt.Errorf("%w: record %d is not {\"type\":...,\"object\":...}", ErrNotExport, r.line)
		}
		if err := r.record(&rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: record %d: %v", ErrNotExport, r.line+1, err)
	}
	return nil
}

// decode reads a record's object into a new T.
func decode[T any](r *reader, rec *Record) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(rec.Object, v); err != nil {
		return nil, fmt.Errorf("%w: record %d (%s): %v", ErrNotExport, r.line, rec.Type, err)
	}
	return v, nil
}

// collections maps record types to the pipeline's collection names.
var collections = map[string]string{
	TypeAccount: "accounts", TypeUser: "users", TypeSession: "sessions", TypeRelationship: "relationships",
	TypeSettings: "settings", TypeBot: "bots", TypeServer: "servers", TypeChannel: "channels",
	TypeMember: "members", TypeBan: "bans", TypeEmoji: "emojis", TypeInvite: "invites", TypeWebhook: "webhooks",
	TypeFile: "files", TypeMessage: "messages", TypeUnread: "unreads", TypeAuditLogEntry: "audit_log",
	TypeReport: "reports", TypePolicyChange: "policy_changes", TypeRegistrationInvite: "registration_invites",
}

// record hands one record to its collection's Writer.
func (r *reader) record(rec *Record) error {
	switch rec.Type {
	case TypeHeader:
		if r.header != nil {
			return fmt.Errorf("%w: a second Header at record %d", ErrNotExport, r.line)
		}
		h, err := decode[Header](r, rec)
		if err != nil {
			return err
		}
		if h.Version < 1 || h.Version > Version {
			return fmt.Errorf("the export is format version %d; this Ermine reads versions 1 to %d: upgrade Ermine to import it", h.Version, Version)
		}
		r.header = h
		return nil
	case TypeEnd:
		e, err := decode[End](r, rec)
		if err != nil {
			return err
		}
		r.end = e
		return nil
	}
	if r.header == nil {
		return fmt.Errorf("%w: the first record is %s, not a Header", ErrNotExport, rec.Type)
	}
	if r.end != nil {
		return fmt.Errorf("%w: record %d follows the End record", ErrNotExport, r.line)
	}
	name, ok := collections[rec.Type]
	if !ok {
		return fmt.Errorf("%w: record %d has the unknown type %q for format version %d", ErrNotExport, r.line, rec.Type, r.header.Version)
	}
	r.seen[rec.Type]++
	if r.p.Complete(name) || r.seen[rec.Type] <= r.p.Done(name) {
		return nil // committed by an earlier run
	}
	w := r.writers[name]
	if w == nil {
		w = r.p.Collection(name, -1)
		r.writers[name] = w
	}
	if err := r.queue(w, rec); err != nil {
		return err
	}
	return w.Next(r.ctx)
}

// queue decodes a record and queues its writes.
func (r *reader) queue(w *importer.Writer, rec *Record) error {
	switch rec.Type {
	case TypeAccount:
		return put(r, rec, w, func(v *chat.Account) string { w.Account(v); return string(v.ID) })
	case TypeUser:
		return put(r, rec, w, func(v *chat.UserDoc) string {
			u := v.User()
			if r.header.Scope == ScopeServer && u.Bot == nil {
				// A server alone brings no accounts: its people arrive as
				// authors without a login, to be claimed.
				u.Flags |= chat.UserFlagImported
			}
			w.User(u)
			return string(v.ID)
		})
	case TypeSession:
		return put(r, rec, w, func(v *chat.Session) string { w.Session(v); return string(v.ID) })
	case TypeRelationship:
		return put(r, rec, w, func(v *Relationship) string {
			w.Relationship(v.User, v.Other, v.Status)
			return string(v.User) + "/" + string(v.Other)
		})
	case TypeSettings:
		return put(r, rec, w, func(v *Settings) string { w.Settings(v.User, v.Settings); return string(v.User) })
	case TypeBot:
		return put(r, rec, w, func(v *chat.Bot) string { w.Bot(v); return string(v.ID) })
	case TypeServer:
		return put(r, rec, w, func(v *chat.Server) string { w.Server(v); return string(v.ID) })
	case TypeChannel:
		return put(r, rec, w, func(v *chat.Channel) string { w.Channel(v); return string(v.ID) })
	case TypeMember:
		return put(r, rec, w, func(v *chat.Member) string { w.Member(v); return string(v.ID.Server) + "/" + string(v.ID.User) })
	case TypeBan:
		return put(r, rec, w, func(v *chat.ServerBan) string { w.Ban(v); return string(v.ID.Server) + "/" + string(v.ID.User) })
	case TypeEmoji:
		return put(r, rec, w, func(v *chat.Emoji) string { w.Emoji(v); return string(v.ID) })
	case TypeInvite:
		return put(r, rec, w, func(v *chat.Invite) string { w.Invite(v); return v.Code })
	case TypeWebhook:
		return put(r, rec, w, func(v *chat.Webhook) string { w.Webhook(v); return string(v.ID) })
	case TypeMessage:
		return put(r, rec, w, func(v *Message) string {
			if v.Message == nil {
				v.Message = &chat.Message{}
			}
			v.Message.AuthorBot = v.AuthorBot
			w.Message(v.Message)
			return string(v.ID)
		})
	case TypeUnread:
		return put(r, rec, w, func(v *chat.ChannelUnread) string {
			w.Unread(v)
			return string(v.ID.Channel) + "/" + string(v.ID.User)
		})
	case TypeAuditLogEntry:
		return put(r, rec, w, func(v *chat.AuditLogEntry) string { w.AuditLog(v); return string(v.ID) })
	case TypeReport:
		return put(r, rec, w, func(v *chat.Report) string { w.Report(v); return string(v.ID) })
	case TypePolicyChange:
		return put(r, rec, w, func(v *chat.PolicyChange) string { w.PolicyChange(v); return v.CreatedTime.String() })
	case TypeRegistrationInvite:
		return put(r, rec, w, func(v *chat.RegistrationInvite) string { w.RegistrationInvite(v); return v.Code })
	case TypeFile:
		f, err := decode[chat.FileRecord](r, rec)
		if err != nil {
			return err
		}
		w.ID(f.ID)
		return r.putFile(w, f)
	}
	return nil
}

// put decodes a record and queues it with fn, which returns its id.
func put[T any](r *reader, rec *Record, w *importer.Writer, fn func(*T) string) error {
	v, err := decode[T](r, rec)
	if err != nil {
		return err
	}
	w.ID(fn(v))
	return nil
}

// putFile queues a file record, its bytes copied into blob storage. A
// record whose bytes the export does not hold (they were released on the
// exporting instance) is written as it is.
func (r *reader) putFile(w *importer.Writer, f *chat.FileRecord) error {
	want, size := f.Hash, f.Size
	open := func() (io.ReadCloser, error) {
		if r.file == nil {
			return nil, errNoBytes
		}
		return r.file(want)
	}
	err := w.File(r.ctx, f, open)
	switch {
	case err == nil:
		if want != "" && f.Hash != want {
			return fmt.Errorf("%w: file %s: its bytes have SHA-256 %s, its record says %s", ErrNotExport, f.ID, f.Hash, want)
		}
		return nil
	case errors.Is(err, errNoBytes) || errors.Is(err, os.ErrNotExist):
		f.Hash, f.Size = want, size
		w.Do(func(ctx context.Context, s store.Store) error { return s.InsertFile(ctx, f) })
		return nil
	}
	return err
}

var errNoBytes = errors.New("the export holds no bytes for it")

func validHash(h string) bool {
	return len(h) == 64 && strings.Trim(h, "0123456789abcdef") == ""
}
