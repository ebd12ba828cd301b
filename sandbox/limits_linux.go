package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// applyLimits sets the policy's resource limits on pid, the sandbox's init,
// before it starts the command (bwrap waits on --block-fd meanwhile), so the
// whole sandboxed tree inherits them.
//
// RLIMIT_NPROC is counted per user per user namespace: the sandbox has its
// own user namespace, so the limit bounds the processes of the sandbox, not
// every process the user has on the host.
func applyLimits(pid int, l Limits) error {
	set := func(res int, name string, soft, hard uint64) error {
		if soft == 0 {
			return nil
		}
		lim := unix.Rlimit{Cur: soft, Max: hard}
		if err := unix.Prlimit(pid, res, &lim, nil); err != nil {
			return fmt.Errorf("set %s limit to %d: %w", name, soft, err)
		}
		return nil
	}
	if err := set(unix.RLIMIT_NPROC, "process", l.Processes, l.Processes); err != nil {
		return err
	}
	if err := set(unix.RLIMIT_NOFILE, "open file", l.OpenFiles, l.OpenFiles); err != nil {
		return err
	}
	if err := set(unix.RLIMIT_FSIZE, "file size", l.FileSize, l.FileSize); err != nil {
		return err
	}
	// SIGXCPU at the soft limit, SIGKILL a second later.
	return set(unix.RLIMIT_CPU, "cpu time", l.CPUSeconds, l.CPUSeconds+1)
}
