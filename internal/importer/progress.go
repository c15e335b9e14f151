package importer

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress shows how far each collection is: a bar redrawn in place on a
// terminal, a plain line every few seconds otherwise.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	name     string
	total    int64
	first    int64 // documents done when this run began
	began    time.Time
	last     time.Time
}

// How often progress is redrawn on a terminal and written as lines.
const (
	barEvery  = 100 * time.Millisecond
	lineEvery = 5 * time.Second
	barWidth  = 30
)

func newProgress(w io.Writer, terminal bool) *progress {
	return &progress{w: w, terminal: terminal}
}

func (p *progress) start(name string, total, done int64) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.name, p.total, p.first, p.began, p.last = name, total, done, time.Now(), time.Now()
	if p.terminal {
		p.draw(done)
		return
	}
	if done > 0 {
		fmt.Fprintf(p.w, "import: %s: resuming after %d documents\n", name, done)
	} else {
		fmt.Fprintf(p.w, "import: %s: %s documents\n", name, count(total))
	}
}

func (p *progress) update(name string, done int64) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	switch {
	case p.terminal && now.Sub(p.last) >= barEvery:
		p.draw(done)
	case !p.terminal && now.Sub(p.last) >= lineEvery:
		fmt.Fprintf(p.w, "import: %s: %d/%s%s, %s/s\n", name, done, count(p.total), percent(done, p.total), rate(done-p.first, now.Sub(p.began)))
	default:
		return
	}
	p.last = now
}

func (p *progress) end(name string, done, imported, skipped int64, took time.Duration) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		p.total = max(p.total, done)
		p.draw(done)
		fmt.Fprintln(p.w)
	}
	fmt.Fprintf(p.w, "import: %s: done, %d imported, %d left out, %s (%s/s)\n", name, imported, skipped,
		took.Round(time.Millisecond), rate(done-p.first, took))
}

// draw redraws the bar line of the current collection.
func (p *progress) draw(done int64) {
	bar := strings.Repeat("·", barWidth)
	if p.total > 0 {
		n := int(min(done, p.total) * barWidth / p.total)
		bar = strings.Repeat("█", n) + strings.Repeat("·", barWidth-n)
	}
	fmt.Fprintf(p.w, "\r\x1b[K%-20s %s %d/%s%s %s/s", p.name, bar, done, count(p.total), percent(done, p.total),
		rate(done-p.first, time.Since(p.began)))
}

func count(n int64) string {
	if n < 0 {
		return "?"
	}
	return fmt.Sprint(n)
}

func percent(done, total int64) string {
	if total <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%d%%)", min(done, total)*100/total)
}

func rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return fmt.Sprintf("%.0f", float64(n)/d.Seconds())
}
