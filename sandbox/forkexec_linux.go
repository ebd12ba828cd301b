package sandbox

// The Landlock backend's launch: safeexec forks a child from an
// unconfined thread, and the child, a single-threaded copy that runs only
// raw system calls, confines itself and executes the command. No thread of
// safeexec ever enters the command's Landlock domain (the domain a thread
// joins cannot be left, and a thread in it could be signalled, traced or
// read by the command), and no second Go runtime starts (a re-executed
// safeexec costs a process start and the package initialisation).
//
// What runs between fork and exec is written for that place: one function
// marked nosplit, so it can never call into the runtime to grow its stack;
// no allocation, no pointer writes (so no write barrier), no locks. It
// reads a forkArgs the parent built before the fork, in which every string
// is already a NUL-terminated byte array and every list a C array. Signals
// are blocked in the forking thread around the fork, so no Go signal
// handler ever runs in the child; the child resets the handlers Go
// installed to their defaults and unblocks signals just before the exec.
//
// The child, in order:
//
//  1. moves the error pipe, the ruleset and the command's descriptors into
//     place and closes every other descriptor (close_range): nothing
//     safeexec inherited or opened reaches the command;
//  2. starts a session of its own; takes the terminal it was given;
//  3. changes to the working directory; sets the resource limits (they
//     belong to this new process, not to safeexec);
//  4. drops every capability and the bounding set (root included), sets
//     no_new_privs, arms the parent-death signal and checks that safeexec
//     is still there;
//  5. restricts itself with the Landlock ruleset, installs the seccomp
//     filters;
//  6. executes the command (/bin/sh for a file without #!).
//
// A step that fails writes its number and errno to the error pipe, which
// is close-on-exec: end-of-file on the pipe means the exec happened.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Steps of the child, reported with an errno when one fails.
const (
	forkStepFDs = iota + 1
	forkStepSetsid
	forkStepTerminal
	forkStepChdir
	forkStepRlimit
	forkStepCaps
	forkStepNoNewPrivs
	forkStepParentDeath
	forkStepParentGone
	forkStepLandlock
	forkStepSeccomp
	forkStepExec
)

var forkStepNames = map[uint32]string{
	forkStepFDs:         "move descriptors",
	forkStepSetsid:      "start a session",
	forkStepTerminal:    "take the terminal",
	forkStepChdir:       "change to the working directory",
	forkStepRlimit:      "set a resource limit",
	forkStepCaps:        "drop capabilities",
	forkStepNoNewPrivs:  "set no_new_privs",
	forkStepParentDeath: "set the parent-death signal",
	forkStepParentGone:  "safeexec exited before the command started",
	forkStepLandlock:    "landlock_restrict_self",
	forkStepSeccomp:     "install a seccomp filter",
	forkStepExec:        "exec",
}

// forkRlimit is one resource limit for the child.
type forkRlimit struct {
	res uintptr
	lim unix.Rlimit
}

// forkSigaction is the kernel's struct sigaction on amd64 and arm64.
type forkSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// forkArgs is everything the child reads, built before the fork. The
// child only reads it.
type forkArgs struct {
	path, sh   *byte
	argv, shv  []*byte // NUL-terminated arrays
	envv       []*byte
	dir        *byte
	fds        []int // fds[i] becomes descriptor i; every one is > len(fds)+1
	errFD      int   // the error pipe's write end, becomes len(fds)
	rulesFD    int   // the Landlock ruleset, becomes len(fds)+1
	terminal   bool
	rlimits    []forkRlimit
	ppid       uintptr
	filters    []unix.SockFprog
	capVersion uint32
}

// forkConfined forks; the child confines itself and executes the command
// (see above) and never returns. The parent gets the child's pid.
//
//go:norace
//go:nocheckptr
//go:nosplit
func forkConfined(a *forkArgs) (pid uintptr, errno syscall.Errno) {
	var (
		r1    uintptr
		e     syscall.Errno
		step  uint32
		i     int
		n     uintptr
		hdr   unix.CapUserHeader
		caps  [2]unix.CapUserData
		act   forkSigaction
		none  uint64
		bad   [8]byte
		errFD uintptr
	)
	r1, _, e = syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if e != 0 || r1 != 0 {
		return r1, e // the parent
	}

	// The child. 1: descriptors.
	n = uintptr(len(a.fds))
	errFD = uintptr(a.errFD)
	step = forkStepFDs
	if _, _, e = syscall.RawSyscall(unix.SYS_DUP3, uintptr(a.errFD), n, unix.O_CLOEXEC); e != 0 {
		goto fail
	}
	errFD = n
	if _, _, e = syscall.RawSyscall(unix.SYS_DUP3, uintptr(a.rulesFD), n+1, unix.O_CLOEXEC); e != 0 {
		goto fail
	}
	for i = 0; i < len(a.fds); i++ {
		if _, _, e = syscall.RawSyscall(unix.SYS_DUP3, uintptr(a.fds[i]), uintptr(i), 0); e != 0 {
			goto fail
		}
	}
	if _, _, e = syscall.RawSyscall(unix.SYS_CLOSE_RANGE, n+2, ^uintptr(0)>>32, 0); e != 0 {
		goto fail
	}

	// 2: session and terminal.
	step = forkStepSetsid
	if _, _, e = syscall.RawSyscall(syscall.SYS_SETSID, 0, 0, 0); e != 0 {
		goto fail
	}
	if a.terminal {
		step = forkStepTerminal
		if _, _, e = syscall.RawSyscall(syscall.SYS_IOCTL, 0, syscall.TIOCSCTTY, 0); e != 0 {
			goto fail
		}
	}

	// 3: directory and limits.
	step = forkStepChdir
	if _, _, e = syscall.RawSyscall(syscall.SYS_CHDIR, uintptr(unsafe.Pointer(a.dir)), 0, 0); e != 0 {
		goto fail
	}
	step = forkStepRlimit
	for i = 0; i < len(a.rlimits); i++ {
		if _, _, e = syscall.RawSyscall6(unix.SYS_PRLIMIT64, 0, a.rlimits[i].res, uintptr(unsafe.Pointer(&a.rlimits[i].lim)), 0, 0, 0); e != 0 {
			goto fail
		}
	}

	// 4: no capabilities, no new privileges, dies with safeexec.
	step = forkStepCaps
	hdr.Version = a.capVersion
	if _, _, e = syscall.RawSyscall(unix.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&caps[0])), 0); e != 0 {
		goto fail
	}
	if caps[0].Permitted != 0 || caps[1].Permitted != 0 {
		for i = 0; i < 64; i++ {
			if _, _, e = syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_CAPBSET_DROP, uintptr(i), 0); e != 0 {
				if e == syscall.EINVAL {
					break // past the last capability this kernel knows
				}
				goto fail
			}
		}
		if _, _, e = syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0); e != 0 && e != syscall.EINVAL {
			goto fail
		}
		caps[0].Effective, caps[0].Permitted, caps[0].Inheritable = 0, 0, 0
		caps[1].Effective, caps[1].Permitted, caps[1].Inheritable = 0, 0, 0
		hdr.Version, hdr.Pid = a.capVersion, 0
		if _, _, e = syscall.RawSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&caps[0])), 0); e != 0 {
			goto fail
		}
	}
	step = forkStepNoNewPrivs
	if _, _, e = syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); e != 0 {
		goto fail
	}
	step = forkStepParentDeath
	if _, _, e = syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); e != 0 {
		goto fail
	}
	step = forkStepParentGone
	if r1, _, _ = syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0); r1 != a.ppid {
		e = syscall.ESRCH
		goto fail
	}

	// 5: Landlock and seccomp.
	step = forkStepLandlock
	if _, _, e = syscall.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, n+1, 0, 0); e != 0 {
		goto fail
	}
	step = forkStepSeccomp
	for i = 0; i < len(a.filters); i++ {
		if _, _, e = syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&a.filters[i]))); e != 0 {
			goto fail
		}
	}

	// 6: default signal handlers (those Go installed; ignored ones stay
	// ignored, as across any exec), nothing blocked, then the command.
	for i = 1; i <= 64; i++ {
		act = forkSigaction{}
		if _, _, e = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(i), 0, uintptr(unsafe.Pointer(&act)), 8, 0, 0); e != 0 {
			continue
		}
		if act.handler > 1 { // neither SIG_DFL (0) nor SIG_IGN (1)
			act = forkSigaction{}
			syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(i), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
		}
	}
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&none)), 0, 8, 0, 0)
	step = forkStepExec
	_, _, e = syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(a.path)), uintptr(unsafe.Pointer(&a.argv[0])), uintptr(unsafe.Pointer(&a.envv[0])))
	if e == syscall.ENOEXEC {
		_, _, e = syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(a.sh)), uintptr(unsafe.Pointer(&a.shv[0])), uintptr(unsafe.Pointer(&a.envv[0])))
	}

fail:
	bad[0], bad[1], bad[2], bad[3] = byte(step), byte(step>>8), byte(step>>16), byte(step>>24)
	bad[4], bad[5], bad[6], bad[7] = byte(e), byte(e>>8), byte(e>>16), byte(e>>24)
	syscall.RawSyscall(syscall.SYS_WRITE, errFD, uintptr(unsafe.Pointer(&bad[0])), 8)
	for {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 125, 0, 0)
	}
}

// confinedCmd is a command to fork, confine and execute.
type confinedCmd struct {
	Path   string   // found by the caller
	Argv   []string // Argv[0] is the name the command sees
	Env    []string
	Dir    string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Extra  []*os.File
	// Terminal: Stdin is a terminal to become the controlling one.
	Terminal bool
	Limits   Limits
	// RulesFD is a Landlock ruleset; Filters are seccomp programs,
	// installed in order.
	RulesFD int
	Filters [][]unix.SockFilter
}

// forkExecError is a failure of the child before the exec, or of the
// exec itself (Step forkStepExec).
type forkExecError struct {
	Step  uint32
	Errno syscall.Errno
}

func (e *forkExecError) Error() string {
	name := forkStepNames[e.Step]
	if name == "" {
		name = fmt.Sprintf("step %d", e.Step)
	}
	return fmt.Sprintf("%s: %v", name, e.Errno)
}

func (e *forkExecError) Unwrap() error { return e.Errno }

// confinedProc is a started confined command: the process, and the copies
// between it and non-file readers and writers.
type confinedProc struct {
	Process *os.Process
	Pid     int

	copies    sync.WaitGroup
	copyErr   error
	copyMu    sync.Mutex
	readEnds  []*os.File // closed after Wait, or after copyDelay
	stdinW    *os.File
	closeOnce sync.Once
}

// copyDelay is how long Wait waits for output still being copied once the
// command has exited (a daemon that left the sandbox's session may hold a
// copy of the pipe): as exec.Cmd's WaitDelay.
var copyDelay = 2 * time.Second

// start forks and confines the command. An error with a *forkExecError of
// step forkStepExec means the command could not be executed; others mean
// the sandbox could not be set up. Either way nothing ran.
func (cc *confinedCmd) start() (*confinedProc, error) {
	if len(cc.Argv) == 0 {
		return nil, errors.New("empty command")
	}
	var closeAfter []*os.File
	defer func() {
		for _, f := range closeAfter {
			f.Close()
		}
	}()
	p := &confinedProc{}
	var copies []func() error
	var feed func()

	// Standard descriptors: files as they are, other readers and writers
	// through pipes, nothing as /dev/null.
	std := make([]*os.File, 3)
	devnull := func(flag int) (*os.File, error) {
		f, err := os.OpenFile(os.DevNull, flag, 0)
		if err == nil {
			closeAfter = append(closeAfter, f)
		}
		return f, err
	}
	switch in := cc.Stdin.(type) {
	case nil:
		f, err := devnull(os.O_RDONLY)
		if err != nil {
			return nil, err
		}
		std[0] = f
	case *os.File:
		std[0] = in
	default:
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		closeAfter = append(closeAfter, r)
		std[0] = r
		p.stdinW = w
		// Not waited for: the reader may block for ever (a terminal); Wait
		// closes the pipe, and what the command did not read is dropped.
		feed = func() {
			io.Copy(w, in)
			w.Close()
		}
	}
	var stdoutPipe *os.File
	for i, out := range []io.Writer{cc.Stdout, cc.Stderr} {
		switch w := out.(type) {
		case nil:
			f, err := devnull(os.O_WRONLY)
			if err != nil {
				p.closeReads()
				return nil, err
			}
			std[1+i] = f
		case *os.File:
			std[1+i] = w
		default:
			if i == 1 && stdoutPipe != nil && cc.Stderr == cc.Stdout {
				std[2] = stdoutPipe // one pipe, as exec.Cmd does
				continue
			}
			r, pw, err := os.Pipe()
			if err != nil {
				p.closeReads()
				return nil, err
			}
			closeAfter = append(closeAfter, pw)
			std[1+i] = pw
			if i == 0 {
				stdoutPipe = pw
			}
			p.readEnds = append(p.readEnds, r)
			copies = append(copies, func() error {
				_, err := io.Copy(w, r)
				if errors.Is(err, os.ErrClosed) {
					err = nil
				}
				return err
			})
		}
	}

	// Every descriptor the child moves into place is first duplicated
	// above the places it will fill, so no move overwrites one still to
	// be moved.
	src := append(std, cc.Extra...)
	floor := len(src) + 2
	dupHigh := func(fd int) (int, error) {
		nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, floor)
		if err != nil {
			return -1, err
		}
		closeAfter = append(closeAfter, os.NewFile(uintptr(nfd), ""))
		return nfd, nil
	}
	a := &forkArgs{terminal: cc.Terminal, ppid: uintptr(os.Getpid()), capVersion: unix.LINUX_CAPABILITY_VERSION_3}
	for _, f := range src {
		if f == nil {
			p.closeReads()
			return nil, errors.New("nil extra file")
		}
		fd, err := dupHigh(int(f.Fd()))
		if err != nil {
			p.closeReads()
			return nil, fmt.Errorf("duplicate descriptor: %w", err)
		}
		a.fds = append(a.fds, fd)
	}
	var err error
	if a.rulesFD, err = dupHigh(cc.RulesFD); err != nil {
		p.closeReads()
		return nil, fmt.Errorf("duplicate the ruleset: %w", err)
	}
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		p.closeReads()
		return nil, err
	}
	errR := os.NewFile(uintptr(pipe[0]), "forkexec-status")
	defer errR.Close()
	errW := os.NewFile(uintptr(pipe[1]), "")
	closeAfter = append(closeAfter, errW)
	if a.errFD, err = dupHigh(pipe[1]); err != nil {
		p.closeReads()
		return nil, err
	}

	// Strings and lists in the form the kernel reads.
	if a.path, err = syscall.BytePtrFromString(cc.Path); err != nil {
		p.closeReads()
		return nil, err
	}
	if a.sh, err = syscall.BytePtrFromString("/bin/sh"); err != nil {
		p.closeReads()
		return nil, err
	}
	if a.dir, err = syscall.BytePtrFromString(cc.Dir); err != nil {
		p.closeReads()
		return nil, err
	}
	cstrs := func(ss []string) ([]*byte, error) {
		out := make([]*byte, 0, len(ss)+1)
		for _, s := range ss {
			b, err := syscall.BytePtrFromString(s)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return append(out, nil), nil
	}
	if a.argv, err = cstrs(cc.Argv); err != nil {
		p.closeReads()
		return nil, err
	}
	if a.shv, err = cstrs(append([]string{"sh", cc.Path}, cc.Argv[1:]...)); err != nil {
		p.closeReads()
		return nil, err
	}
	if a.envv, err = cstrs(cc.Env); err != nil {
		p.closeReads()
		return nil, err
	}
	for _, l := range []struct {
		res int
		v   uint64
	}{
		{unix.RLIMIT_NPROC, cc.Limits.Processes},
		{unix.RLIMIT_NOFILE, cc.Limits.OpenFiles},
		{unix.RLIMIT_FSIZE, cc.Limits.FileSize},
		{unix.RLIMIT_CPU, cc.Limits.CPUSeconds},
	} {
		if l.v != 0 {
			a.rlimits = append(a.rlimits, forkRlimit{res: uintptr(l.res), lim: unix.Rlimit{Cur: l.v, Max: l.v}})
		}
	}
	for _, prog := range cc.Filters {
		if len(prog) == 0 || len(prog) > 4096 {
			p.closeReads()
			return nil, errors.New("seccomp program has no or too many instructions")
		}
		a.filters = append(a.filters, unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]})
	}

	pid, errno := forkLocked(a)
	runtime.KeepAlive(a)
	runtime.KeepAlive(cc.Filters)
	if errno != 0 {
		p.closeReads()
		return nil, fmt.Errorf("fork: %w", errno)
	}
	// Only the child may hold the pipe's write end now, so end-of-file
	// comes with the exec (or the child's death).
	for _, f := range closeAfter {
		f.Close()
	}
	closeAfter = nil
	var status [8]byte
	got, rerr := io.ReadFull(errR, status[:])
	proc, ferr := os.FindProcess(int(pid))
	if ferr != nil {
		// Cannot happen on Unix; keep the child from running unwatched.
		unix.Kill(int(pid), unix.SIGKILL)
		p.closeReads()
		return nil, ferr
	}
	p.Process, p.Pid = proc, int(pid)
	if got > 0 || !errors.Is(rerr, io.EOF) {
		proc.Wait()
		p.closeReads()
		if got == len(status) {
			return nil, &forkExecError{
				Step:  uint32(status[0]) | uint32(status[1])<<8 | uint32(status[2])<<16 | uint32(status[3])<<24,
				Errno: syscall.Errno(uint32(status[4]) | uint32(status[5])<<8 | uint32(status[6])<<16 | uint32(status[7])<<24),
			}
		}
		return nil, fmt.Errorf("read the child's status: %v", rerr)
	}
	if feed != nil {
		go feed()
	}
	for _, c := range copies {
		p.copies.Add(1)
		go func() {
			defer p.copies.Done()
			if err := c(); err != nil {
				p.copyMu.Lock()
				if p.copyErr == nil {
					p.copyErr = err
				}
				p.copyMu.Unlock()
			}
		}()
	}
	return p, nil
}

// forkLocked forks with every signal blocked in the forking thread, so
// that no Go signal handler runs in the child, and restores the mask in
// the parent.
func forkLocked(a *forkArgs) (uintptr, syscall.Errno) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	all, old := ^uint64(0), uint64(0)
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
		return 0, e
	}
	pid, errno := forkConfined(a)
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	return pid, errno
}

// Wait reaps the command and waits for its output to be copied (at most
// copyDelay after its exit).
func (p *confinedProc) Wait() (*os.ProcessState, error) {
	st, err := p.Process.Wait()
	done := make(chan struct{})
	go func() { p.copies.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(copyDelay):
		p.closeReads()
		<-done
	}
	p.closeReads()
	if err == nil {
		p.copyMu.Lock()
		err = p.copyErr
		p.copyMu.Unlock()
	}
	return st, err
}

func (p *confinedProc) closeReads() {
	p.closeOnce.Do(func() {
		for _, r := range p.readEnds {
			r.Close()
		}
		if p.stdinW != nil {
			p.stdinW.Close()
		}
	})
}
