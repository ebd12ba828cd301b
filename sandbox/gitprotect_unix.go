//go:build unix

package sandbox

import "syscall"

// Flags for opening a pointer file the command may have planted: never
// block on a FIFO, never follow a link.
const (
	oNonblock = syscall.O_NONBLOCK
	oNoFollow = syscall.O_NOFOLLOW
)
