package sandbox

import "syscall"

// Flags for opening a pointer file (see gitprotect_unix.go); Windows has no
// FIFOs to block on, and links are checked by the caller.
const (
	oNonblock = syscall.O_NONBLOCK
	oNoFollow = 0
)
