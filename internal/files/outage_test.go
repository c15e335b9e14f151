package files_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/blob/s3"
	"ermine/internal/config"
	"ermine/internal/store"
)

// gate is a TCP proxy to an S3 endpoint that can be shut: while shut it
// drops every connection, open and new, as an unreachable store would.
type gate struct {
	l      net.Listener
	target string
	shut   atomic.Bool
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

func newGate(t *testing.T, target string) *gate {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{l: l, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { l.Close(); g.close(true) })
	go g.serve()
	return g
}

func (g *gate) addr() string { return g.l.Addr().String() }

func (g *gate) serve() {
	for {
		c, err := g.l.Accept()
		if err != nil {
			return
		}
		if g.shut.Load() {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", g.target)
		if err != nil {
			c.Close()
			continue
		}
		g.mu.Lock()
		g.conns[c], g.conns[up] = true, true
		g.mu.Unlock()
		go func() { _, _ = io.Copy(up, c); up.Close() }()
		go func() { _, _ = io.Copy(c, up); c.Close() }()
	}
}

// close shuts the gate (all connections dropped) or, with shut false,
// opens it again.
func (g *gate) close(shut bool) {
	g.shut.Store(shut)
	if !shut {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.conns {
		c.Close()
		delete(g.conns, c)
	}
}

// TestS3Outage runs a node whose S3 store goes away and comes back: an
// upload meanwhile answers 503 StorageUnavailable and leaves no record
// and no object, downloads answer 503 too, and once the store is back
// the same upload works. On the fake S3 always, and on the real server
// of ERMINE_TEST_S3 when set.
func TestS3Outage(t *testing.T) {
	for _, backend := range backends {
		if backend == config.FilesDisk {
			continue
		}
		t.Run(backend, func(t *testing.T) {
			var g *gate
			n := start(t, backend, func(c *config.Config) {
				g = newGate(t, c.Files.S3.Endpoint)
				c.Files.S3.Endpoint = g.addr()
			})
			u := n.NewUser("olga")
			first := n.uploadID("attachments", u.Token, "first.png", pngWithText(t, quadrants(64, 64), 0))
			n.use(first)
			if res := n.get("/autumn/attachments/"+first+"/first.png", "Range", "bytes=2-5"); res.status != http.StatusPartialContent || len(res.body) != 4 {
				t.Fatalf("range read: %d, %d bytes", res.status, len(res.body))
			}

			g.close(true)
			photo := pngWithText(t, quadrants(80, 40), 0)
			started := time.Now()
			res := n.upload("attachments", u.Token, "second.png", photo)
			if res.Status != http.StatusServiceUnavailable || errType(t, res.Body) != "StorageUnavailable" {
				t.Fatalf("upload while the store is down: %d %s", res.Status, res.Body)
			}
			if took := time.Since(started); took > 10*time.Second {
				t.Errorf("the failed upload took %s", took)
			}
			sum := sha256.Sum256(photo)
			if _, err := n.Server.Store.FetchFileByHash(context.Background(), hex.EncodeToString(sum[:])); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a record of the failed upload: %v", err)
			}
			if res := n.get("/autumn/attachments/" + first + "/first.png"); res.status != http.StatusServiceUnavailable || errType(t, res.body) != "StorageUnavailable" {
				t.Errorf("download while the store is down: %d %s", res.status, res.body)
			}
			n.spoolEmpty()

			g.close(false)
			for _, k := range n.keys("originals/") {
				if strings.HasSuffix(k, hex.EncodeToString(sum[:])) {
					t.Errorf("the failed upload left an object: %s", k)
				}
			}
			second := n.uploadID("attachments", u.Token, "second.png", photo)
			if r := n.record(second); r.Hash != hex.EncodeToString(sum[:]) {
				t.Errorf("the upload after the outage: %+v", r)
			}
		})
	}
}

// TestS3Unreachable checks that a node whose S3 endpoint cannot be
// reached refuses to start, saying which endpoint and what to check.
func TestS3Unreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err = s3.Open(ctx, s3.Config{Endpoint: addr, Bucket: "ermine", AccessKey: "a", SecretKey: "b"})
	if err == nil || !strings.Contains(err.Error(), "http://"+addr+" cannot be reached") || !strings.Contains(err.Error(), "[files.s3]") {
		t.Fatalf("open an unreachable store: %v", err)
	}
	started := time.Now()
	_, err = apitest.TryStart(t, func(c *config.Config) {
		c.Files.Backend = config.FilesS3
		c.Files.S3 = config.S3{Endpoint: addr, Bucket: "ermine", AccessKey: "a", SecretKey: "b"}
	})
	if err == nil || !strings.Contains(err.Error(), "cannot be reached") {
		t.Fatalf("a node with an unreachable store started, or said: %v", err)
	}
	if took := time.Since(started); took > 15*time.Second {
		t.Errorf("refusing to start took %s", took)
	}
}
