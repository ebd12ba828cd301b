package sandbox

import (
	"golang.org/x/sys/unix"

	"github.com/safeexec/safeexec/internal/prelaunch"
)

// markInheritedCloexec marks every descriptor above 2 close-on-exec
// (fds_unix.go says why).
func markInheritedCloexec() { prelaunch.CloexecInherited() }

// isPathOnly reports whether fd was opened with O_PATH.
func isPathOnly(fd int) bool {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_PATH != 0
}
