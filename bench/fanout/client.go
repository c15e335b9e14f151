package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ermine/internal/wsload"
)

// client is one events connection: a raw WebSocket client that reads
// server frames on its own goroutine, keeping a small buffer and
// allocating nothing per frame.
type client struct {
	kind   target
	index  int
	conn   net.Conn
	r      *bufio.Reader
	frames *wsload.Reader // reads r after the upgrade, reusing one buffer
	seen   []uint64       // bit per message sequence number received

	// The events resume extension (docs/events-resume.md): resume is
	// what the connection asked for ("" none, "1" a resumable
	// connection, else the resume id to take over, with seq).
	resume   string
	resumeID string       // the Ready's resume_id
	seq      atomic.Int64 // of the last frame read
	resumed  bool         // the handshake ended with Resumed, not Ready
	readyAt  time.Time    // when Ready or Resumed was read
	counted  *countingReader
	received int64         // bytes read up to Ready or Resumed, upgrade answer included
	done     chan struct{} // closed when read returns
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// recorder collects what every connection receives.
type recorder struct {
	conns  int
	sentAt []atomic.Int64 // per message: when its send began, Unix ns
	got    []atomic.Int32 // per message: connections that received it
	// lat holds the send→receive latency (µs) of every delivery of the
	// messages below latencyEnd, in arrival order.
	lat        []atomic.Int32
	latNext    atomic.Int64
	latencyEnd int
	dups       atomic.Int64 // deliveries of a message a connection already had
	frames     atomic.Int64 // frames of any type
	closed     atomic.Int64 // connections that ended during the run
}

func newRecorder(conns, messages, latencyMessages int) *recorder {
	return &recorder{conns: conns, sentAt: make([]atomic.Int64, messages), got: make([]atomic.Int32, messages),
		lat: make([]atomic.Int32, latencyMessages*conns), latencyEnd: latencyMessages}
}

// dropped is the number of connections that ended during the run.
func (r *recorder) dropped() int64 { return r.closed.Load() }

// receive notes that connection c received message seq at now.
func (r *recorder) receive(c *client, seq int, now int64) {
	if seq < 0 || seq >= len(r.got) {
		return
	}
	word, bit := seq/64, uint64(1)<<(seq%64)
	// Atomic: the storm reads seen while late frames may still come.
	if atomic.OrUint64(&c.seen[word], bit)&bit != 0 {
		r.dups.Add(1)
		return
	}
	if seq < r.latencyEnd {
		if i := r.latNext.Add(1) - 1; i < int64(len(r.lat)) {
			r.lat[i].Store(int32(min((now-r.sentAt[seq].Load())/1000, 1<<31-1)))
		}
	}
	r.got[seq].Add(1)
}

// connectAll opens one connection per user of w, dialers at a time, the
// i-th to node i mod len(addrs), and starts their readers. It returns the connections opened, with the
// first error when one failed.
// With resume "1" each asks for a resumable connection.
func connectAll(ctx context.Context, addrs []string, w *world, rec *recorder, dialers int, resume string) ([]*client, error) {
	clients := make([]*client, len(w.users))
	first := inParallel(ctx, len(clients), dialers, func(i int) error {
		c, err := dialResume(ctx, w.kind, addrs[i%len(addrs)], w.users[i].Token, i, make([]uint64, (len(rec.got)+63)/64), resume, 0)
		if err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
		clients[i] = c
		go c.read(rec)
		return nil
	})
	opened := clients[:0]
	for _, c := range clients {
		if c != nil {
			opened = append(opened, c)
		}
	}
	return opened, first
}

// closeAll closes the connections.
func closeAll(clients []*client) {
	for _, c := range clients {
		c.conn.Close()
	}
}

// dialResume opens an events connection with token, asking for the
// resume extension (resume "1"), or to resume the stream resume after
// seq, and reads up to its Ready or Resumed. seen is the bit set of the
// messages received, carried over from the connection it replaces.
func dialResume(ctx context.Context, kind target, addr, token string, index int, seen []uint64, resume string, seq int64) (*client, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	counted := &countingReader{r: conn}
	r := bufio.NewReaderSize(counted, 4096)
	c := &client{kind: kind, index: index, conn: conn, r: r, frames: wsload.NewReader(r), seen: seen,
		resume: resume, counted: counted, done: make(chan struct{})}
	c.seq.Store(seq)
	if err := c.handshake(addr, token); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// handshake upgrades the connection, authenticating with the URL token,
// and reads Authenticated and Ready within 60 seconds.
func (c *client) handshake(addr, token string) error {
	if err := c.conn.SetDeadline(time.Now().Add(60 * time.Second)); err != nil {
		return err
	}
	var key [16]byte
	_, _ = rand.Read(key[:])
	target := upgradePath(c.kind)
	if c.kind == targetErmine {
		q := url.Values{"version": {"1"}, "format": {"json"}, "token": {token}}
		if c.resume != "" {
			q.Set("resume", c.resume)
		}
		if c.resume != "" && c.resume != "1" {
			q.Set("seq", strconv.FormatInt(c.seq.Load(), 10))
		}
		target += "?" + q.Encode()
	}
	_, err := fmt.Fprintf(c.conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", target, addr, base64.StdEncoding.EncodeToString(key[:]))
	if err != nil {
		return err
	}
	status, err := c.r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("read upgrade answer: %w", err)
	}
	if !strings.HasPrefix(status, "HTTP/1.1 101") {
		return fmt.Errorf("upgrade refused: %s", strings.TrimSpace(status))
	}
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("read upgrade headers: %w", err)
		}
		if line == "\r\n" {
			break
		}
	}
	switch c.kind {
	case targetFloor:
		return c.conn.SetDeadline(time.Time{})
	case targetCentrifugo:
		return c.subscribe(token)
	}
	for {
		p, err := c.frame()
		if err != nil {
			return fmt.Errorf("read until Ready: %w", err)
		}
		switch {
		case bytes.HasPrefix(p, []byte(`{"type":"Ready"`)):
			c.received, c.readyAt = c.counted.n, time.Now()
			if c.resume != "" {
				id, ok := resumeID(p)
				if !ok {
					return errors.New("no resume_id in the Ready")
				}
				c.resumeID = id
				c.seq.Store(0)
			}
			return c.conn.SetDeadline(time.Time{})
		case bytes.HasPrefix(p, []byte(`{"type":"Resumed"`)):
			c.received, c.readyAt = c.counted.n, time.Now()
			c.resumed = true
			c.resumeID = c.resume
			if s, ok := frameSeq(p); ok {
				c.seq.Store(s)
			}
			return c.conn.SetDeadline(time.Time{})
		case bytes.HasPrefix(p, []byte(`{"type":"Error"`)):
			return fmt.Errorf("server: %s", p)
		}
	}
}

// subscribe sends Centrifugo's connect command with token and subscribes
// to the channel, reading until the subscription is confirmed.
func (c *client) subscribe(token string) error {
	cmds := fmt.Sprintf(`{"id":1,"connect":{"token":%q}}`+"\n"+`{"id":2,"subscribe":{"channel":%q}}`, token, centrifugoChannel)
	f, err := clientFrame([]byte(cmds))
	if err != nil {
		return err
	}
	if _, err := c.conn.Write(f); err != nil {
		return err
	}
	for {
		p, err := c.frame()
		if err != nil {
			return fmt.Errorf("read until subscribed: %w", err)
		}
		if bytes.Contains(p, []byte(`"error"`)) {
			return fmt.Errorf("centrifugo: %s", p)
		}
		if bytes.Contains(p, []byte(`"id":2`)) {
			return c.conn.SetDeadline(time.Time{})
		}
	}
}

// frame reads the next data frame's payload (valid until the next call).
func (c *client) frame() ([]byte, error) { return c.frames.Next() }

// messagePrefix starts every Message frame; contentPrefix starts the
// content the sender writes, followed by the sequence number.
const (
	messagePrefix = `{"type":"Message"`
	contentPrefix = `"content":"fanout seq=`
)

// resumeID is the resume_id of a Ready frame.
func resumeID(p []byte) (string, bool) {
	const key = `"resume_id":"`
	i := bytes.Index(p, []byte(key))
	if i < 0 {
		return "", false
	}
	rest := p[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 {
		return "", false
	}
	return string(rest[:j]), true
}

// frameSeq is the seq a resumable connection's frame ends with
// (`,"seq":N}`).
func frameSeq(p []byte) (int64, bool) {
	const key = `"seq":`
	i := bytes.LastIndex(p, []byte(key))
	if i < 0 {
		return 0, false
	}
	var n int64
	digits := 0
	for _, b := range p[i+len(key):] {
		if b < '0' || b > '9' {
			break
		}
		n = n*10 + int64(b-'0')
		digits++
	}
	return n, digits > 0
}

// read records the messages arriving until the connection ends.
func (c *client) read(rec *recorder) {
	if c.done != nil {
		defer close(c.done)
	}
	for {
		p, err := c.frame()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				rec.closed.Add(1)
			}
			return
		}
		now := time.Now().UnixNano()
		rec.frames.Add(1)
		if c.resume != "" {
			if s, ok := frameSeq(p); ok {
				c.seq.Store(s)
			}
		}
		switch c.kind {
		case targetErmine:
			if !bytes.HasPrefix(p, []byte(messagePrefix)) {
				continue
			}
		case targetCentrifugo:
			// Centrifugo's ping is an empty reply, alone or as one line
			// of a frame: answer with an empty command or be dropped.
			if isPing(p) {
				if f, err := clientFrame([]byte("{}")); err == nil {
					_, _ = c.conn.Write(f)
				}
			}
		}
		// Centrifugo may put several pushes in one frame, a line each.
		for {
			i := bytes.Index(p, []byte(contentPrefix))
			if i < 0 {
				break
			}
			p = p[i+len(contentPrefix):]
			seq := 0
			for _, b := range p {
				if b < '0' || b > '9' {
					break
				}
				seq = seq*10 + int(b-'0')
			}
			rec.receive(c, seq, now)
		}
	}
}

// waitQuiet waits until no frame arrived for quiet, at most max. It
// reports whether that happened.
func waitQuiet(ctx context.Context, rec *recorder, quiet, max time.Duration) bool {
	deadline := time.Now().Add(max)
	last, since := rec.frames.Load(), time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
		if n := rec.frames.Load(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) >= quiet {
			return true
		}
	}
	return false
}

// isPing reports whether a Centrifugo frame holds a ping: a line "{}".
func isPing(p []byte) bool {
	for line := range bytes.Lines(p) {
		if string(bytes.TrimSpace(line)) == "{}" {
			return true
		}
	}
	return false
}

// inParallel runs f for 0 ≤ i < n on workers goroutines, stopping at the
// first error, which it returns (else the context's error).
func inParallel(ctx context.Context, n, workers int, f func(i int) error) error {
	var next atomic.Int64
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				mu.Lock()
				failed := first != nil
				mu.Unlock()
				if i >= n || failed || ctx.Err() != nil {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
