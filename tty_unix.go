//go:build unix

package safeexec

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/creack/pty"
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

	winch  chan os.Signal
	copied sync.WaitGroup
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
	go io.Copy(r.master, r.host)
	r.copied.Add(1)
	go func() {
		defer r.copied.Done()
		io.Copy(r.out, r.master)
	}()
}

// closeSlave drops safeexec's own copy of the command's side, so the
// output copy ends (EIO) once every process holding it is gone.
func (r *ptyRelay) closeSlave() {
	if r.slave != nil {
		r.slave.Close()
		r.slave = nil
	}
}

// finish waits for the command's last output and restores the user's
// terminal.
func (r *ptyRelay) finish() {
	r.closeSlave()
	r.copied.Wait()
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
