package serve

import (
	"io"
	"sync"
	"time"

	"github.com/safeexec/safeexec"
)

// A connection keeps one warm sandbox (safeexec.StartWarm): after each
// command, the next command's sandbox is built for the same working
// directory while the client is busy elsewhere, and the next create of
// that kind runs its command in it if, by then, it is still exactly the
// sandbox that command needs (checked by the sandbox backend: otherwise
// it is killed unused and a fresh one started). Only one is kept: a
// create of another kind kills it, and so does warmIdle without one (it
// holds the project's file system and a directory of its own).

// warmIdle is how long a warm sandbox waits for its command.
var warmIdle = 5 * time.Minute

// warmSandbox is a warm sandbox and what it was made for.
type warmSandbox struct {
	idle   *time.Timer
	ahead  *safeexec.Ahead
	cwd    string
	script bool
	// out is the command's stdout and stderr, pointed at its terminal's
	// capture when a create takes the sandbox.
	out *lateWriter
}

// lateWriter writes to a writer set later (nothing is written before: a
// warm sandbox's output is copied only once its command is started).
type lateWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lateWriter) set(w io.Writer) {
	l.mu.Lock()
	l.w = w
	l.mu.Unlock()
}

func (l *lateWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	w := l.w
	l.mu.Unlock()
	if w == nil {
		return len(p), nil
	}
	return w.Write(p)
}

// warmSlot is a connection's warm sandbox.
type warmSlot struct {
	mu     sync.Mutex
	w      *warmSandbox
	closed bool
}

// take hands over the warm sandbox if it was made for a command in cwd
// (a script or not); any other is killed.
func (s *warmSlot) take(cwd string, script bool) *warmSandbox {
	s.mu.Lock()
	w := s.w
	s.w = nil
	s.mu.Unlock()
	if w == nil {
		return nil
	}
	w.idle.Stop()
	if w.cwd != cwd || w.script != script {
		go w.ahead.Close()
		return nil
	}
	return w
}

// prepare starts a warm sandbox for the next command like spec's, unless
// the slot holds one or is closed.
func (s *warmSlot) prepare(spec safeexec.AheadSpec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil || s.closed {
		return
	}
	out := &lateWriter{}
	spec.Stdin, spec.Stdout, spec.Stderr = nil, out, out
	a := safeexec.StartWarm(spec)
	if a == nil {
		return
	}
	w := &warmSandbox{ahead: a, cwd: spec.Cwd, script: spec.Script, out: out}
	w.idle = time.AfterFunc(warmIdle, func() { s.expire(w) })
	s.w = w
}

// expire kills w if it still waits in the slot.
func (s *warmSlot) expire(w *warmSandbox) {
	s.mu.Lock()
	mine := s.w == w
	if mine {
		s.w = nil
	}
	s.mu.Unlock()
	if mine {
		w.ahead.Close()
	}
}

// close kills the warm sandbox, and no other is started.
func (s *warmSlot) close() {
	s.mu.Lock()
	w := s.w
	s.w, s.closed = nil, true
	s.mu.Unlock()
	if w != nil {
		w.idle.Stop()
		w.ahead.Close()
	}
}
