// Package resumetest is the conformance suite of resume.Streams.
package resumetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"ermine/internal/resume"
)

// Run checks an implementation. open returns a fresh one and a function
// that lets time pass by at least d (sleeping for real implementations);
// unit is the shortest expiry the implementation measures reliably.
func Run(t *testing.T, unit time.Duration, open func(t *testing.T) (resume.Streams, func(d time.Duration))) {
	ctx := context.Background()
	frames := func(from, to uint64) []resume.Frame {
		var out []resume.Frame
		for s := from; s <= to; s++ {
			out = append(out, resume.Frame{Seq: s, Data: fmt.Appendf(nil, "{\"n\":%d}\x00\xff", s)})
		}
		return out
	}
	same := func(t *testing.T, got, want []resume.Frame) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("got %d frames, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("frame %d = %d %q, want %d %q", i, got[i].Seq, got[i].Data, want[i].Seq, want[i].Data)
			}
		}
	}
	t.Run("OpenAppendFrames", func(t *testing.T) {
		s, _ := open(t)
		id := rand.Text()
		if _, ok, err := s.Fetch(ctx, id); err != nil || ok {
			t.Fatalf("fetch before open = %v, %v", ok, err)
		}
		if err := s.Open(ctx, id, "U1", "msgpack", "N1", time.Hour); err != nil {
			t.Fatal(err)
		}
		h, ok, err := s.Fetch(ctx, id)
		if err != nil || !ok || h.User != "U1" || h.Format != "msgpack" || h.Node != "N1" || h.Sealed != "" || h.Last != 0 {
			t.Fatalf("fetch = %+v %v %v", h, ok, err)
		}
		if err := s.Append(ctx, id, frames(1, 3), time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, id, frames(4, 5), time.Hour); err != nil {
			t.Fatal(err)
		}
		got, err := s.Frames(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, frames(1, 5))
		got, _ = s.Frames(ctx, id, 3)
		same(t, got, frames(4, 5))
		got, _ = s.Frames(ctx, id, 5)
		same(t, got, nil)
		// Another id is another stream.
		if got, _ := s.Frames(ctx, rand.Text(), 0); len(got) != 0 {
			t.Fatalf("unknown id has %d frames", len(got))
		}
	})
	t.Run("KeepsLastMaxFrames", func(t *testing.T) {
		s, _ := open(t)
		id := rand.Text()
		if err := s.Open(ctx, id, "U1", "json", "N1", time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, id, frames(1, resume.MaxFrames), time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, id, frames(resume.MaxFrames+1, resume.MaxFrames+10), time.Hour); err != nil {
			t.Fatal(err)
		}
		got, err := s.Frames(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, frames(11, resume.MaxFrames+10))
	})
	t.Run("PrepareSeal", func(t *testing.T) {
		s, _ := open(t)
		id := rand.Text()
		if err := s.Open(ctx, id, "U1", "json", "N1", time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, id, frames(1, 2), time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.Prepare(ctx, id, "n1", "s\tA\n"); err != nil {
			t.Fatal(err)
		}
		h, _, _ := s.Fetch(ctx, id)
		if h.Prepared != "n1" || h.Scope != "s\tA\n" || h.Sealed != "" {
			t.Fatalf("after prepare: %+v", h)
		}
		if err := s.Seal(ctx, id, "n1", frames(3, 4), 4, true); err != nil {
			t.Fatal(err)
		}
		h, _, _ = s.Fetch(ctx, id)
		if h.Sealed != "n1" || h.Last != 4 || !h.Intact || h.User != "U1" {
			t.Fatalf("after seal: %+v", h)
		}
		got, _ := s.Frames(ctx, id, 1)
		same(t, got, frames(2, 4))
		if err := s.Seal(ctx, id, "n2", nil, 4, false); err != nil {
			t.Fatal(err)
		}
		if h, _, _ = s.Fetch(ctx, id); h.Sealed != "n2" || h.Intact {
			t.Fatalf("after second seal: %+v", h)
		}
	})
	t.Run("OpenReplaces", func(t *testing.T) {
		s, _ := open(t)
		id := rand.Text()
		_ = s.Open(ctx, id, "U1", "json", "N1", time.Hour)
		_ = s.Append(ctx, id, frames(1, 2), time.Hour)
		_ = s.Seal(ctx, id, "n", nil, 2, true)
		if err := s.Open(ctx, id, "U1", "json", "N1", time.Hour); err != nil {
			t.Fatal(err)
		}
		h, ok, _ := s.Fetch(ctx, id)
		if !ok || h.Sealed != "" || h.Last != 0 {
			t.Fatalf("reopened header %+v", h)
		}
		if got, _ := s.Frames(ctx, id, 0); len(got) != 0 {
			t.Fatalf("reopened stream kept %d frames", len(got))
		}
	})
	t.Run("NoWritesWithoutStream", func(t *testing.T) {
		s, _ := open(t)
		id := rand.Text()
		_ = s.Append(ctx, id, frames(1, 2), time.Hour)
		_ = s.Prepare(ctx, id, "n", "scope")
		_ = s.Seal(ctx, id, "n", frames(3, 3), 3, true)
		if _, ok, err := s.Fetch(ctx, id); ok || err != nil {
			t.Fatalf("writes brought a stream into being (%v)", err)
		}
		if got, _ := s.Frames(ctx, id, 0); len(got) != 0 {
			t.Fatalf("%d frames without a stream", len(got))
		}
		_ = s.Open(ctx, id, "U1", "json", "N1", time.Hour)
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		_ = s.Append(ctx, id, frames(1, 2), time.Hour)
		if _, ok, _ := s.Fetch(ctx, id); ok {
			t.Fatal("deleted stream came back")
		}
	})
	t.Run("NodeBeats", func(t *testing.T) {
		s, wait := open(t)
		node, other, gone := rand.Text(), rand.Text(), rand.Text()
		if alive, err := s.Alive(ctx, node); err != nil || alive {
			t.Fatalf("alive before its first beat = %v, %v", alive, err)
		}
		if err := s.Beat(ctx, node, 2*unit); err != nil {
			t.Fatal(err)
		}
		if err := s.Beat(ctx, other, 40*unit); err != nil {
			t.Fatal(err)
		}
		if err := s.Beat(ctx, gone, 40*unit); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{node, other, gone} {
			if alive, err := s.Alive(ctx, n); err != nil || !alive {
				t.Fatalf("alive after a beat = %v, %v", alive, err)
			}
		}
		// A beat with no time left marks the node gone at once.
		if err := s.Beat(ctx, gone, 0); err != nil {
			t.Fatal(err)
		}
		if alive, _ := s.Alive(ctx, gone); alive {
			t.Fatal("alive after its last beat")
		}
		wait(3 * unit)
		if alive, _ := s.Alive(ctx, node); alive {
			t.Fatal("alive after its beat expired")
		}
		if alive, _ := s.Alive(ctx, other); !alive {
			t.Fatal("another node's beat expired with it")
		}
		// A stream keeps the node that opened it, reopened by another.
		id := rand.Text()
		_ = s.Open(ctx, id, "U1", "json", node, time.Hour)
		if h, _, _ := s.Fetch(ctx, id); h.Node != node {
			t.Fatalf("node %q, want %q", h.Node, node)
		}
		_ = s.Open(ctx, id, "U1", "json", other, time.Hour)
		if h, _, _ := s.Fetch(ctx, id); h.Node != other {
			t.Fatalf("reopened: node %q, want %q", h.Node, other)
		}
	})
	t.Run("Expires", func(t *testing.T) {
		s, wait := open(t)
		id, kept := rand.Text(), rand.Text()
		_ = s.Open(ctx, id, "U1", "json", "N1", 2*unit)
		_ = s.Append(ctx, id, frames(1, 1), 2*unit)
		_ = s.Open(ctx, kept, "U1", "json", "N1", time.Hour)
		_ = s.Append(ctx, kept, frames(1, 1), 40*unit) // Append sets the expiry
		wait(3 * unit)
		if _, ok, _ := s.Fetch(ctx, id); ok {
			t.Fatal("stream outlived its expiry")
		}
		if got, _ := s.Frames(ctx, id, 0); len(got) != 0 {
			t.Fatal("frames outlived their stream")
		}
		if _, ok, _ := s.Fetch(ctx, kept); !ok {
			t.Fatal("stream expired early")
		}
		if got, _ := s.Frames(ctx, kept, 0); len(got) != 1 {
			t.Fatalf("kept stream has %d frames", len(got))
		}
	})
}
