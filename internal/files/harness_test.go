package files_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"ermine/internal/apitest"
	"ermine/internal/blob"
	"ermine/internal/blob/disk"
	"ermine/internal/blob/s3"
	"ermine/internal/chat"
	"ermine/internal/config"
)

// backends are the blob stores every integration test runs on: local
// disk, an in-process fake S3 and, when ERMINE_TEST_S3 names one, a real
// S3-compatible server (versitygw in CI), a new bucket per node.
var backends = func() []string {
	b := []string{config.FilesDisk, config.FilesS3}
	if os.Getenv("ERMINE_TEST_S3") != "" {
		b = append(b, realS3)
	}
	return b
}()

// realS3 is the backend of the server ERMINE_TEST_S3 names.
const realS3 = "s3-real"

// realS3Config is ERMINE_TEST_S3's server with a new bucket (the store
// makes a missing bucket).
func realS3Config(t testing.TB) s3.Config {
	t.Helper()
	c, err := s3.ParseURL(os.Getenv("ERMINE_TEST_S3"))
	if err != nil {
		t.Fatal(err)
	}
	c.Bucket = fmt.Sprintf("ermine-files-%d", time.Now().UnixNano())
	c.Prefix = ""
	return c
}

// node is a running Ermine node with a view of its blob store.
type node struct {
	*apitest.Harness
	t      testing.TB
	data   string
	blobs  blob.Store
	client *http.Client // does not follow redirects
}

// start runs a node storing files on backend; S3 is an in-process fake.
func start(t testing.TB, backend string, opts ...apitest.Option) *node {
	t.Helper()
	n := &node{t: t}
	var s3cfg s3.Config
	switch backend {
	case config.FilesS3:
		srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
		t.Cleanup(srv.Close)
		s3cfg = s3.Config{Endpoint: strings.TrimPrefix(srv.URL, "http://"), Bucket: "ermine",
			AccessKey: "ermine", SecretKey: "ermine-secret", Region: "us-east-1"}
	case realS3:
		s3cfg = realS3Config(t)
	}
	opts = append([]apitest.Option{func(c *config.Config) {
		n.data = c.Data
		c.Files.Backend = backend
		if s3cfg.Bucket != "" {
			c.Files.Backend = config.FilesS3
			c.Files.S3 = config.S3{Endpoint: s3cfg.Endpoint, Bucket: s3cfg.Bucket, AccessKey: s3cfg.AccessKey,
				SecretKey: s3cfg.SecretKey, Region: s3cfg.Region, UseSSL: s3cfg.UseSSL}
		}
	}}, opts...)
	n.Harness = apitest.Start(t, opts...)
	var err error
	if s3cfg.Bucket != "" {
		n.blobs, err = s3.Open(context.Background(), s3cfg)
	} else {
		n.blobs, err = disk.Open(filepath.Join(n.data, "files"))
	}
	if err != nil {
		t.Fatal(err)
	}
	n.client = &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return n
}

// multipartBody builds a multipart/form-data body from fields given as
// name, filename, content triples.
func multipartBody(t testing.TB, fields ...[3]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		var w io.Writer
		var err error
		if f[1] == "" {
			w, err = mw.CreateFormField(f[0])
		} else {
			w, err = mw.CreateFormFile(f[0], f[1])
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, f[2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}

// upload sends one file in the field "file".
func (n *node) upload(tag, token, filename string, data []byte) *apitest.Response {
	n.t.Helper()
	ct, body := multipartBody(n.t, [3]string{"file", filename, string(data)})
	return n.Do(apitest.Request{Method: http.MethodPost, Path: "/autumn/" + tag, Body: body,
		Header: map[string]string{"Content-Type": ct}, Session: token})
}

// uploadID uploads and returns the new file's id, failing unless 200.
func (n *node) uploadID(tag, token, filename string, data []byte) string {
	n.t.Helper()
	res := n.upload(tag, token, filename, data)
	if res.Status != http.StatusOK {
		n.t.Fatalf("upload %s to %s: %d %s", filename, tag, res.Status, res.Body)
	}
	var out struct {
		ID string `json:"id"`
	}
	res.JSON(n.t, &out)
	if out.ID == "" {
		n.t.Fatalf("upload answered %s", res.Body)
	}
	return out.ID
}

// record returns a file's stored record.
func (n *node) record(id string) *chat.FileRecord {
	n.t.Helper()
	f, err := n.Server.Store.FetchFile(context.Background(), id)
	if err != nil {
		n.t.Fatalf("fetch file %s: %v", id, err)
	}
	return f
}

// use marks a file used, as a route consuming it would.
func (n *node) use(id string) {
	n.t.Helper()
	f := n.record(id)
	f.UsedFor = "test"
	if err := n.Server.Store.UpdateFile(context.Background(), f); err != nil {
		n.t.Fatal(err)
	}
}

// response is a finished request that was not redirected.
type response struct {
	status int
	header http.Header
	body   []byte
	url    string
}

// get sends a GET (or another method) with headers, without following
// redirects.
func (n *node) get(path string, header ...string) *response {
	n.t.Helper()
	return n.request(http.MethodGet, path, header...)
}

func (n *node) request(method, path string, header ...string) *response {
	n.t.Helper()
	req, err := http.NewRequest(method, n.URL+path, nil)
	if err != nil {
		n.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := n.client.Do(req)
	if err != nil {
		n.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		n.t.Fatal(err)
	}
	return &response{status: res.StatusCode, header: res.Header, body: b, url: req.URL.String()}
}

// location resolves a redirect's Location against the request URL and
// returns its path.
func (r *response) location(t testing.TB) string {
	t.Helper()
	loc := r.header.Get("Location")
	if loc == "" {
		t.Fatalf("no Location in %d answer", r.status)
	}
	req, err := http.NewRequest(http.MethodGet, r.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := req.URL.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	return u.EscapedPath()
}

// keys lists the blob store's keys under prefix.
func (n *node) keys(prefix string) []string {
	n.t.Helper()
	k, err := n.blobs.List(context.Background(), prefix)
	if err != nil {
		n.t.Fatal(err)
	}
	return k
}

// spoolEmpty fails the test when an upload left a temporary file behind.
func (n *node) spoolEmpty() {
	n.t.Helper()
	entries, err := os.ReadDir(filepath.Join(n.data, "tmp"))
	if err != nil {
		n.t.Fatal(err)
	}
	if len(entries) > 0 {
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		n.t.Fatalf("temporary files left behind: %v", names)
	}
}

func (n *node) sweep() int {
	n.t.Helper()
	c, err := n.Server.App.SweepFiles(context.Background())
	if err != nil {
		n.t.Fatal(err)
	}
	return c
}

func errType(t testing.TB, body []byte) string {
	t.Helper()
	var e struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body is not JSON: %s", body)
	}
	return e.Type
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
