//go:build unix

package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// Descriptors: a command gets its three standard descriptors and the
// Command's ExtraFiles, nothing else. A descriptor safeexec inherited from
// its own parent (a leaked directory descriptor on $HOME, a log file, a
// socket) would otherwise pass through every backend's exec, and a
// directory descriptor opened outside the sandbox leads past its mounts:
// openat(fd, ".ssh/id_ed25519") under bwrap reads through the host's mount
// of the home directory, not the sandbox's masked one. So:
//
//   - markInheritedCloexec, before a backend starts its helper (bwrap,
//     sandbox-exec, the command itself for none), marks every descriptor
//     above 2 close-on-exec; what is passed on explicitly is duplicated
//     into place by the start, which clears the flag on the copy. The
//     Landlock child closes everything above what it was given itself
//     (close_range).
//   - withSafeStdio replaces a standard descriptor that is a directory
//     (or an O_PATH descriptor, which openat takes as well) with
//     /dev/null: no command reads a directory as a stream.

// withSafeStdio returns c, or a copy whose directory stdio is /dev/null,
// and a function that closes what it opened.
func withSafeStdio(c *Command) (*Command, func()) {
	var opened []*os.File
	done := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	bad := func(x any) bool {
		f, ok := x.(*os.File)
		if !ok || f == nil {
			return false
		}
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return true
		}
		return isPathOnly(int(f.Fd()))
	}
	if !bad(c.Stdin) && !bad(c.Stdout) && !bad(c.Stderr) {
		return c, done
	}
	cc := *c
	null := func(flag int) *os.File {
		f, err := os.OpenFile(os.DevNull, flag, 0)
		if err != nil {
			return nil // the start fails on a closed descriptor instead
		}
		opened = append(opened, f)
		return f
	}
	if bad(c.Stdin) {
		cc.Stdin = null(os.O_RDONLY)
	}
	if bad(c.Stdout) {
		cc.Stdout = null(os.O_WRONLY)
	}
	if bad(c.Stderr) {
		cc.Stderr = null(os.O_WRONLY)
	}
	return &cc, done
}
