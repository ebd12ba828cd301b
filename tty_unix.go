//go:build unix

package safeexec

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// ptyRelay gives an interactive command a terminal of its own. The sandbox
// starts the command in a new session, away from the user's terminal (so
// it cannot push keystrokes into it), which leaves editors, pagers and
// password prompts without /dev/tty. When safeexec's stdin and stdout are
// a terminal, the command instead gets a fresh pseudo-terminal as its
// controlling terminal, and safeexec copies bytes between it and the
// user's terminal (put in raw mode meanwhile), as ssh -t does.
type ptyRelay struct {
	host   *os.File // the user's terminal (safeexec's stdin)
	out    io.Writer
	master *os.File
	slave  *os.File
	saved  *term.State

	winch    chan os.Signal
	copied   sync.WaitGroup
	draining atomic.Bool

	// Job control (jobs_unix.go): typed suspend keys wake the watcher;
	// mu keeps a suspension and finish apart; done ends the watcher.
	suspendKey chan bool
	mu         sync.Mutex
	finished   bool
	done       chan struct{}
}

// openPTY returns a relay when stdin and stdout are both terminals, nil
// otherwise (nothing interactive to serve: pipes and files pass through).
func openPTY(stdin io.Reader, stdout io.Writer) (*ptyRelay, error) {
	in, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return nil, nil
	}
	out, ok := stdout.(*os.File)
	if !ok || !term.IsTerminal(int(out.Fd())) {
		return nil, nil
	}
	master, slave, err := pty.Open()
	if err != nil {
		return nil, err
	}
	if master, err = pollable(master); err != nil {
		slave.Close()
		return nil, err
	}
	r := &ptyRelay{host: in, out: out, master: master, slave: slave}
	// The new terminal starts with the user's window size, in the cooked
	// mode a fresh shell expects.
	pty.InheritSize(in, master)
	return r, nil
}

// start puts the user's terminal in raw mode and begins copying. It is
// called once the command has started.
func (r *ptyRelay) start() {
	if st, err := term.MakeRaw(int(r.host.Fd())); err == nil {
		r.saved = st
	}
	r.winch = make(chan os.Signal, 1)
	signal.Notify(r.winch, syscall.SIGWINCH)
	go func() {
		for range r.winch {
			pty.InheritSize(r.host, r.master)
		}
	}()
	// Keystrokes: this goroutine may stay blocked in a read of the user's
	// terminal after the command ends; it dies with safeexec.
	r.suspendKey = make(chan bool, 1)
	r.done = make(chan struct{})
	go r.copyInput()
	go r.watchJobs()
	r.copied.Add(1)
	go func() {
		defer r.copied.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := r.master.Read(buf)
			if n > 0 {
				if _, werr := r.out.Write(buf[:n]); werr != nil {
					return
				}
				if r.draining.Load() {
					r.master.SetReadDeadline(time.Now().Add(drainIdle))
				}
			}
			if err != nil {
				return
			}
		}
	}()
}

// drainIdle is how long the relay waits for more output once the
// sandbox is gone: what the command wrote last is still in the terminal's
// buffer then, and Linux may report the hang-up (EIO) before it has been
// read if the last descriptor of the terminal closes first.
var drainIdle = 30 * time.Millisecond

// closeSlave drops safeexec's own copy of the command's side.
func (r *ptyRelay) closeSlave() {
	if r.slave != nil {
		r.slave.Close()
		r.slave = nil
	}
}

// finish, called once the sandbox is gone, copies the command's last
// output and restores the user's terminal. safeexec's own copy of the
// command's side stays open until then, so the terminal cannot hang up
// with output unread.
func (r *ptyRelay) finish() {
	r.mu.Lock()
	r.finished = true
	close(r.done)
	r.mu.Unlock()
	r.draining.Store(true)
	if err := r.master.SetReadDeadline(time.Now().Add(drainIdle)); err != nil {
		// Not pollable: end the copy by hanging up instead.
		r.closeSlave()
	}
	r.copied.Wait()
	r.closeSlave()
	r.master.Close()
	if r.winch != nil {
		signal.Stop(r.winch)
		close(r.winch)
	}
	if r.saved != nil {
		term.Restore(int(r.host.Fd()), r.saved)
	}
}

// abort releases the relay when the command never started.
func (r *ptyRelay) abort() {
	r.closeSlave()
	r.master.Close()
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// pollable returns f's descriptor as a file in Go's poller, so reads honour
// deadlines: pty.Open hands the master back in blocking mode (it used Fd).
func pollable(f *os.File) (*os.File, error) {
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}
