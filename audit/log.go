package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// maxCommandBytes bounds how much of a command (argv or script) one record
// keeps; longer commands are cut with a marker saying how much was left
// out.
const maxCommandBytes = 256 << 10

// Log is an audit log open for appending. It is safe for concurrent use by
// goroutines; concurrent processes are serialised by an advisory lock.
type Log struct {
	path string
	sync bool

	mu sync.Mutex
	f  *os.File
}

// ErrSymlink is returned by Open when the log's final path component is a
// symbolic link.
var ErrSymlink = errors.New("audit log is a symbolic link")

// Open opens (creating if needed) the audit log at path for appending. The
// directory is created with mode 0700 and the file with 0600; an existing
// file readable by others is narrowed to 0600. A path whose final
// component is a symbolic link, or that is not a regular file, is refused.
// With sync, every Append waits for the record to reach the disk.
func Open(path string, sync bool) (*Log, error) {
	if path == "" {
		return nil, errors.New("open audit log: empty path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	return &Log{path: path, sync: sync, f: f}, nil
}

// Path is the log's file name.
func (l *Log) Path() string { return l.path }

// Append writes r as one JSON line: one write(2) to a file opened with
// O_APPEND, under an exclusive advisory lock, followed by fsync when the
// log was opened with sync. Token-shaped secrets are redacted from the
// written copy whether or not the caller called Redact (r itself is not
// changed), and an overlong command is cut.
func (l *Log) Append(r *Record) error {
	line, err := encodeLine(r)
	if err != nil {
		return fmt.Errorf("append audit record: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("append audit record: log %s is closed", l.path)
	}
	if err := writeLocked(l.f, line, l.sync); err != nil {
		return fmt.Errorf("append audit record to %s: %w", l.path, err)
	}
	return nil
}

// Close closes the log.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Warm encodes r and throws the result away: the first record a process
// encodes pays for building the encoder (reflection over the record's
// types) and for the redaction patterns its text calls for. A run warms
// up while its command runs, so that appending its record after the
// command ends costs little.
func Warm(r *Record) {
	encodeLine(r)
}

// encodeLine renders a redacted, bounded copy of r followed by a newline.
func encodeLine(r *Record) ([]byte, error) {
	c := r.clone()
	c.Redact(nil)
	c.bound()
	return encodeJSON(c.jsonValue())
}

// clone copies r deeply enough that redaction of the copy leaves r alone.
func (r *Record) clone() *Record {
	c := *r
	c.Argv = append([]string(nil), r.Argv...)
	if r.Argv != nil && len(r.Argv) == 0 {
		c.Argv = []string{}
	}
	c.Reasons = append([]Reason(nil), r.Reasons...)
	return &c
}

// bound cuts an overlong command so one record stays a reasonable line.
func (r *Record) bound() {
	if len(r.Script) > maxCommandBytes {
		r.Script = cut(r.Script, maxCommandBytes)
	}
	total := 0
	for i, a := range r.Argv {
		if total+len(a) > maxCommandBytes {
			r.Argv[i] = cut(a, max(maxCommandBytes-total, 0))
			r.Argv = append(r.Argv[:i+1], fmt.Sprintf("[%d more arguments cut]", len(r.Argv)-i-1))
			break
		}
		total += len(a)
	}
}

func cut(s string, n int) string {
	// Back up to a UTF-8 boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + fmt.Sprintf("[%d bytes cut]", len(s)-n)
}
