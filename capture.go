package safeexec

import (
	"sync"
	"unicode/utf8"
)

// Capture is an io.Writer that keeps what a command writes, up to a limit
// in bytes: once more has been written, only the newest bytes are kept
// (the start is dropped), as a terminal's scroll-back does. Writes and
// reads may come from different goroutines, so a front end can show the
// output of a command that is still running.
//
// It serves --json and `safeexec helper run` (one Capture per stream), and
// suits an ACP terminal's outputByteLimit (one Capture for both streams).
type Capture struct {
	mu    sync.Mutex
	limit int
	// buf holds the kept bytes. Until the limit is reached it grows by
	// appending; from then on it is a ring of exactly limit bytes whose
	// oldest byte is at start.
	buf   []byte
	start int
	ring  bool
	total int64
}

// NewCapture returns a Capture that keeps at most limit bytes; limit <= 0
// keeps everything.
func NewCapture(limit int64) *Capture {
	c := &Capture{}
	if limit > 0 {
		if limit > int64(maxInt) {
			limit = int64(maxInt)
		}
		c.limit = int(limit)
	}
	return c
}

const maxInt = int(^uint(0) >> 1)

// Write keeps the newest bytes of p. It never fails.
func (c *Capture) Write(p []byte) (int, error) {
	n := len(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(n)
	if c.limit == 0 {
		c.buf = append(c.buf, p...)
		return n, nil
	}
	if !c.ring {
		if len(c.buf)+len(p) <= c.limit {
			c.buf = append(c.buf, p...)
			return n, nil
		}
		// Switch to a full ring: the newest limit bytes of buf+p.
		keep := c.limit - min(len(p), c.limit)
		ring := make([]byte, c.limit)
		copy(ring, c.buf[len(c.buf)-min(keep, len(c.buf)):])
		copy(ring[min(keep, len(c.buf)):], p[len(p)-min(len(p), c.limit):])
		c.buf, c.start, c.ring = ring, 0, true
		return n, nil
	}
	if len(p) >= c.limit {
		copy(c.buf, p[len(p)-c.limit:])
		c.start = 0
		return n, nil
	}
	// Overwrite the oldest bytes, wrapping at the end of the ring.
	k := copy(c.buf[c.start:], p)
	copy(c.buf, p[k:])
	c.start = (c.start + len(p)) % c.limit
	return n, nil
}

// Bytes returns a copy of the kept bytes. When bytes were dropped, the
// result starts at the first complete UTF-8 sequence: a character whose
// first bytes were dropped is dropped whole rather than split.
func (c *Capture) Bytes() []byte {
	c.mu.Lock()
	var out []byte
	if c.ring {
		out = make([]byte, 0, c.limit)
		out = append(out, c.buf[c.start:]...)
		out = append(out, c.buf[:c.start]...)
	} else {
		out = append([]byte(nil), c.buf...)
	}
	truncated := c.total > int64(len(out))
	c.mu.Unlock()
	if truncated {
		// At most UTFMax-1 continuation bytes can belong to a character
		// that began before the kept part.
		for i := 0; i < utf8.UTFMax-1 && len(out) > 0 && !utf8.RuneStart(out[0]); i++ {
			out = out[1:]
		}
	}
	return out
}

// Truncated reports whether bytes were dropped.
func (c *Capture) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The ring is only started by a write that does not fit.
	return c.ring
}

// Total is the number of bytes written, kept or not.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
