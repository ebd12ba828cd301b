//go:build unix && !linux

package safeexec

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)

// terminalExclusive cannot be read here: exclusive mode is cleared after
// the run whatever it was.
func terminalExclusive(fd int) bool { return false }

func resumeOutput(fd int) { unix.IoctlSetInt(fd, unix.TIOCSTART, 0) }
