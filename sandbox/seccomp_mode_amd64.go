//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

// seccompModeCalls are the syscalls that take a file mode, each with the
// argument that holds it (x86-64 also has the legacy path calls).
var seccompModeCalls = []seccompModeCall{
	{"open", unix.SYS_OPEN, 2},
	{"creat", unix.SYS_CREAT, 1},
	{"openat", unix.SYS_OPENAT, 3},
	{"chmod", unix.SYS_CHMOD, 1},
	{"fchmod", unix.SYS_FCHMOD, 1},
	{"fchmodat", unix.SYS_FCHMODAT, 2},
	{"fchmodat2", unix.SYS_FCHMODAT2, 2},
	{"mknod", unix.SYS_MKNOD, 1},
	{"mknodat", unix.SYS_MKNODAT, 2},
}
