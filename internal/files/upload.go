package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/ratelimit"
)

// Upload rate limit (behaviour.md §6): per user and tag, in the shared
// fixed windows.
const (
	uploadBucket = "upload"
	uploadLimit  = 10
)

// multipartSlack is what a body may hold beyond the file itself: part
// headers, boundaries and small extra fields.
const multipartSlack = 64 << 10

// upload handles POST /{tag}: authenticate, count against the upload
// limit, stream the field "file" to a temporary file (hashing it on the
// way and stopping at the tag's limit), then hand it to the app, which
// asks for it to be inspected only if the bytes are new.
func (s *Service) upload(w http.ResponseWriter, r *http.Request) error {
	tag := r.PathValue("tag")
	limit, err := s.app.FileLimit(tag)
	if err != nil {
		return err
	}
	c, err := s.app.Authenticate(r.Context(), r.Header.Get("X-Session-Token"), r.Header.Get("X-Bot-Token"))
	if err != nil {
		return err
	}
	if !s.rateLimit(w, r, c, tag) {
		return nil
	}
	if r.ContentLength > limit+multipartSlack {
		return chat.ErrFileTooLarge(limit)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit+multipartSlack)

	sp, err := s.spool(r, limit)
	if sp != nil {
		defer sp.remove()
	}
	if err != nil {
		return err
	}
	f, err := s.app.UploadFile(r.Context(), c, app.Upload{
		Tag: tag, Filename: sp.name, Size: sp.size, Hash: sp.hash,
		Prepare: func(ctx context.Context) (*app.Prepared, error) { return s.prepare(ctx, sp) },
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": f.ID})
	return nil
}

// rateLimit counts the upload and writes the rate-limit headers; it
// reports false after answering 429.
func (s *Service) rateLimit(w http.ResponseWriter, r *http.Request, c *app.Caller, tag string) bool {
	if s.limiter == nil {
		return true
	}
	key := ratelimit.Key("user:"+string(c.ID()), uploadBucket, tag)
	res, err := s.limiter.Take(r.Context(), key, uploadLimit, ratelimit.Window)
	if err != nil {
		// A limiter that cannot be reached must not stop uploads.
		s.log.ErrorContext(r.Context(), "rate limiter", "err", err)
		return true
	}
	return ratelimit.Answer(w, key, res)
}

// spooled is an upload body kept in a temporary file.
type spooled struct {
	file  *os.File
	name  string // the client's file name
	size  int64
	hash  string     // SHA-256, hex
	extra []*os.File // processed copies
}

// remove closes and deletes the temporary files.
func (sp *spooled) remove() {
	_ = sp.file.Close()
	_ = os.Remove(sp.file.Name())
	for _, f := range sp.extra {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
}

// errBadMultipart is the answer to a body that is not a well-formed
// multipart form.
func errBadMultipart(why string) *chat.Error {
	return chat.ErrFailedValidation("multipart/form-data body with one field named file expected: " + why)
}

// spool reads the multipart body and writes the part named "file" to a
// temporary file. Other fields are read and dropped. It fails with
// FailedValidation for a body that is not multipart, is cut short, has no
// "file" field or has two, and with FileTooLarge as soon as the file
// passes limit bytes. The returned spooled, when not nil, must be removed
// by the caller, on error too.
func (s *Service) spool(r *http.Request, limit int64) (*spooled, error) {
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" || params["boundary"] == "" {
		return nil, errBadMultipart("no multipart/form-data content type with a boundary")
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var sp *spooled
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sp, s.bodyError(err, limit, "malformed or truncated body")
		}
		if part.FormName() != "file" {
			if _, err := io.Copy(io.Discard, part); err != nil {
				return sp, s.bodyError(err, limit, "truncated body")
			}
			continue
		}
		if sp != nil {
			return sp, errBadMultipart("more than one field named file")
		}
		tmp, err := os.CreateTemp(s.tempDir, "ermine-upload-*")
		if err != nil {
			return nil, fmt.Errorf("spool upload: %w", err)
		}
		sp = &spooled{file: tmp, name: part.FileName()}
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(part, limit+1))
		if err != nil {
			return sp, s.bodyError(err, limit, "truncated body")
		}
		if n > limit {
			return sp, chat.ErrFileTooLarge(limit)
		}
		sp.size, sp.hash = n, hex.EncodeToString(h.Sum(nil))
	}
	if sp == nil {
		return nil, errBadMultipart("no field named file")
	}
	return sp, nil
}

// bodyError explains a failure to read the body: too large when the
// body cap was hit, malformed otherwise.
func (s *Service) bodyError(err error, limit int64, why string) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return chat.ErrFileTooLarge(limit)
	}
	return errBadMultipart(why).Wrap(err)
}
