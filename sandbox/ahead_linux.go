package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// prestart is a bwrap started ahead (see Ahead).
type prestart struct {
	done     chan struct{}
	err      error
	launch   Launch
	filter   []byte
	stdio    Command // the command's stdin, stdout and stderr
	child    *forkedChild
	statusR  *os.File
	seccompW *os.File
	blockW   *os.File
	// warm is set for a warm sandbox (warm_linux.go).
	warm *warmState
}

// aheadFDs is the descriptor layout of every launch started ahead.
var aheadFDs = bwrapFDs{Status: 3, Seccomp: 4, Block: 5}

// StartAhead starts bwrap as l says, with stdin, stdout and stderr as
// the command's (what is not a file goes through a pipe, copied once the
// sandbox is used), blocked before the command (see Ahead); it returns
// once bwrap is started, not built. l must come from JoinLaunchArgs.
// Every source mounted and every destination must exist: a launch that
// bwrap would refuse is not tried (its message would reach the command's
// stderr), nor one that would make a file on the host.
func StartAhead(l *Launch, stdin io.Reader, stdout, stderr io.Writer) *Ahead {
	if _, _, ok := SplitLaunchArgs(l.Args); !ok || !launchPathsExist(l.Args) {
		return &Ahead{}
	}
	pre := &prestart{done: make(chan struct{}), launch: *l,
		stdio: Command{Stdin: stdin, Stdout: stdout, Stderr: stderr}}
	pre.err = pre.start()
	close(pre.done)
	return &Ahead{pre: pre}
}

// launchPathsExist reports whether every bind's source, every mount's
// destination and the working directory are there. bwrap makes a missing
// destination, and one below a writable bind is made on the host: a
// sandbox started ahead from an older launch (a masked file since
// removed) would leave it there even when it is killed unused.
func launchPathsExist(args []string) bool {
	var st unix.Stat_t
	exists := func(p string) bool { return unix.Lstat(p, &st) == nil }
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--bind", "--ro-bind":
			if unix.Stat(args[i+1], &st) != nil || !exists(args[i+2]) {
				return false
			}
			i += 2
		case "--ro-bind-try":
			if unix.Stat(args[i+1], &st) == nil && !exists(args[i+2]) {
				return false
			}
			i += 2
		case "--tmpfs", "--proc", "--dev":
			if !exists(args[i+1]) {
				return false
			}
			i++
		case "--chdir":
			if unix.Stat(args[i+1], &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
				return false
			}
			i++
		default:
			i += aheadArity[args[i]]
		}
	}
	return true
}

func (pre *prestart) start(extra ...*os.File) error {
	markInheritedCloexec()
	filter, err := seccompBytes()
	if err != nil {
		return err
	}
	pre.filter = filter
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return err
	}
	seccompR, seccompW, err := os.Pipe()
	if err != nil {
		closeAll(statusR, statusW)
		return err
	}
	blockR, blockW, err := os.Pipe()
	if err != nil {
		closeAll(statusR, statusW, seccompR, seccompW)
		return err
	}
	child, err := forkExecHeld(pre.launch.Path, append([]string{"bwrap"}, pre.launch.Args...), pre.launch.Env, &pre.stdio,
		append([]*os.File{statusW, seccompR, blockR}, extra...))
	closeAll(statusW, seccompR, blockR)
	if err != nil {
		closeAll(statusR, seccompW, blockW)
		return err
	}
	pre.child, pre.statusR, pre.seccompW, pre.blockW = child, statusR, seccompW, blockW
	return nil
}

// matches reports whether the early bwrap is the one Start would start
// now: same program, arguments, environment and filter, the same stdio
// for the command, the same descriptors.
func (pre *prestart) matches(path string, args, env []string, filter []byte, c *Command, fds bwrapFDs) bool {
	<-pre.done
	return pre.err == nil && fds == aheadFDs && !c.Terminal && pre.launch.Path == path &&
		slices.Equal(pre.launch.Args, args) && slices.Equal(pre.launch.Env, env) &&
		bytes.Equal(pre.filter, filter) && sameReader(c.Stdin, pre.stdio.Stdin) &&
		sameWriter(c.Stdout, pre.stdio.Stdout) && sameWriter(c.Stderr, pre.stdio.Stderr)
}

// sameReader is sameWriter for readers.
func sameReader(a, b io.Reader) (same bool) {
	defer func() { recover() }()
	return a == b
}

// cancel kills the early bwrap, which has not run the command (see
// releaseSandbox): bwrap and the sandbox's first process, which are one
// process group until the block is lifted.
func (pre *prestart) cancel() {
	<-pre.done
	if pre.err != nil {
		return
	}
	// Not reaped yet: the group cannot be another's meanwhile. Reaped
	// before this returns: nothing of it outlives the run.
	unix.Kill(-pre.child.pid, unix.SIGKILL)
	closeAll(pre.statusR, pre.seccompW, pre.blockW)
	pre.child.discard()
	if pre.warm != nil {
		close(pre.warm.stop)
		<-pre.warm.settled
		pre.warm.argvW.Close()
	}
	pre.child.reap()
}

// releaseSandbox lets a sandbox bwrap built go on to start the command:
// the seccomp filter, then the block descriptor. bwrap reads the block
// descriptor and then the filter, and goes on at end of file as at data:
// were safeexec to die before it released the sandbox, bwrap would find
// the block ended and then an empty filter, which it cannot install and
// exits: the command never runs. (The filter, at most 32 KiB, fits in
// the pipe's buffer.)
func releaseSandbox(seccompW, blockW *os.File, filter []byte) error {
	_, err := seccompW.Write(filter)
	if cerr := seccompW.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		blockW.Close()
		return fmt.Errorf("write seccomp filter: %w", err)
	}
	_, err = blockW.Write([]byte{1})
	if cerr := blockW.Close(); err == nil {
		err = cerr
	}
	return err
}
