//go:build linux && !amd64

package sandbox

import "golang.org/x/sys/unix"

// seccompModeCalls are the syscalls that take a file mode, each with the
// argument that holds it.
var seccompModeCalls = []seccompModeCall{
	{"openat", unix.SYS_OPENAT, 3},
	{"fchmod", unix.SYS_FCHMOD, 1},
	{"fchmodat", unix.SYS_FCHMODAT, 2},
	{"fchmodat2", unix.SYS_FCHMODAT2, 2},
	{"mknodat", unix.SYS_MKNODAT, 2},
}
