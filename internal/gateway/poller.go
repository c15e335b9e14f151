package gateway

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/lesismal/nbio"
	"github.com/lesismal/nbio/logging"
	"github.com/lesismal/nbio/nbhttp"
	"github.com/lesismal/nbio/nbhttp/websocket"
)

// An events connection has no goroutine of its own. After the HTTP
// upgrade its socket moves to a poller (nbio: epoll on Linux), which
// reads whatever sockets are readable into one buffer per poller and
// hands complete frames to a goroutine pool; frame handlers of one
// connection run one at a time, in order. An idle connection therefore
// costs its socket, a few small structures and its follow state: no
// stack and no read buffer.
//
// Writes never wait either: what the kernel does not take at once the
// poller keeps and writes when the client reads (see socket.Write).

// poller owns the gateway's epoll engine and WebSocket settings.
type poller struct {
	engine  *nbhttp.Engine
	up      *websocket.Upgrader
	stopped sync.Once
}

// newPoller starts the engine of a gateway whose clients may send
// packets of at most maxPacket bytes.
func newPoller(maxPacket int64, log *slog.Logger) (*poller, error) {
	setLogger(log)
	engine := nbhttp.NewEngine(nbhttp.Config{
		Name:    "events",
		NPoller: 1, // one goroutine reads every socket; handlers run on the pool
		// Sockets only come from upgraded requests: no listener.
		IOMod:   nbhttp.IOModNonBlocking,
		MaxLoad: math.MaxInt32,
		// The poller's own limit on bytes held for a client stays off:
		// the gateway bounds frames held (see conn.backlog), which
		// lets one large Ready through to a client that reads it.
		MaxWriteBufferSize: 0,
	})
	// Text frames are not checked for UTF-8 here: a packet that is not
	// valid JSON is ignored like any other undecodable packet, and the
	// connection stays open.
	engine.CheckUtf8 = func([]byte) bool { return true }
	engine.OnWrittenSize(func(nc *nbio.Conn, _ []byte, n int) {
		if s := socketOf(nc); s != nil {
			s.held.Add(-int64(n))
		}
	})
	if err := engine.Start(); err != nil {
		return nil, fmt.Errorf("gateway: start poller: %w", err)
	}
	up := websocket.NewUpgrader()
	up.Engine = engine
	up.KeepaliveTime = 0 // the gateway keeps its own deadline (conn.touch)
	up.MessageLengthLimit = int(min(maxPacket, math.MaxInt32))
	up.CheckOrigin = func(*http.Request) bool { return true } // browsers on other origins are clients too
	up.BlockingModAsyncWrite = false
	up.BlockingModHandleRead = false
	up.BlockingModTrasferConnToPoller = false
	up.OnMessage(func(w *websocket.Conn, t websocket.MessageType, b []byte) {
		if c := connOf(w); c != nil {
			c.onMessage(t == websocket.BinaryMessage, b)
		}
	})
	up.SetPingHandler(func(w *websocket.Conn, payload string) {
		if c := connOf(w); c != nil {
			c.onPing([]byte(payload))
		}
	})
	up.SetPongHandler(func(w *websocket.Conn, _ string) {
		if c := connOf(w); c != nil {
			c.onControl()
		}
	})
	up.SetCloseHandler(func(w *websocket.Conn, code int, _ string) {
		// Answer the client's close frame with its code (RFC 6455
		// §5.5.1); codes that may not be sent become a normal close.
		if c := connOf(w); c != nil {
			if code < 1000 || code == 1005 || code == 1006 || code == 1015 || code > 4999 {
				code = closeNormal
			}
			c.closeWith(uint16(code), "")
		}
	})
	up.OnClose(func(w *websocket.Conn, _ error) {
		if c := connOf(w); c != nil {
			c.onClose()
		}
	})
	return &poller{engine: engine, up: up}, nil
}

// stop closes every socket left and ends the engine's goroutines.
func (p *poller) stop() { p.stopped.Do(p.engine.Stop) }

// errNotTCP refuses an upgrade whose connection the poller cannot take.
var errNotTCP = errors.New("events: the connection is not a TCP connection")

// upgrade answers the WebSocket handshake of r and moves its connection
// to a socket of c's. The socket is not yet read: add starts that. With
// hold the answer is not sent yet but goes out with the socket's first
// write: a connection that authenticates with its URL's token is sent
// its Authenticated and Ready (or its Error) straight after, and one
// write of both costs the server about a tenth of a connect less than
// two (the kernel's work for each, on both ends of a loopback TCP
// connection, is most of a write's cost). Every path of such a
// connection writes (Ready, an Error, a close frame) or closes it.
func (p *poller) upgrade(w http.ResponseWriter, r *http.Request, c *conn, hold bool) (*nbioSocket, error) {
	hw := &rawHijacker{ResponseWriter: w, hold: hold}
	// The library answers the handshake on the TCP connection, reading
	// nothing; the socket then moves to the poller.
	if _, err := p.up.UpgradeWithoutHandlingReadForConnFromSTDServer(hw, r, nil); err != nil {
		if hw.conn != nil {
			_ = hw.conn.Close()
		}
		return nil, err
	}
	var head []byte
	if hw.held != nil {
		head = hw.held.answer
	}
	return p.adopt(hw.conn, head, c)
}

// adopt moves tcp, a TCP connection whose handshake is answered, to a
// socket of c's, which the poller does not read yet; head, when not
// nil, is the answer, held for the socket's first write. On failure
// tcp is closed.
func (p *poller) adopt(tcp net.Conn, head []byte, c *conn) (*nbioSocket, error) {
	nc, err := takeOver(tcp)
	if err != nil {
		_ = tcp.Close()
		return nil, err
	}
	s := new(nbioSocket)
	ws := websocket.NewServerConn(p.up, pollerConn{nc, s}, "", false, false)
	ws.Engine = p.engine
	ws.Execute = nc.Execute
	// Field by field: the poller reads ended with no ordering the race
	// detector sees (the library registers a socket in its table without
	// one), so ended is only ever touched atomically, never by a copy of
	// the whole struct.
	s.ws, s.nc, s.head = ws, nc, head
	s.conn.Store(c)
	ws.SetSession(s)
	nc.SetSession(ws)
	nc.OnData(func(_ *nbio.Conn, data []byte) {
		if s.ended.Load() {
			return // closed by the gateway: what the client sent since is not read
		}
		// Parse sends the close frame of an oversized or malformed
		// frame itself (1009, 1002) before failing.
		if err := ws.Parse(data); err != nil {
			s.end()
		}
	})
	return s, nil
}

// takeOver gives tcp to the poller's library, which takes a duplicate of
// its descriptor and closes the original. The duplicate is made close-on
// -exec, as Go makes every descriptor it opens, under the lock Go holds
// against starting a process meanwhile: a process the server starts (the
// files service's ffprobe) would otherwise inherit every events socket.
// Such a socket outlives its close until the process exits, and so does
// its entry in the poller's epoll set, which goes on reporting the
// client's hang-up under its descriptor number: the next connection
// given that number was cut before its answer.
func takeOver(tcp net.Conn) (*nbio.Conn, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nc, err := nbio.NBConn(tcp)
	if err != nil {
		return nil, err
	}
	rc, err := nc.SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) { syscall.CloseOnExec(int(fd)) })
	}
	if err != nil {
		_ = nc.Close() // not on the poller yet: no event of it can be pending
		return nil, err
	}
	return nc, nil
}

// add starts reading s. When it fails the connection is closed and the
// close handler runs.
func (p *poller) add(s *nbioSocket) error {
	return p.engine.AddTransferredConn(s.nc)
}

// rawHijacker hands the upgrade the TCP connection itself, under any
// wrapper the server put around it, so the poller can take its
// descriptor; with hold, under a heldAnswer that keeps the handshake's
// answer instead of sending it.
type rawHijacker struct {
	http.ResponseWriter
	conn net.Conn
	hold bool
	held *heldAnswer
}

func (h *rawHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, websocket.ErrUpgradeNotHijacker
	}
	c, rw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	for {
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = u.NetConn()
	}
	if _, ok := c.(*net.TCPConn); !ok {
		_ = c.Close()
		return nil, nil, errNotTCP
	}
	// A client may not send frames before the handshake's answer
	// (RFC 6455 §4.1); bytes read ahead by net/http would be lost.
	if rw.Reader.Buffered() > 0 {
		_ = c.Close()
		return nil, nil, errors.New("events: frames sent before the handshake was answered")
	}
	h.conn = c
	if h.hold {
		h.held = &heldAnswer{Conn: c}
		return h.held, rw, nil
	}
	return c, rw, nil
}

// heldAnswer is a TCP connection whose writes are kept, not sent: the
// upgrade writes its answer to the handshake there.
type heldAnswer struct {
	net.Conn
	answer []byte
}

func (h *heldAnswer) Write(b []byte) (int, error) {
	h.answer = append(h.answer, b...)
	return len(b), nil
}

// nbioSocket is an events connection on the poller.
type nbioSocket struct {
	ws *websocket.Conn
	nc *nbio.Conn
	// conn is the gateway connection; handlers on the poller's
	// goroutines load it, which orders them after its setup.
	conn atomic.Pointer[conn]
	// held counts bytes handed to Write that the kernel has not taken.
	held atomic.Int64
	// head is the handshake's answer while it waits for the first
	// write (poller.upgrade); Write and Close are called one at a time.
	head []byte
	// ended is set once the gateway has closed the socket (end).
	ended atomic.Bool
}

// setSendBuffer caps the socket's kernel send buffer at n bytes.
func (s *nbioSocket) setSendBuffer(n int) {
	_ = s.nc.SetWriteBuffer(n)
}

func (s *nbioSocket) Write(b []byte) (bool, error) {
	if s.ended.Load() {
		return false, net.ErrClosed
	}
	if s.head != nil {
		b = append(s.head, b...)
		s.head = nil
	}
	s.held.Add(int64(len(b)))
	if _, err := s.nc.Write(b); err != nil {
		return false, err
	}
	return s.held.Load() > 0, nil
}

func (s *nbioSocket) Close(code uint16, reason string) {
	payload := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(reason)), code)
	_, _ = s.Write(appendFrame(nil, opClose, append(payload, reason...)))
	s.end()
}

func (s *nbioSocket) Abort() { s.end() }

// end closes the socket for the gateway: it shuts the TCP connection
// down both ways, and the poller, which the shutdown wakes (EPOLLHUP),
// closes the descriptor on its own goroutine.
//
// Every close of the gateway's comes here, and the WebSocket layer's
// too (pollerConn). Closing the descriptor instead would free its number
// while the poller may hold, in the batch of events it is going through,
// one for this socket (the client's FIN, say). The next connection taken over
// is given the lowest free number, this one, and the library looks a
// socket up by number: the stale hang-up is then read as the new
// connection's, which is closed before it is answered (the client sees
// EOF). Closed by the poller while it handles that socket's own event,
// the number has no other event left in the batch. (The library still
// closes a socket itself, off the poller, when a write to it fails: only
// after the client reset the connection.)
//
// The socket's lock keeps the library from closing the descriptor
// between the check and the shutdown, so the shutdown cannot reach a
// later socket of the same number. (Under that lock the library calls
// the gateway back only to count bytes written, which ends no socket; it
// reports a close on another goroutine.)
func (s *nbioSocket) end() {
	if !s.ended.CompareAndSwap(false, true) {
		return
	}
	s.nc.Lock()
	defer s.nc.Unlock()
	if closed, _ := s.nc.IsClosed(); closed {
		return
	}
	rc, err := s.nc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
}

// pollerConn is a socket as the WebSocket layer holds it. That layer
// closes the connection itself after a close frame from the client (the
// gateway's close handler has answered it by then) or a protocol error,
// on a handler's goroutine: its Close ends the socket instead (end), and
// the poller closes the descriptor.
type pollerConn struct {
	*nbio.Conn
	s *nbioSocket
}

func (c pollerConn) Close() error {
	c.s.end()
	return nil
}

// socketOf returns the events socket of a poller connection, or nil.
func socketOf(nc *nbio.Conn) *nbioSocket {
	ws, _ := nc.Session().(*websocket.Conn)
	if ws == nil {
		return nil
	}
	s, _ := ws.Session().(*nbioSocket)
	return s
}

// connOf returns the gateway connection of a WebSocket connection, once
// its setup is done.
func connOf(ws *websocket.Conn) *conn {
	s, _ := ws.Session().(*nbioSocket)
	if s == nil {
		return nil
	}
	c := s.conn.Load()
	if c != nil {
		c.setup.Lock()
		c.setup.Unlock() //nolint:staticcheck // an empty critical section: waits for ServeHTTP to finish the setup
	}
	return c
}

var loggerOnce sync.Once

// setLogger sends the poller library's errors to log; the library's
// logger is one for the process, so the first gateway's log gets them.
func setLogger(log *slog.Logger) {
	loggerOnce.Do(func() { logging.SetLogger(nbioLogger{log}) })
}

// nbioLogger adapts slog to the poller library's logger.
type nbioLogger struct{ log *slog.Logger }

func (nbioLogger) Debug(string, ...any) {}
func (nbioLogger) Info(string, ...any)  {}
func (l nbioLogger) Warn(format string, v ...any) {
	l.log.Warn("events poller", "detail", fmt.Sprintf(format, v...))
}
func (l nbioLogger) Error(format string, v ...any) {
	l.log.Error("events poller", "detail", fmt.Sprintf(format, v...))
}
