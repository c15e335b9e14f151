package gateway

import (
	"encoding/binary"
	"fmt"
	"log/slog"
	"net/http"
	"syscall"
	"time"

	"github.com/lxzan/gws"
)

// socket is what the gateway needs of one WebSocket connection. It keeps
// the WebSocket library behind a small seam: gwsSocket implements it.
type socket interface {
	// WriteFrames writes b, whole frames built by appendFrame, with one
	// write of the network connection, and blocks until it is written or
	// the connection fails. Each write of a network connection is atomic,
	// so the frames never interleave with the library's own (pongs and
	// close frames written from the read loop).
	WriteFrames(b []byte) error
	// TryWrite writes what it can of b without waiting for the client
	// and returns how much; a full socket is not an error.
	TryWrite(b []byte) (int, error)
	// Close sends a close frame with code and reason and closes the
	// connection.
	Close(code uint16, reason string)
	// Abort closes the network connection at once, without a close frame;
	// a write blocked on a client that stopped reading then fails.
	Abort()
	// SetReadDeadline drops the connection when no frame arrives by t.
	SetReadDeadline(t time.Time) error
}

// Close codes the gateway sends.
const (
	closeNormal    = 1000 // after Error or Logout
	closeGoingAway = 1001 // server shutdown: reconnect elsewhere or later
	closePolicy    = 1008 // no authentication within the deadline
	closeInternal  = 1011 // a transient failure: reconnect
	closeTryLater  = 1013 // too many authentication attempts
)

// gwsSocket adapts a gws connection. rc, when the network connection
// has one, writes without waiting.
type gwsSocket struct {
	c  *gws.Conn
	rc syscall.RawConn
}

// newGWSSocket adapts c, capping its kernel send buffer at sendBuf bytes
// when sendBuf > 0.
func newGWSSocket(c *gws.Conn, sendBuf int) *gwsSocket {
	s := &gwsSocket{c: c}
	if sc, ok := c.NetConn().(syscall.Conn); ok {
		s.rc, _ = sc.SyscallConn()
	}
	if s.rc != nil && sendBuf > 0 {
		_ = s.rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, sendBuf)
		})
	}
	return s
}

func (s *gwsSocket) WriteFrames(b []byte) error {
	_, err := s.c.NetConn().Write(b)
	return err
}

func (s *gwsSocket) TryWrite(b []byte) (int, error) {
	if s.rc == nil {
		if err := s.WriteFrames(b); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	var n int
	var werr error
	// The callback returns true at once: the runtime then does not wait
	// for the socket to become writable.
	err := s.rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true
			}
		}
	})
	if n < 0 {
		n = 0
	}
	if err == nil && werr != syscall.EAGAIN {
		err = werr
	}
	return n, err
}

func (s *gwsSocket) Close(code uint16, reason string) { _ = s.c.WriteClose(code, []byte(reason)) }

func (s *gwsSocket) Abort() { _ = s.c.NetConn().Close() }

func (s *gwsSocket) SetReadDeadline(t time.Time) error { return s.c.SetReadDeadline(t) }

// Frame opcodes the gateway writes itself.
const (
	opText   = 0x1 // JSON packets
	opBinary = 0x2 // msgpack packets
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

// gwsEvents receives the callbacks of every gws connection and hands them
// to the gateway connection stored in the gws session.
type gwsEvents struct{}

// connOf returns the gateway connection of a gws connection.
func connOf(s *gws.Conn) *conn {
	v, _ := s.Session().Load("")
	c, _ := v.(*conn)
	return c
}

func (gwsEvents) OnOpen(s *gws.Conn) {
	if c := connOf(s); c != nil {
		c.onOpen()
	}
}

func (gwsEvents) OnClose(s *gws.Conn, _ error) {
	if c := connOf(s); c != nil {
		c.onClose()
	}
}

func (gwsEvents) OnPing(s *gws.Conn, payload []byte) {
	if c := connOf(s); c != nil {
		c.onPing(payload)
	}
}

func (gwsEvents) OnPong(s *gws.Conn, _ []byte) {
	if c := connOf(s); c != nil {
		c.onControl()
	}
}

func (gwsEvents) OnMessage(s *gws.Conn, m *gws.Message) {
	defer m.Close()
	if c := connOf(s); c != nil {
		c.onMessage(m.Opcode == gws.OpcodeBinary, m.Bytes())
	}
}

// slot is a gws session holding only the gateway connection: the library
// default is a locked map per connection, more than one pointer needs.
// It is written once before the read loop starts and only read after.
type slot struct{ v any }

func (s *slot) Len() int {
	if s.v == nil {
		return 0
	}
	return 1
}
func (s *slot) Load(string) (any, bool) { return s.v, s.v != nil }
func (s *slot) Delete(string)           { s.v = nil }
func (s *slot) Store(_ string, v any)   { s.v = v }
func (s *slot) Range(f func(string, any) bool) {
	if s.v != nil {
		f("", s.v)
	}
}

// newUpgrader returns the gws upgrader of a gateway. Compression stays
// off: it costs memory per connection and most frames are small.
// A panic in a callback is recovered and logged, ending only that
// connection's frame, never the server.
func newUpgrader(maxPacket int64, log *slog.Logger) *gws.Upgrader {
	return gws.NewUpgrader(gwsEvents{}, &gws.ServerOption{
		Logger:             gwsLogger{log},
		Recovery:           gws.Recovery,
		ReadMaxPayloadSize: int(maxPacket),
		ReadBufferSize:     1024,
		HandshakeTimeout:   10 * time.Second,
		NewSession:         func() gws.SessionStorage { return &slot{} },
		Authorize:          func(*http.Request, gws.SessionStorage) bool { return true },
	})
}

// gwsLogger sends gws's error log to slog.
type gwsLogger struct{ log *slog.Logger }

func (l gwsLogger) Error(v ...any) { l.log.Error("websocket", "detail", fmt.Sprint(v...)) }
