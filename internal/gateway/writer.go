package gateway

// A connection's work — frames from the bus to route, packets built for
// it, subscription changes — waits in its queue and is done in order by a
// writer goroutine that exists only while the queue has work. The writer
// takes every job waiting, renders the frames they produce into one
// buffer and writes the buffer with one system call: a connection that
// receives faster than it drains gets its frames in ever larger batches,
// so under load the cost of a write is shared by many frames.

// job is one unit of a connection's queue: a frame from the bus on topic
// (in set) or a function (f set).
type job struct {
	topic string
	in    *incoming
	f     func()
}

// Batches are flushed once they reach flushAt bytes; buffers larger than
// keepBuffer are not kept for reuse.
const (
	flushAt    = 64 << 10
	keepBuffer = 256 << 10
)

// push appends j to the queue, already counted by reserve, and starts the
// writer when none runs.
func (c *conn) push(j job) {
	c.qmu.Lock()
	c.queue = append(c.queue, j)
	start := !c.running
	c.running = true
	c.qmu.Unlock()
	if start {
		go c.run()
	}
}

// run is the writer: it does the queued jobs in rounds until the queue is
// empty, each round ending with one write of the frames it produced.
func (c *conn) run() {
	var spare []job
	for {
		c.qmu.Lock()
		jobs := c.queue
		if len(jobs) == 0 {
			// The buffer goes back before the next writer may start.
			c.release()
			c.running = false
			c.queue = nil
			c.qmu.Unlock()
			return
		}
		c.queue = spare
		c.qmu.Unlock()
		for i := range jobs {
			if !c.closing.Load() {
				if jobs[i].f != nil {
					jobs[i].f()
				} else {
					c.handle(jobs[i].topic, jobs[i].in)
				}
			}
			jobs[i] = job{}
			c.pending.Add(-1)
		}
		c.flush()
		spare = jobs[:0]
	}
}

// write adds a frame holding b to the batch. Run on the writer; nothing
// is added once the connection is closing.
func (c *conn) write(b []byte) {
	if c.closing.Load() || b == nil {
		return
	}
	if c.out == nil {
		c.out = c.g.buffers.Get().(*[]byte)
	}
	*c.out = appendFrame(*c.out, c.binary, b)
	if len(*c.out) >= flushAt {
		c.flush()
	}
}

// flush writes the batch. A failed write cuts the connection, whose read
// loop then ends and cleans up. Run on the writer.
func (c *conn) flush() {
	if c.out == nil || len(*c.out) == 0 {
		return
	}
	c.wmu.Lock()
	if !c.closing.Load() {
		if err := c.ws.WriteFrames(*c.out); err != nil {
			c.closing.Store(true)
			c.ws.Abort()
		}
	}
	c.wmu.Unlock()
	*c.out = (*c.out)[:0]
}

// release gives the batch buffer back when the writer stops.
func (c *conn) release() {
	if c.out == nil {
		return
	}
	if cap(*c.out) <= keepBuffer {
		*c.out = (*c.out)[:0]
		c.g.buffers.Put(c.out)
	}
	c.out = nil
}
