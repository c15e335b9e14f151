package files_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"ermine/internal/config"
)

// TestLifeCycle follows files from upload to removal on both backends:
// identical bytes are stored once, unused uploads are swept after the
// TTL, a used file stays until it is released, and the bytes and their
// previews go with the last record that names them.
func TestLifeCycle(t *testing.T) {
	const ttl = 300 * time.Millisecond
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			n := start(t, backend, func(c *config.Config) { c.Files.UnusedFileTTL = ttl })
			u := n.NewUser("frank")
			photo := pngWithText(t, quadrants(300, 300), 0)
			a := n.uploadID("attachments", u.Token, "a.png", photo)
			b := n.uploadID("avatars", u.Token, "b.png", photo) // same bytes, another tag
			c := n.uploadID("attachments", u.Token, "c.txt", []byte("other bytes"))
			if a == b {
				t.Fatal("two uploads share an id")
			}
			ra, rb := n.record(a), n.record(b)
			if ra.Hash != rb.Hash || ra.Size != rb.Size || ra.ContentType != rb.ContentType || *ra.Metadata.Width != *rb.Metadata.Width {
				t.Fatalf("deduplicated records differ: %+v / %+v", ra, rb)
			}
			if got := n.keys("originals/"); len(got) != 2 {
				t.Fatalf("originals stored: %v, want 2 (one per distinct content)", got)
			}

			n.use(b)
			if res := n.get("/autumn/avatars/" + b); res.status != http.StatusOK {
				t.Fatalf("preview: %d", res.status)
			}
			if res := n.get("/autumn/avatars/" + b + "?max_side=64"); res.status != http.StatusOK {
				t.Fatalf("preview: %d", res.status)
			}
			if got := n.keys("previews/"); len(got) != 2 {
				t.Fatalf("previews kept: %v, want 2", got)
			}

			time.Sleep(ttl + 100*time.Millisecond)
			n.sweep() // the background sweep may have run too; the state is what counts
			for _, id := range []string{a, c} {
				if _, err := n.Server.Store.FetchFile(context.Background(), id); err == nil {
					t.Fatalf("unused file %s survived the sweep", id)
				}
			}
			if got := n.keys("originals/"); len(got) != 1 || !strings.HasSuffix(got[0], rb.Hash) {
				t.Fatalf("originals after the sweep: %v, want only %s", got, rb.Hash)
			}
			if res := n.get("/autumn/avatars/" + b + "/b.png"); res.status != http.StatusOK {
				t.Fatalf("used file after the sweep: %d", res.status)
			}

			// Release b as a route dropping an avatar would.
			rb = n.record(b)
			deleted := true
			rb.Deleted = &deleted
			must(t, n.Server.Store.UpdateFile(context.Background(), rb))
			if res := n.get("/autumn/avatars/" + b); res.status != http.StatusNotFound {
				t.Fatalf("released file still served: %d", res.status)
			}
			n.sweep()
			if keys := n.keys(""); len(keys) != 0 {
				t.Fatalf("blobs left after the last record went: %v", keys)
			}
			if _, err := n.Server.Store.FetchFile(context.Background(), b); err == nil {
				t.Fatal("released record survived the sweep")
			}
			n.spoolEmpty()
		})
	}
}
