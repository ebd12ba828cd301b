package prelaunch

import (
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// Child is bwrap, started with syscall.ForkExec instead of os/exec.
// The first os.StartProcess of a process checks whether pidfds work by
// forking a throwaway child (os.checkPidfd), which costs a process creation
// on every run of safeexec; ForkExec asked for a pidfd directly does not.
// Stdio is wired up as os/exec does it: an *os.File is passed on, nil is
// /dev/null, anything else is fed through a pipe.
type Child struct {
	Pid   int
	Pidfd int // -1 when the kernel gave none
	// CPUs are the processors to give back before the command starts
	// (cpus_linux.go).
	CPUs *CPUPin

	copies sync.WaitGroup
	// starts begin the copying (StartChild leaves that to Begin);
	// spare are the parent's ends of the stdio pipes.
	starts []func()
	spare  []*os.File
}

// Begin starts copying the stdio that goes through pipes.
func (f *Child) Begin() {
	for _, s := range f.starts {
		s()
	}
	f.starts = nil
}

// Discard closes the stdio pipes of a child that was never begun.
func (f *Child) Discard() {
	closeAll(f.spare...)
	f.starts = nil
}

// StartChild starts path with argv and env in its own process group,
// stdin, stdout and stderr as descriptors 0-2 and extra from 3 on, on
// every processor of safeexec's but the one it runs on (PinChild). What
// goes through pipes is copied only once Begin is called.
func StartChild(path string, argv, env []string, stdin io.Reader, stdout, stderr io.Writer, extra []*os.File) (*Child, error) {
	ch := &Child{Pidfd: -1}
	var (
		childEnds []*os.File // closed once the child has them
		spare     []*os.File // parent ends, closed if the start fails
		starts    []func()   // copying, once the child runs
		files     = make([]uintptr, 0, 3+len(extra))
	)
	fail := func(err error) (*Child, error) {
		closeAll(childEnds...)
		closeAll(spare...)
		return nil, err
	}

	switch r := stdin.(type) {
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
	for i, w := range []io.Writer{stdout, stderr} {
		if i == 1 && w != nil && SameWriter(w, stdout) {
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

	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &ch.Pidfd},
	})
	if err == nil {
		ch.CPUs = PinChild(pid)
	}
	runtime.KeepAlive(stdin)
	runtime.KeepAlive(stdout)
	runtime.KeepAlive(stderr)
	runtime.KeepAlive(extra)
	runtime.KeepAlive(childEnds)
	if err != nil {
		return fail(err)
	}
	closeAll(childEnds...)
	ch.Pid = pid
	ch.starts, ch.spare = starts, spare
	return ch, nil
}

// SameWriter reports whether a and b are the same writer, as os/exec
// decides it (an uncomparable type is never the same).
func SameWriter(a, b io.Writer) (same bool) {
	defer func() { recover() }()
	return a == b
}

// SameReader is SameWriter for readers.
func SameReader(a, b io.Reader) (same bool) {
	defer func() { recover() }()
	return a == b
}

// sysPidfdSendSignal is pidfd_send_signal(2)'s number (one for every
// architecture since Linux 5.1).
const sysPidfdSendSignal = 424

// Kill sends SIGKILL. The caller makes sure the child is not reaped yet.
func (f *Child) Kill() error {
	if f.Pidfd >= 0 {
		if _, _, e := syscall.Syscall6(sysPidfdSendSignal, uintptr(f.Pidfd), uintptr(syscall.SIGKILL), 0, 0, 0, 0); e != 0 {
			return e
		}
		return nil
	}
	return syscall.Kill(f.Pid, syscall.SIGKILL)
}

// waitid(2)'s arguments used here.
const (
	pPID     = 1
	wNowait  = 0x1000000
	wExited  = 4
	infoSize = 128 // sizeof(siginfo_t)
)

// WaitExited blocks until the child has exited, without reaping it, so
// that Kill cannot reach a recycled pid meanwhile.
func (f *Child) WaitExited() {
	var info [infoSize]byte
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(f.Pid), uintptr(unsafe.Pointer(&info)), wExited|wNowait, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}

// Reap collects the child's status; safeexec gets back the processors it
// kept off while the child built the sandbox (CPUPin.ReleaseSelf).
func (f *Child) Reap() (syscall.WaitStatus, error) {
	f.CPUs.ReleaseSelf()
	var ws syscall.WaitStatus
	var err error
	for {
		_, err = syscall.Wait4(f.Pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if f.Pidfd >= 0 {
		syscall.Close(f.Pidfd)
		f.Pidfd = -1
	}
	return ws, err
}

// WaitOutput waits until the child's stdout and stderr have been copied:
// EOF comes once every process holding them is gone.
func (f *Child) WaitOutput() { f.copies.Wait() }

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}
