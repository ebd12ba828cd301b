package prelaunch

import (
	"errors"
	"slices"
)

// Launch is how a sandbox was started: bwrap's path, its arguments (after
// argv[0]) and its environment. A launch started ahead always has the
// same descriptors: the command's stdio as 0-2, then bwrap's status (3),
// seccomp (4) and block (5) descriptors.
type Launch struct {
	Path string
	Args []string
	Env  []string
}

// suffix ends every launch's options: the descriptors above.
var suffix = []string{"--json-status-fd", "3", "--block-fd", "5", "--seccomp", "4", "--"}

// arity are the bwrap options a launch started ahead may have, with the
// number of values each takes: what the sandbox package writes for the
// compat and permissive modes, and nothing that hands bwrap a descriptor
// or makes it write anything but a mount point.
var arity = map[string]int{
	"--die-with-parent": 0, "--new-session": 0, "--unshare-user": 0, "--unshare-pid": 0,
	"--unshare-ipc": 0, "--unshare-uts": 0, "--unshare-net": 0, "--unshare-cgroup-try": 0,
	"--disable-userns": 0,
	"--uid":            1, "--gid": 1, "--cap-drop": 1, "--proc": 1, "--dev": 1, "--tmpfs": 1,
	"--perms": 1, "--chdir": 1,
	"--bind": 2, "--ro-bind": 2, "--ro-bind-try": 2,
}

// Arity is the number of values bwrap option opt takes, and whether a
// launch started ahead may have it.
func Arity(opt string) (n int, ok bool) {
	n, ok = arity[opt]
	return n, ok
}

// SplitLaunchArgs splits a launch's arguments into its options (without
// the descriptor options that end them) and the command. ok is false when
// the launch is not one a later run may start ahead: options other than
// those Arity knows, --die-with-parent not first, other descriptors.
func SplitLaunchArgs(args []string) (opts, command []string, ok bool) {
	i := 0
	for i < len(args) {
		if len(args)-i >= len(suffix) && slices.Equal(args[i:i+len(suffix)], suffix) {
			break
		}
		n, known := arity[args[i]]
		if !known || i+1+n > len(args) {
			return nil, nil, false
		}
		i += 1 + n
	}
	if i == len(args) || i == 0 || args[0] != "--die-with-parent" || len(args) == i+len(suffix) {
		return nil, nil, false
	}
	return args[:i], args[i+len(suffix):], true
}

// JoinLaunchArgs is the inverse of SplitLaunchArgs. It fails unless opts
// are options SplitLaunchArgs accepts: whatever they are, the sandbox they
// make waits on the block descriptor before it runs command.
func JoinLaunchArgs(opts, command []string) ([]string, error) {
	if len(command) == 0 {
		return nil, errors.New("no command")
	}
	args := slices.Concat(opts, suffix, command)
	if o, _, ok := SplitLaunchArgs(args); !ok || len(o) != len(opts) {
		return nil, errors.New("options a sandbox started ahead may not have")
	}
	return args, nil
}
