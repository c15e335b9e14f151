package gateway

import "encoding/binary"

// socket is what the gateway needs of one WebSocket connection. It keeps
// the WebSocket library behind a small seam: nbioSocket implements it.
type socket interface {
	// Write hands b, whole frames built by appendFrame, to the connection
	// without waiting for the client: what the kernel does not take at
	// once is held and written as the client reads. held reports whether
	// bytes were still waiting for the client after this write. Frames
	// never interleave: every frame of a connection goes through Write.
	Write(b []byte) (held bool, err error)
	// Close sends a close frame with code and reason and closes the
	// connection.
	Close(code uint16, reason string)
	// Abort closes the network connection at once, without a close frame.
	Abort()
}

// Close codes the gateway sends.
const (
	closeNormal    = 1000 // after Error or Logout
	closeGoingAway = 1001 // server shutdown: reconnect elsewhere or later
	closePolicy    = 1008 // no authentication within the deadline
	closeInternal  = 1011 // a transient failure: reconnect
	closeTryLater  = 1013 // too many authentication attempts
)

// Frame opcodes the gateway writes itself.
const (
	opText   = 0x1 // JSON packets
	opBinary = 0x2 // msgpack packets
	opClose  = 0x8
	opPong   = 0xa
)

// appendFrame appends a final, unmasked, uncompressed frame of opcode op
// holding payload to buf, as a server sends it (RFC 6455 §5.2).
func appendFrame(buf []byte, op byte, payload []byte) []byte {
	switch n := len(payload); {
	case n < 126:
		buf = append(buf, 0x80|op, byte(n))
	case n <= 0xffff:
		buf = binary.BigEndian.AppendUint16(append(buf, 0x80|op, 126), uint16(n))
	default:
		buf = binary.BigEndian.AppendUint64(append(buf, 0x80|op, 127), uint64(n))
	}
	return append(buf, payload...)
}
