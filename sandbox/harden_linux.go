package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Harden puts safeexec out of reach of what it starts, for as long as it
// runs: it makes the process non-dumpable, so its memory (/proc/<pid>/mem,
// process_vm_readv), environment (which still holds the secrets stripped
// from the command's) and descriptors can be reached only with
// CAP_SYS_PTRACE, which no sandboxed command has, and no core file is
// written. Call it first thing; it is per process and survives until exec.
func Harden() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make safeexec non-dumpable: %w", err)
	}
	return nil
}
