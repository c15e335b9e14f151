package s3_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"ermine/internal/blob"
	"ermine/internal/blob/blobtest"
	"ermine/internal/blob/s3"
	"ermine/internal/chat"
)

// TestConformance runs the suite against gofakes3 in this process, with a
// fresh bucket per subtest.
func TestConformance(t *testing.T) {
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(srv.Close)
	endpoint := strings.TrimPrefix(srv.URL, "http://")
	n := 0
	blobtest.Run(t, func(t *testing.T) blob.Store {
		n++
		s, err := s3.Open(context.Background(), s3.Config{Endpoint: endpoint, Bucket: fmt.Sprintf("bucket-%d", n),
			AccessKey: "ermine", SecretKey: "ermine-secret", Region: "us-east-1"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestReal runs the suite against the server ERMINE_TEST_S3 names, e.g.
// http://access:secret@127.0.0.1:7070/bucket?region=us-east-1, each
// subtest under its own prefix, which it empties afterwards. Without it
// the test skips, except in CI (CI set), where it fails.
func TestReal(t *testing.T) {
	raw := os.Getenv("ERMINE_TEST_S3")
	if raw == "" {
		const msg = "ERMINE_TEST_S3 not set: no real S3-compatible server to test against"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set, so this suite must run)")
		}
		t.Skip(msg)
	}
	base, err := s3.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	blobtest.Run(t, func(t *testing.T) blob.Store {
		c := base
		c.Prefix += "ermine-test-" + strings.ToLower(chat.NewToken(10)) + "/"
		s, err := s3.Open(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			keys, err := s.List(context.Background(), "")
			if err != nil {
				t.Errorf("clean up: %v", err)
				return
			}
			for _, k := range keys {
				if err := s.Delete(context.Background(), k); err != nil {
					t.Errorf("clean up: %v", err)
				}
			}
		})
		return s
	})
}

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw  string
		want s3.Config
		err  bool
	}{
		{"http://ak:sk@127.0.0.1:9000/bucket?region=eu-1", s3.Config{Endpoint: "127.0.0.1:9000", Bucket: "bucket", AccessKey: "ak", SecretKey: "sk", Region: "eu-1"}, false},
		{"https://s3.example.com/b/some/prefix", s3.Config{Endpoint: "s3.example.com", Bucket: "b", UseSSL: true, Prefix: "some/prefix/"}, false},
		{"ftp://x/b", s3.Config{}, true},
		{"http://host/", s3.Config{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := s3.ParseURL(tc.raw)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v", err)
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
