//go:build unix

package safeexec

import (
	"os"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// hostTerminals remembers the state of the user's terminals that the
// command gets directly: a terminal that is safeexec's stdin, stdout or
// stderr when no pseudo-terminal of its own stands in between (stdin alone
// a terminal, as in "safeexec -- cmd | less"). The command runs in a
// session of its own, so it cannot take such a terminal as its
// controlling one nor push input into it (the seccomp filter refuses
// TIOCSTI and TIOCLINUX besides); but any holder of the descriptor can
// change its settings: echo off, raw mode, ^C disabled (termios), another
// line discipline, exclusive mode (no one else may open it), output
// stopped. All of that is put back once the sandbox is gone, whatever the
// command left.
type hostTerminals struct {
	ttys []*savedTerminal
}

type savedTerminal struct {
	f       *os.File
	termios *unix.Termios
	ldisc   int
	excl    bool
}

// saveTerminals records the terminals among files (nil for none).
func saveTerminals(files ...any) *hostTerminals {
	var h hostTerminals
	seen := map[uint64]bool{}
	for _, rw := range files {
		f, ok := rw.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) != nil || seen[uint64(st.Rdev)] {
			continue
		}
		seen[uint64(st.Rdev)] = true
		fd := int(f.Fd())
		t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
		if err != nil {
			continue
		}
		s := &savedTerminal{f: f, termios: t, ldisc: -1}
		if d, err := unix.IoctlGetInt(fd, unix.TIOCGETD); err == nil {
			s.ldisc = d
		}
		s.excl = terminalExclusive(fd)
		h.ttys = append(h.ttys, s)
	}
	if len(h.ttys) == 0 {
		return nil
	}
	return &h
}

// restore puts every recorded terminal back as it was. It is called once
// no process of the sandbox is left to change it again.
func (h *hostTerminals) restore() {
	if h == nil {
		return
	}
	for _, s := range h.ttys {
		fd := int(s.f.Fd())
		if s.ldisc >= 0 {
			if d, err := unix.IoctlGetInt(fd, unix.TIOCGETD); err == nil && d != s.ldisc {
				unix.IoctlSetPointerInt(fd, unix.TIOCSETD, s.ldisc)
			}
		}
		if !s.excl {
			unix.IoctlSetInt(fd, unix.TIOCNXCL, 0)
		}
		resumeOutput(fd) // stopped with TCOOFF, or ^S in raw mode
		unix.IoctlSetTermios(fd, ioctlSetTermios, s.termios)
	}
}
