package sandbox

import (
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// forkedChild is bwrap, started with syscall.ForkExec instead of os/exec.
// The first os.StartProcess of a process checks whether pidfds work by
// forking a throwaway child (os.checkPidfd), which costs a process creation
// on every run of safeexec; ForkExec asked for a pidfd directly does not.
// Stdio is wired up as os/exec does it: an *os.File is passed on, nil is
// /dev/null, anything else is fed through a pipe.
type forkedChild struct {
	pid    int
	pidfd  int // -1 when the kernel gave none
	copies sync.WaitGroup
	// starts begin the copying (forkExecHeld leaves that to begin);
	// spare are the parent's ends of the stdio pipes.
	starts []func()
	spare  []*os.File
	// cpus are the processors to give back before the command starts
	// (bwrap_cpus_linux.go).
	cpus *cpuPin
}

// begin starts copying the stdio that goes through pipes.
func (f *forkedChild) begin() {
	for _, s := range f.starts {
		s()
	}
	f.starts = nil
}

// discard closes the stdio pipes of a child that was never begun.
func (f *forkedChild) discard() {
	closeAll(f.spare...)
	f.starts = nil
}

// forkExec starts path with argv and env in its own process group, c's
// stdio as descriptors 0-2 and extra from 3 on.
func forkExec(path string, argv, env []string, c *Command, extra []*os.File) (*forkedChild, error) {
	ch, err := forkExecHeld(path, argv, env, c, extra)
	if err == nil {
		ch.begin()
	}
	return ch, err
}

// forkExecHeld is forkExec, but what goes through pipes is copied only
// once begin is called.
func forkExecHeld(path string, argv, env []string, c *Command, extra []*os.File) (*forkedChild, error) {
	ch := &forkedChild{pidfd: -1}
	var (
		childEnds []*os.File // closed once the child has them
		spare     []*os.File // parent ends, closed if the start fails
		starts    []func()   // copying, once the child runs
		files     = make([]uintptr, 0, 3+len(extra))
	)
	fail := func(err error) (*forkedChild, error) {
		closeAll(childEnds...)
		closeAll(spare...)
		return nil, err
	}

	switch r := c.Stdin.(type) {
	case nil:
		f, err := os.Open(os.DevNull)
		if err != nil {
			return fail(err)
		}
		childEnds = append(childEnds, f)
		files = append(files, f.Fd())
	case *os.File:
		files = append(files, r.Fd())
	default:
		pr, pw, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		childEnds, spare = append(childEnds, pr), append(spare, pw)
		files = append(files, pr.Fd())
		// Not waited for: a reader that never ends must not hold up
		// Wait once the sandbox is gone (the write then fails).
		starts = append(starts, func() {
			go func() {
				io.Copy(pw, r)
				pw.Close()
			}()
		})
	}

	var stdoutFd uintptr
	for i, w := range []io.Writer{c.Stdout, c.Stderr} {
		if i == 1 && w != nil && sameWriter(w, c.Stdout) {
			// One pipe for both keeps their order and never writes to
			// w from two goroutines.
			files = append(files, stdoutFd)
			break
		}
		switch w := w.(type) {
		case nil:
			f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				return fail(err)
			}
			childEnds = append(childEnds, f)
			files = append(files, f.Fd())
		case *os.File:
			files = append(files, w.Fd())
		default:
			pr, pw, err := os.Pipe()
			if err != nil {
				return fail(err)
			}
			childEnds, spare = append(childEnds, pw), append(spare, pr)
			files = append(files, pw.Fd())
			starts = append(starts, func() {
				ch.copies.Add(1)
				go func() {
					defer ch.copies.Done()
					io.Copy(w, pr)
					pr.Close()
				}()
			})
		}
		stdoutFd = files[len(files)-1]
	}
	for _, f := range extra {
		files = append(files, f.Fd())
	}

	pin, unpin := pinOthers(path)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &ch.pidfd},
	})
	unpin()
	ch.cpus = pin
	runtime.KeepAlive(c)
	runtime.KeepAlive(extra)
	runtime.KeepAlive(childEnds)
	if err != nil {
		return fail(err)
	}
	closeAll(childEnds...)
	ch.pid = pid
	ch.starts, ch.spare = starts, spare
	return ch, nil
}

// sameWriter reports whether a and b are the same writer, as os/exec
// decides it (an uncomparable type is never the same).
func sameWriter(a, b io.Writer) (same bool) {
	defer func() { recover() }()
	return a == b
}

// kill sends SIGKILL. The caller makes sure the child is not reaped yet.
func (f *forkedChild) kill() error {
	if f.pidfd >= 0 {
		return unix.PidfdSendSignal(f.pidfd, unix.SIGKILL, nil, 0)
	}
	return syscall.Kill(f.pid, syscall.SIGKILL)
}

// waitExited blocks until the child has exited, without reaping it, so
// that kill cannot reach a recycled pid meanwhile.
func (f *forkedChild) waitExited() {
	var info unix.Siginfo
	for unix.Waitid(unix.P_PID, f.pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
	}
}

// reap collects the child's status.
func (f *forkedChild) reap() (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	var err error
	for {
		_, err = syscall.Wait4(f.pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if f.pidfd >= 0 {
		unix.Close(f.pidfd)
		f.pidfd = -1
	}
	return ws, err
}

// waitOutput waits until the child's stdout and stderr have been copied:
// EOF comes once every process holding them is gone.
func (f *forkedChild) waitOutput() { f.copies.Wait() }
