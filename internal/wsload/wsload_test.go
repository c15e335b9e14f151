package wsload

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func frame(op byte, payload []byte) []byte {
	b := []byte{0x80 | op}
	switch n := len(payload); {
	case n < 126:
		b = append(b, byte(n))
	case n < 1<<16:
		b = append(b, 126, byte(n>>8), byte(n))
	default:
		b = append(b, 127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, payload...)
}

func TestNext(t *testing.T) {
	long := strings.Repeat("x", 300)
	huge := strings.Repeat("y", 70000)
	var in bytes.Buffer
	in.Write(frame(0x1, []byte("hello")))
	in.Write(frame(0x9, []byte("ping")))
	in.Write(frame(0x2, []byte(long)))
	in.Write(frame(0xa, nil))
	in.Write(frame(0x1, []byte(huge)))
	in.Write(frame(0x8, []byte{0x03, 0xe8}))
	r := NewReader(bufio.NewReader(&in))
	for _, want := range []string{"hello", long, huge} {
		got, err := r.Next()
		if err != nil || string(got) != want {
			t.Fatalf("Next = %.20q %v, want %.20q", got, err, want)
		}
	}
	if _, err := r.Next(); !errors.Is(err, ErrClosed) {
		t.Fatalf("close frame: %v", err)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v", err)
	}
}

func TestNextRefusesHugeLength(t *testing.T) {
	in := []byte{0x81, 127, 0xff, 0, 0, 0, 0, 0, 0, 0}
	if _, err := NewReader(bufio.NewReader(bytes.NewReader(in))).Next(); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("huge length: %v", err)
	}
}
