//go:build unix

package safeexec

import (
	"bytes"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"
)

// Job control for a relayed terminal. The user's terminal is in raw mode
// while the command runs, so ^Z reaches the command's own terminal as a
// key: there it stops the command (or the command stops itself, as
// editors do), and safeexec, which the user's shell knows as the job,
// would go on waiting with the terminal still raw. So safeexec watches
// the command's foreground process group: once it is stopped, safeexec
// gives the terminal back in its old mode and stops itself the same way
// (SIGTSTP to its own process group), and the shell shows its prompt.
// When the shell continues it (fg), safeexec makes the terminal raw
// again, passes the window size on and continues the command.

// copyInput copies the user's keystrokes to the command's terminal and
// wakes the job watcher when one is the command's suspend key.
func (r *ptyRelay) copyInput() {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.host.Read(buf)
		if n > 0 {
			if _, werr := r.master.Write(buf[:n]); werr != nil {
				return
			}
			if susp, isig, ok := suspendChar(r.master); ok && susp != 0 && bytes.IndexByte(buf[:n], susp) >= 0 {
				select {
				case r.suspendKey <- isig:
				default:
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// stopCheck is how often the watcher looks whether the command stopped
// itself without a key (kill -STOP $$, suspend).
var stopCheck = time.Second

// watchJobs suspends safeexec whenever the command's foreground group is
// stopped, until the relay finishes.
func (r *ptyRelay) watchJobs() {
	tick := time.NewTicker(stopCheck)
	defer tick.Stop()
	for {
		select {
		case <-r.done:
			return
		case isig := <-r.suspendKey:
			r.afterSuspendKey(isig)
		case <-tick.C:
			if pgid, ok := stoppedGroup(r.master); ok {
				r.suspend(pgid)
			}
		}
	}
}

// afterSuspendKey waits a moment for the key to stop the command. When
// the terminal itself turns the key into SIGTSTP (isig) and the command
// does not stop, its process group is orphaned (it leads a session of its
// own: the Landlock fallback and unconfined runs), where the kernel
// discards SIGTSTP: it is then stopped with SIGSTOP, which nothing
// discards.
func (r *ptyRelay) afterSuspendKey(isig bool) {
	for i := 0; i < 15; i++ {
		time.Sleep(20 * time.Millisecond)
		if pgid, ok := stoppedGroup(r.master); ok {
			r.suspend(pgid)
			return
		}
	}
	if !isig {
		return
	}
	pgid, err := foregroundGroup(r.master)
	if err != nil || pgid <= 1 || pgid == syscall.Getpgrp() {
		return
	}
	syscall.Kill(-pgid, syscall.SIGSTOP)
	for i := 0; i < 25; i++ {
		time.Sleep(20 * time.Millisecond)
		if pgid, ok := stoppedGroup(r.master); ok {
			r.suspend(pgid)
			return
		}
	}
}

// suspend gives the user's terminal back and stops safeexec like the job
// it is; once continued, it takes the terminal again and continues the
// command's group pgid.
func (r *ptyRelay) suspend(pgid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	fd := int(r.host.Fd())
	if r.saved != nil {
		term.Restore(fd, r.saved)
	}
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	syscall.Kill(0, syscall.SIGTSTP)
	// Stopped here until the shell continues the job. Nobody may be
	// there to do that (an orphaned process group, where SIGTSTP is
	// discarded): then go on after a moment.
	select {
	case <-cont:
	case <-time.After(500 * time.Millisecond):
	}
	signal.Stop(cont)
	if r.saved != nil {
		term.MakeRaw(fd)
	}
	pty.InheritSize(r.host, r.master)
	syscall.Kill(-pgid, syscall.SIGCONT)
}
