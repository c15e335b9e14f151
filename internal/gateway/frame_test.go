package gateway

import (
	"bytes"
	"testing"
)

// TestAppendFrame checks the header of each payload length encoding
// (RFC 6455 §5.2) and that frames append after what the buffer holds.
func TestAppendFrame(t *testing.T) {
	tests := []struct {
		name   string
		binary bool
		size   int
		header []byte
	}{
		{"empty text", false, 0, []byte{0x81, 0}},
		{"short text", false, 125, []byte{0x81, 125}},
		{"16-bit length", false, 126, []byte{0x81, 126, 0, 126}},
		{"largest 16-bit", true, 0xffff, []byte{0x82, 126, 0xff, 0xff}},
		{"64-bit length", true, 0x10000, []byte{0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := bytes.Repeat([]byte{'x'}, tt.size)
			got := appendFrame([]byte("before"), tt.binary, payload)
			want := append(append([]byte("before"), tt.header...), payload...)
			if !bytes.Equal(got, want) {
				t.Errorf("header % x, want % x", got[6:min(len(got), 6+len(tt.header))], tt.header)
			}
		})
	}
}
