package prelaunch

import (
	"io"
	"os"
	"strconv"
	"syscall"
)

// Held is bwrap started with a launch, building its sandbox and then
// waiting on its block descriptor before the command: it goes on only
// once the seccomp filter is written to SeccompW and a byte to BlockW, and
// reading end of file on both instead (safeexec gone), it exits without
// running anything. StatusR is bwrap's status descriptor.
type Held struct {
	Launch   Launch
	Child    *Child
	StatusR  *os.File
	SeccompW *os.File
	BlockW   *os.File
}

// StartHeld starts bwrap as l says, with stdin, stdout and stderr as the
// command's (what is not a file goes through a pipe, copied once the
// child is begun) and extra after the three descriptors of the launch;
// it returns once bwrap is started, not built. l must come from
// JoinLaunchArgs, and its paths be checked (PathsExist).
func StartHeld(l *Launch, stdin io.Reader, stdout, stderr io.Writer, extra ...*os.File) (*Held, error) {
	CloexecInherited()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	seccompR, seccompW, err := os.Pipe()
	if err != nil {
		closeAll(statusR, statusW)
		return nil, err
	}
	blockR, blockW, err := os.Pipe()
	if err != nil {
		closeAll(statusR, statusW, seccompR, seccompW)
		return nil, err
	}
	child, err := StartChild(l.Path, append([]string{"bwrap"}, l.Args...), l.Env, stdin, stdout, stderr,
		append([]*os.File{statusW, seccompR, blockR}, extra...))
	closeAll(statusW, seccompR, blockR)
	if err != nil {
		closeAll(statusR, seccompW, blockW)
		return nil, err
	}
	return &Held{Launch: *l, Child: child, StatusR: statusR, SeccompW: seccompW, BlockW: blockW}, nil
}

// Kill kills a held bwrap that has not run the command: bwrap and the
// sandbox's first process, which are one process group until the block
// is lifted. Not reaped yet, the group cannot be another's meanwhile;
// Reap collects it.
func (h *Held) Kill() {
	syscall.Kill(-h.Child.Pid, syscall.SIGKILL)
	closeAll(h.StatusR, h.SeccompW, h.BlockW)
	h.Child.Discard()
}

// PathsExist reports whether every bind's source, every mount's
// destination and the working directory of a launch's arguments are
// there. bwrap makes a missing destination, and one below a writable bind
// is made on the host: a sandbox started ahead from an older launch (a
// masked file since removed) would leave it there even when it is killed
// unused.
func PathsExist(args []string) bool {
	var st syscall.Stat_t
	exists := func(p string) bool { return syscall.Lstat(p, &st) == nil }
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--bind", "--ro-bind":
			if syscall.Stat(args[i+1], &st) != nil || !exists(args[i+2]) {
				return false
			}
			i += 2
		case "--ro-bind-try":
			if syscall.Stat(args[i+1], &st) == nil && !exists(args[i+2]) {
				return false
			}
			i += 2
		case "--tmpfs", "--proc", "--dev":
			if !exists(args[i+1]) {
				return false
			}
			i++
		case "--chdir":
			if syscall.Stat(args[i+1], &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
				return false
			}
			i++
		default:
			i += arity[args[i]]
		}
	}
	return true
}

// close_range(2): its number (one for every architecture since Linux
// 5.9) and its flag.
const (
	sysCloseRange     = 436
	closeRangeCloexec = 1 << 2
)

// CloexecInherited marks every descriptor above 2 close-on-exec: what
// safeexec inherited must not reach a command.
func CloexecInherited() {
	if _, _, e := syscall.Syscall(sysCloseRange, 3, ^uintptr(0), closeRangeCloexec); e == 0 {
		return
	}
	// Before Linux 5.11: one by one.
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
