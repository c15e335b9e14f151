package gateway

import (
	"sync"
)

// A connection's work — frames from the bus to route, packets built for
// it, subscription changes — waits in its queue and is done in order, one
// round at a time: a round takes every job waiting, renders the frames
// they produce into one buffer and writes it with one system call.
//
// Rounds are run by a few writer goroutines shared by all connections,
// taking the connections with work in turn from a ready list. Under load
// the list grows, each connection's turn comes later, more frames have
// waited for it, and the cost of a write is shared by more frames. (With
// a goroutine per busy connection the scheduler runs thousands of writers
// before the dispatcher again, and each writes a frame or two.)
//
// A writer never waits for a client: the socket takes the whole batch,
// keeping what the kernel does not take at once until the client reads
// (see socket.Write). A client that stays behind is cut by the send queue
// bound: frames queued count against it, and so do frames written while
// bytes were still held for the client (conn.backlog).

// job is one unit of a connection's queue: a frame from the bus on topic
// (in set) or a function (f set).
type job struct {
	topic string
	in    *incoming
	f     func()
}

// Writer goroutines take up to takeConns ready connections at once;
// batch buffers larger than keepBuffer are not kept for reuse.
const (
	takeConns  = 64
	keepBuffer = 256 << 10
)

// writers is the ready list and the shared writer goroutines.
type writers struct {
	mu     sync.Mutex
	wake   *sync.Cond
	ready  []*conn // connections with work, in turn order, from head
	head   int
	closed bool
	done   sync.WaitGroup
}

// start runs n writer goroutines for g.
func (w *writers) start(g *Gateway, n int) {
	w.wake = sync.NewCond(&w.mu)
	for range n {
		w.done.Add(1)
		go func() {
			defer w.done.Done()
			g.writeLoop()
		}()
	}
}

// stop ends the writer goroutines once the ready list is empty.
func (w *writers) stop() {
	w.mu.Lock()
	w.closed = true
	w.wake.Broadcast()
	w.mu.Unlock()
	w.done.Wait()
}

// schedule puts c at the end of the ready list.
func (w *writers) schedule(c *conn) {
	w.mu.Lock()
	w.ready = append(w.ready, c)
	w.wake.Signal()
	w.mu.Unlock()
}

// take waits for ready connections and moves up to takeConns of them to
// buf. It returns false when the writers stop.
func (w *writers) take(buf []*conn) ([]*conn, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.head == len(w.ready) && !w.closed {
		w.wake.Wait()
	}
	if w.head == len(w.ready) {
		return buf, false
	}
	n := min(len(w.ready)-w.head, takeConns)
	buf = append(buf, w.ready[w.head:w.head+n]...)
	clear(w.ready[w.head : w.head+n])
	w.head += n
	switch {
	case w.head == len(w.ready):
		w.ready, w.head = w.ready[:0], 0
	case w.head >= 1024 && 2*w.head >= len(w.ready):
		k := copy(w.ready, w.ready[w.head:])
		clear(w.ready[k:])
		w.ready, w.head = w.ready[:k], 0
	}
	if w.head < len(w.ready) {
		w.wake.Signal() // more for another writer
	}
	return buf, true
}

// writeLoop is one shared writer: it runs a round of each ready
// connection in turn.
func (g *Gateway) writeLoop() {
	var conns []*conn
	var spare []job
	out := g.buffers.Get().(*[]byte)
	for {
		var ok bool
		conns, ok = g.writers.take(conns[:0])
		if !ok {
			g.buffers.Put(out)
			return
		}
		for i, c := range conns {
			spare = c.round(spare, out)
			conns[i] = nil
		}
		if cap(*out) > keepBuffer {
			out = g.buffers.Get().(*[]byte)
		}
	}
}

// push appends j to the queue, already counted by reserve, and puts the
// connection on the ready list unless it is there or being written.
func (c *conn) push(j job) {
	if c.pushHeld(j) {
		c.g.writers.schedule(c)
	}
}

// pushHeld appends j to the queue and reports whether the connection
// was idle (neither on the ready list nor being written). An idle
// connection is now the caller's to start: push puts it on the ready
// list, a handshake runs its round itself (roundHere); pushes meanwhile
// queue behind j.
func (c *conn) pushHeld(j job) bool {
	c.qmu.Lock()
	c.queue = append(c.queue, j)
	own := !c.running
	c.running = true
	c.qmu.Unlock()
	return own
}

// roundHere runs a round on the calling goroutine, for pushHeld's
// caller.
func (c *conn) roundHere() {
	out := c.g.buffers.Get().(*[]byte)
	c.round(nil, out)
	if cap(*out) <= keepBuffer {
		c.g.buffers.Put(out)
	}
}

// round runs the jobs waiting on a shared writer and writes their frames
// into out without waiting. It then puts the connection back on the
// ready list if more work came. spare is an empty job slice to lend the
// queue; the one returned replaces it.
func (c *conn) round(spare []job, out *[]byte) []job {
	c.qmu.Lock()
	jobs := c.queue
	c.queue = spare
	c.qmu.Unlock()
	c.out = out
	c.run(jobs)
	c.flush()
	c.out = nil
	if r := c.res; r != nil && r.held.Load() {
		if c.closeCode != 0 {
			c.endHold(true) // logged out while away
		} else {
			c.storeHeld()
		}
	} else if code := c.closeCode; code != 0 {
		c.closeWith(code, "")
	}
	c.qmu.Lock()
	if len(c.queue) == 0 {
		c.running = false
		c.queue = nil
		c.qmu.Unlock()
	} else {
		c.qmu.Unlock()
		c.g.writers.schedule(c)
	}
	return jobs[:0]
}

// run does jobs in order, rendering their frames into c.out. Jobs after
// one that closes the connection are dropped.
func (c *conn) run(jobs []job) {
	for i := range jobs {
		if !c.stopped() && c.closeCode == 0 {
			if jobs[i].f != nil {
				jobs[i].f()
			} else {
				c.handle(jobs[i].topic, jobs[i].in)
			}
		}
		jobs[i] = job{}
		c.pending.Add(-1)
	}
}

// closeAfter closes the connection with code once the frames written so
// far in this round are sent; the round's later jobs are dropped. Run in
// a round.
func (c *conn) closeAfter(code uint16) {
	c.closeCode = code
}

// write adds a frame holding b to the batch. Run in a round; nothing is
// added once the connection is closing. A resumable connection numbers
// it and keeps it (resume.go).
func (c *conn) write(b []byte) {
	if r := c.res; r != nil && r.numbered && b != nil {
		c.record(b)
		return
	}
	op := byte(opText)
	if c.binary {
		op = opBinary
	}
	c.writeFrame(op, b)
}

// writeFrame adds a frame of opcode op holding b to the batch.
func (c *conn) writeFrame(op byte, b []byte) {
	if c.closing.Load() || c.closeCode != 0 || b == nil {
		return
	}
	*c.out = appendFrame(*c.out, op, b)
	c.batched++
}

// flush writes the batch without waiting. A connection whose client has
// fallen SendQueue frames behind is cut, as is one whose write failed.
func (c *conn) flush() {
	b := *c.out
	if len(b) == 0 {
		return
	}
	*c.out = b[:0]
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closing.Load() {
		return
	}
	frames := c.batched
	c.count()
	held, err := c.ws.Write(b)
	switch {
	case err != nil:
		c.cut()
	case !held:
		c.backlog = 0
	default:
		// The kernel's buffer is full: these frames wait for the
		// client, after those of earlier such writes.
		c.backlog += frames
		if c.backlog > c.g.sendQueue {
			c.dropSlow()
		}
	}
}

// count adds the batch to the gateway's write statistics.
func (c *conn) count() {
	c.g.stats.writes.Add(1)
	c.g.stats.frames.Add(uint64(c.batched))
	c.batched = 0
}

// cut closes a connection whose write failed.
func (c *conn) cut() {
	c.closing.Store(true)
	c.ws.Abort()
}
