// Package wsload reads the frames an Ermine server writes on a WebSocket,
// as cheaply as possible, for the load generators and benchmarks that
// open thousands of client connections next to the server they measure.
// It only reads: unfragmented, unmasked server frames, the only kind the
// server sends. Real clients and tests use a full WebSocket library.
package wsload

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrClosed is returned by Next when the server sent a close frame.
var ErrClosed = errors.New("wsload: closed by the server")

// maxFrame bounds a frame's payload so a corrupt length cannot make the
// reader allocate without limit.
const maxFrame = 64 << 20

// Reader reads the data frames of one connection.
type Reader struct {
	r   *bufio.Reader
	buf []byte
}

// NewReader returns a Reader over the connection's buffered reader,
// positioned after the HTTP upgrade answer.
func NewReader(r *bufio.Reader) *Reader { return &Reader{r: r} }

// Next returns the payload of the next data frame, skipping ping and pong
// frames. The payload is valid until the next call.
func (r *Reader) Next() ([]byte, error) {
	for {
		var h [2]byte
		if _, err := io.ReadFull(r.r, h[:]); err != nil {
			return nil, err
		}
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var l [2]byte
			if _, err := io.ReadFull(r.r, l[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(l[:]))
		case 127:
			var l [8]byte
			if _, err := io.ReadFull(r.r, l[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(l[:])
		}
		if n > maxFrame {
			return nil, fmt.Errorf("wsload: frame of %d bytes", n)
		}
		if uint64(cap(r.buf)) < n {
			r.buf = make([]byte, n)
		}
		p := r.buf[:n]
		if _, err := io.ReadFull(r.r, p); err != nil {
			return nil, err
		}
		switch h[0] & 0x0f {
		case 0x8:
			return nil, ErrClosed
		case 0x9, 0xa:
			continue
		}
		return p, nil
	}
}
