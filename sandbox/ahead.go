package sandbox

import (
	"errors"
	"slices"
	"sync"
)

// Launch is how the bwrap backend started a sandbox: bwrap's path, its
// arguments (after argv[0]) and its environment. The descriptors are
// always the same when a launch is reported: the command's stdio as 0-2,
// then bwrap's status (3), seccomp (4) and block (5) descriptors.
type Launch struct {
	Path string
	Args []string
	Env  []string
}

// Ahead links a run to a sandbox started before the run's plan was made
// (StartAhead), from how an earlier run of the same kind started its own.
// bwrap builds the sandbox while safeexec loads its policy and judges the
// command, and then waits, as always, on its block descriptor: the
// command starts only once Start has found that the arguments,
// environment and seccomp filter it computed for this run are, byte for
// byte, the ones the early bwrap was given, and the command's stdio the
// same, and has lifted the block. On
// any difference, or when the run does not start a command at all, the
// early bwrap is killed before it could run anything.
//
// The zero Ahead (or nil) starts nothing ahead; Start still reports the
// launch a later run could start ahead.
type Ahead struct {
	mu   sync.Mutex
	pre  *prestart
	used bool

	// Hit says the sandbox started ahead was the one the command ran in.
	Hit bool
	// Launch is how Start started bwrap when that start could have been
	// made ahead (nothing but stdio handed in, no terminal, no network
	// namespace of safeexec's making) and was not; nil otherwise.
	Launch *Launch
}

// take hands the early bwrap to Start once (nil if there is none).
func (a *Ahead) take() *prestart {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used {
		return nil
	}
	a.used = true
	return a.pre
}

// Cancel kills the early bwrap unless Start has taken it. It is safe to
// call more than once, and after Start.
func (a *Ahead) Cancel() {
	if pre := a.take(); pre != nil {
		pre.cancel()
	}
}

// aheadSuffix ends every launch's options: the descriptors above.
var aheadSuffix = []string{"--json-status-fd", "3", "--block-fd", "5", "--seccomp", "4", "--"}

// aheadArity are the bwrap options a launch started ahead may have, with
// the number of values each takes: what bwrapArgs writes for the
// compat and permissive modes, and nothing that hands bwrap a descriptor
// or makes it write anything but a mount point.
var aheadArity = map[string]int{
	"--die-with-parent": 0, "--new-session": 0, "--unshare-user": 0, "--unshare-pid": 0,
	"--unshare-ipc": 0, "--unshare-uts": 0, "--unshare-net": 0, "--unshare-cgroup-try": 0,
	"--disable-userns": 0,
	"--uid":            1, "--gid": 1, "--cap-drop": 1, "--proc": 1, "--dev": 1, "--tmpfs": 1,
	"--perms": 1, "--chdir": 1,
	"--bind": 2, "--ro-bind": 2, "--ro-bind-try": 2,
}

// SplitLaunchArgs splits a launch's arguments into its options (without
// the descriptor options that end them) and the command. ok is false when
// the launch is not one a later run may start ahead: options other than
// aheadArity's, --die-with-parent not first, other descriptors.
func SplitLaunchArgs(args []string) (opts, command []string, ok bool) {
	i := 0
	for i < len(args) {
		if len(args)-i >= len(aheadSuffix) && slices.Equal(args[i:i+len(aheadSuffix)], aheadSuffix) {
			break
		}
		n, known := aheadArity[args[i]]
		if !known || i+1+n > len(args) {
			return nil, nil, false
		}
		i += 1 + n
	}
	if i == len(args) || i == 0 || args[0] != "--die-with-parent" || len(args) == i+len(aheadSuffix) {
		return nil, nil, false
	}
	return args[:i], args[i+len(aheadSuffix):], true
}

// JoinLaunchArgs is the inverse of SplitLaunchArgs. It fails unless opts
// are options SplitLaunchArgs accepts: whatever they are, the sandbox they
// make waits on the block descriptor before it runs command.
func JoinLaunchArgs(opts, command []string) ([]string, error) {
	if len(command) == 0 {
		return nil, errors.New("no command")
	}
	args := slices.Concat(opts, aheadSuffix, command)
	if o, _, ok := SplitLaunchArgs(args); !ok || len(o) != len(opts) {
		return nil, errors.New("options a sandbox started ahead may not have")
	}
	return args, nil
}
