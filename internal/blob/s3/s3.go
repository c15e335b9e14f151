// Package s3 keeps blobs in an S3-compatible object store (AWS S3, MinIO,
// versitygw, Garage, ...) through minio-go. Each key is one object,
// optionally under a common prefix so several deployments can share a
// bucket.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"ermine/internal/blob"
)

// Config says which bucket to use and how to reach it.
type Config struct {
	Endpoint  string // host[:port], without a scheme
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string // may be empty for stores that ignore it
	UseSSL    bool   // https instead of http
	// Prefix is put before every key, e.g. "ermine/"; empty for none.
	Prefix string
}

// ParseURL reads a Config from a URL of the form
// http(s)://access:secret@host:port/bucket[/prefix]?region=r, the form
// ERMINE_TEST_S3 takes.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("parse s3 url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Config{}, fmt.Errorf("parse s3 url: scheme must be http or https")
	}
	bucket, prefix, _ := strings.Cut(strings.Trim(u.Path, "/"), "/")
	if bucket == "" {
		return Config{}, fmt.Errorf("parse s3 url: no bucket in the path")
	}
	c := Config{Endpoint: u.Host, Bucket: bucket, Region: u.Query().Get("region"), UseSSL: u.Scheme == "https"}
	if prefix != "" {
		c.Prefix = prefix + "/"
	}
	if u.User != nil {
		c.AccessKey = u.User.Username()
		c.SecretKey, _ = u.User.Password()
	}
	return c, nil
}

// Store is a blob.Store in one bucket.
type Store struct {
	client *minio.Client
	bucket string
	prefix string
}

var _ blob.Store = (*Store)(nil)

// Open connects to the store and makes sure the bucket exists, creating
// it when it is missing.
func Open(ctx context.Context, c Config) (*Store, error) {
	var creds *credentials.Credentials
	if c.AccessKey != "" {
		creds = credentials.NewStaticV4(c.AccessKey, c.SecretKey, "")
	} else {
		creds = credentials.NewStatic("", "", "", credentials.SignatureAnonymous)
	}
	// A few retries, not minio-go's ten: an upload while the store is
	// down should fail in about a second, not hang.
	client, err := minio.New(c.Endpoint, &minio.Options{Creds: creds, Secure: c.UseSSL, Region: c.Region, MaxRetries: maxRetries})
	if err != nil {
		return nil, fmt.Errorf("s3 endpoint %q: %w", c.Endpoint, err)
	}
	ok, err := client.BucketExists(ctx, c.Bucket)
	if err != nil {
		return nil, openError(c, err)
	}
	if !ok {
		if err := client.MakeBucket(ctx, c.Bucket, minio.MakeBucketOptions{Region: c.Region}); err != nil {
			return nil, fmt.Errorf("s3 bucket %q does not exist and could not be created (make it, or give the key the right to): %w",
				c.Bucket, mapErr(err))
		}
	}
	return &Store{client: client, bucket: c.Bucket, prefix: c.Prefix}, nil
}

// maxRetries is how many times a request to the store is retried.
const maxRetries = 2

// openError words a failure to reach the bucket at start.
func openError(c Config, err error) error {
	scheme := "http"
	if c.UseSSL {
		scheme = "https"
	}
	err = mapErr(err)
	switch resp := minio.ToErrorResponse(err); {
	case errors.Is(err, blob.ErrUnavailable):
		return fmt.Errorf("s3 endpoint %s://%s cannot be reached (check [files.s3] endpoint and use_ssl): %w", scheme, c.Endpoint, err)
	case resp.StatusCode == 403 || resp.Code == "AccessDenied" || resp.Code == "InvalidAccessKeyId" || resp.Code == "SignatureDoesNotMatch":
		return fmt.Errorf("s3 bucket %q at %s: access denied (check [files.s3] access_key and secret_key): %w", c.Bucket, c.Endpoint, err)
	}
	return fmt.Errorf("s3 bucket %q at %s: %w", c.Bucket, c.Endpoint, err)
}

// Put implements blob.Store. The body is sent as a plain payload (no
// streaming chunk signature): some S3-compatible servers, gofakes3 among
// them, store aws-chunked framing verbatim, and the payload is already
// covered by TLS when UseSSL is set. Objects above minio-go's part size
// go up as a multipart upload that the store assembles only on success,
// so a failed Put leaves no object behind.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("put %s: negative size: %w", key, blob.ErrSize)
	}
	cr := &countingReader{r: io.LimitReader(r, size+1)}
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+key, cr, size, minio.PutObjectOptions{
		ContentType:          "application/octet-stream",
		DisableContentSha256: true,
		SendContentMd5:       true,
	})
	if cr.n != size || readMore(r) {
		// minio-go reads exactly size bytes; a short reader fails the
		// upload and a longer one is caught here. Either way the object
		// must not stay.
		if err == nil {
			_ = s.client.RemoveObject(context.WithoutCancel(ctx), s.bucket, s.prefix+key, minio.RemoveObjectOptions{})
		}
		return fmt.Errorf("put %s: sent %d bytes, want %d: %w", key, cr.n, size, blob.ErrSize)
	}
	if err != nil {
		return fmt.Errorf("put %s: %w", key, mapErr(err))
	}
	return nil
}

// readMore reports whether r has at least one byte left.
func readMore(r io.Reader) bool {
	var b [1]byte
	n, _ := io.ReadFull(r, b[:])
	return n > 0
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Open implements blob.Store. It starts the download, which tells a
// missing key apart and gives the size of the version being read; a Seek
// reads on from that same version (by its ETag), or fails once it is
// gone. (minio's Object asks for the size with a HEAD and reads with a
// GET that must match the HEAD's ETag, so an overwrite in between failed
// the read instead of serving one whole version.)
func (s *Store) Open(ctx context.Context, key string) (blob.Object, error) {
	if err := blob.CheckKey(key); err != nil {
		return nil, err
	}
	o := &object{ctx: ctx, core: minio.Core{Client: s.client}, bucket: s.bucket, name: s.prefix + key}
	body, info, _, err := o.core.GetObject(ctx, o.bucket, o.name, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, mapErr(err))
	}
	o.body, o.size, o.etag = body, info.Size, info.ETag
	return o, nil
}

// object is one version of a stored object being read.
type object struct {
	ctx          context.Context
	core         minio.Core
	bucket, name string
	size         int64
	etag         string
	body         io.ReadCloser // nil after a Seek until the next Read
	pos          int64
}

func (o *object) Size() int64 { return o.size }

// Read implements io.Reader; after a Seek it asks for the rest of the same
// version from the new offset.
func (o *object) Read(p []byte) (int, error) {
	if o.body == nil {
		if o.pos >= o.size {
			return 0, io.EOF
		}
		opts := minio.GetObjectOptions{}
		if err := opts.SetMatchETag(o.etag); err != nil {
			return 0, err
		}
		if o.pos > 0 { // SetRange(0, 0) would ask for one byte
			if err := opts.SetRange(o.pos, 0); err != nil {
				return 0, err
			}
		}
		body, _, _, err := o.core.GetObject(o.ctx, o.bucket, o.name, opts)
		if err != nil {
			return 0, fmt.Errorf("read %s at %d: %w", o.name, o.pos, mapErr(err))
		}
		o.body = body
	}
	n, err := o.body.Read(p)
	o.pos += int64(n)
	return n, err
}

// Seek implements io.Seeker.
func (o *object) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += o.pos
	case io.SeekEnd:
		offset += o.size
	default:
		return o.pos, fmt.Errorf("seek: invalid whence %d", whence)
	}
	if offset < 0 {
		return o.pos, fmt.Errorf("seek: negative offset %d", offset)
	}
	if offset != o.pos && o.body != nil {
		_ = o.body.Close()
		o.body = nil
	}
	o.pos = offset
	return offset, nil
}

// Close implements io.Closer.
func (o *object) Close() error {
	if o.body == nil {
		return nil
	}
	err := o.body.Close()
	o.body = nil
	return err
}

// Exists implements blob.Store.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	if err := blob.CheckKey(key); err != nil {
		return false, err
	}
	_, err := s.client.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{})
	if err != nil {
		if errors.Is(mapErr(err), blob.ErrNotFound) {
			return false, nil
		}
		return false, fmt.Errorf("stat %s: %w", key, mapErr(err))
	}
	return true, nil
}

// Delete implements blob.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	err := s.client.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{})
	if err != nil && !errors.Is(mapErr(err), blob.ErrNotFound) {
		return fmt.Errorf("delete %s: %w", key, mapErr(err))
	}
	return nil
}

// List implements blob.Store.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if err := blob.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	var keys []string
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("list %q: %w", prefix, mapErr(o.Err))
		}
		keys = append(keys, strings.TrimPrefix(o.Key, s.prefix))
	}
	return keys, nil
}

// mapErr turns the store's "no such key" answers into blob.ErrNotFound,
// and a store that cannot be reached or cannot serve now (a network
// failure, a 5xx answer) into blob.ErrUnavailable.
func mapErr(err error) error {
	resp := minio.ToErrorResponse(err)
	if resp.Code == minio.NoSuchKey || resp.Code == "NotFound" || resp.StatusCode == 404 && resp.Code != minio.NoSuchBucket {
		return fmt.Errorf("%w: %v", blob.ErrNotFound, err)
	}
	var netErr net.Error
	if errors.As(err, &netErr) || resp.StatusCode >= 500 || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %w", blob.ErrUnavailable, err)
	}
	return err
}
