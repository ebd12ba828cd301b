package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/safeexec/safeexec/internal/prelaunch"
)

// prestart is a bwrap started ahead (see Ahead).
type prestart struct {
	done     chan struct{}
	err      error
	launch   Launch
	filter   []byte
	stdio    Command // the command's stdin, stdout and stderr
	child    *prelaunch.Child
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
// once bwrap is started, not built. l must come from
// prelaunch.JoinLaunchArgs. Every source mounted and every destination
// must exist: a launch that bwrap would refuse is not tried (its message
// would reach the command's stderr), nor one that would make a file on the
// host.
func StartAhead(l *Launch, stdin io.Reader, stdout, stderr io.Writer) *Ahead {
	if _, _, ok := prelaunch.SplitLaunchArgs(l.Args); !ok || !prelaunch.PathsExist(l.Args) {
		return &Ahead{}
	}
	pre := &prestart{done: make(chan struct{}), launch: *l,
		stdio: Command{Stdin: stdin, Stdout: stdout, Stderr: stderr}}
	pre.err = pre.start()
	close(pre.done)
	return &Ahead{pre: pre}
}

// AdoptAhead is StartAhead for a bwrap started already, by
// prelaunch.StartEarly (whose checks it passed) with stdin, stdout and
// stderr: the Ahead owns it from now on.
func AdoptAhead(h *prelaunch.Held, stdin io.Reader, stdout, stderr io.Writer) *Ahead {
	pre := &prestart{done: make(chan struct{}), launch: h.Launch,
		stdio: Command{Stdin: stdin, Stdout: stdout, Stderr: stderr}}
	pre.filter, pre.err = seccompBytes()
	if pre.err != nil {
		h.Kill()
		h.Child.Reap()
	} else {
		pre.setHeld(h)
	}
	close(pre.done)
	return &Ahead{pre: pre}
}

func (pre *prestart) start(extra ...*os.File) error {
	filter, err := seccompBytes()
	if err != nil {
		return err
	}
	pre.filter = filter
	h, err := prelaunch.StartHeld(&pre.launch, pre.stdio.Stdin, pre.stdio.Stdout, pre.stdio.Stderr, extra...)
	if err != nil {
		return err
	}
	pre.setHeld(h)
	return nil
}

func (pre *prestart) setHeld(h *prelaunch.Held) {
	pre.child, pre.statusR, pre.seccompW, pre.blockW = h.Child, h.StatusR, h.SeccompW, h.BlockW
}

// matches reports whether the early bwrap is the one Start would start
// now: same program, arguments, environment and filter, the same stdio
// for the command, the same descriptors.
func (pre *prestart) matches(path string, args, env []string, filter []byte, c *Command, fds bwrapFDs) bool {
	<-pre.done
	return pre.err == nil && fds == aheadFDs && !c.Terminal && pre.launch.Path == path &&
		slices.Equal(pre.launch.Args, args) && slices.Equal(pre.launch.Env, env) &&
		bytes.Equal(pre.filter, filter) && prelaunch.SameReader(c.Stdin, pre.stdio.Stdin) &&
		prelaunch.SameWriter(c.Stdout, pre.stdio.Stdout) && prelaunch.SameWriter(c.Stderr, pre.stdio.Stderr)
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
	unix.Kill(-pre.child.Pid, unix.SIGKILL)
	closeAll(pre.statusR, pre.seccompW, pre.blockW)
	pre.child.Discard()
	if pre.warm != nil {
		close(pre.warm.stop)
		<-pre.warm.settled
		pre.warm.argvW.Close()
	}
	pre.child.Reap()
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
