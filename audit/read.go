package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Query selects records. The zero Query selects all.
type Query struct {
	// Last keeps only the last N matching records (0: all).
	Last int
	// Since keeps records at or after this time (zero: all).
	Since time.Time
}

// tailChunk is how much Read reads at a time when it looks for the last
// records from the end of the file.
const tailChunk = 64 << 10

// Read returns the records of the log at path that match q, oldest first.
// A line that is not a complete record (a torn last line, a line damaged
// on disk) is skipped. A missing log has no records.
func Read(path string, q Query) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	defer f.Close()
	if q.Last > 0 && q.Since.IsZero() {
		return readTail(f, q.Last)
	}
	var out []Record
	err = eachRecord(f, func(r Record) {
		if !q.Since.IsZero() && r.Time.Before(q.Since) {
			return
		}
		out = append(out, r)
		if q.Last > 0 && len(out) > 2*q.Last {
			out = append(out[:0], out[len(out)-q.Last:]...)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", path, err)
	}
	if q.Last > 0 && len(out) > q.Last {
		out = out[len(out)-q.Last:]
	}
	return out, nil
}

// eachRecord calls fn for every complete, parseable line of r.
func eachRecord(r io.Reader, fn func(Record)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			if rec, ok := parseLine(line); ok {
				fn(rec)
			}
		}
		if err == io.EOF {
			return nil // a last line without a newline is torn: skipped
		}
		if err != nil {
			return err
		}
	}
}

func parseLine(line []byte) (Record, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Record{}, false
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{}, false
	}
	return r, true
}

// readTail reads backwards from the end in chunks until it holds n
// complete records (or reaches the start), so that `audit -n 20` on a large
// log reads a few kilobytes.
func readTail(f *os.File, n int) ([]Record, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	end := fi.Size()
	var buf []byte
	off := end
	for {
		step := int64(tailChunk)
		if off < step {
			step = off
		}
		off -= step
		chunk := make([]byte, step)
		if _, err := f.ReadAt(chunk, off); err != nil && err != io.EOF {
			return nil, fmt.Errorf("read audit log: %w", err)
		}
		buf = append(chunk, buf...)
		// Complete lines in buf: those after the first newline, unless we
		// are at the start of the file.
		body := buf
		if off > 0 {
			i := bytes.IndexByte(body, '\n')
			if i < 0 {
				continue
			}
			body = body[i+1:]
		}
		recs := parseAll(body)
		if len(recs) >= n || off == 0 {
			if len(recs) > n {
				recs = recs[len(recs)-n:]
			}
			return recs, nil
		}
	}
}

func parseAll(b []byte) []Record {
	var out []Record
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break // torn last line
		}
		if r, ok := parseLine(b[:i]); ok {
			out = append(out, r)
		}
		b = b[i+1:]
	}
	return out
}

// followPoll is how often Follow looks for new records; tests shorten it.
var followPoll = 250 * time.Millisecond

// Follow calls fn for every record appended to the log at path after
// Follow starts, until ctx is done (then it returns nil). It waits for a
// missing log to appear, and starts over when the log is truncated or
// replaced. A partly written line is held back until its newline arrives.
func Follow(ctx context.Context, path string, fn func(Record)) error {
	var (
		f       *os.File
		offset  int64
		pending []byte
		first   = true
	)
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	tick := time.NewTicker(followPoll)
	defer tick.Stop()
	buf := make([]byte, 64<<10)
	for {
		if f == nil {
			nf, err := os.Open(path)
			switch {
			case err == nil:
				f = nf
				offset, pending = 0, nil
				if first {
					// Existing records are history, not news.
					if fi, err := f.Stat(); err == nil {
						offset = fi.Size()
					}
				}
			case !errors.Is(err, fs.ErrNotExist):
				return fmt.Errorf("follow audit log: %w", err)
			}
			first = false
		}
		if f != nil {
			if replaced(f, path, offset) {
				f.Close()
				f = nil
				continue
			}
			for {
				n, err := f.ReadAt(buf, offset)
				if n > 0 {
					offset += int64(n)
					pending = append(pending, buf[:n]...)
					for {
						i := bytes.IndexByte(pending, '\n')
						if i < 0 {
							break
						}
						if r, ok := parseLine(pending[:i]); ok {
							fn(r)
						}
						pending = pending[i+1:]
					}
				}
				if err != nil || n < len(buf) {
					break
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// replaced reports whether the file open as f is no longer the one at path
// or has shrunk below what was read (rotated or truncated).
func replaced(f *os.File, path string, offset int64) bool {
	cur, err := f.Stat()
	if err != nil {
		return true
	}
	if cur.Size() < offset {
		return true
	}
	now, err := os.Stat(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return !os.SameFile(cur, now)
}
