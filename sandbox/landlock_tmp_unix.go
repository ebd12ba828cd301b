//go:build unix

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// pidAlive reports whether a process with that pid exists.
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownedPrivate reports whether the directory belongs to this user and
// nobody else may enter it.
func ownedPrivate(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid() && fi.Mode().Perm()&0o077 == 0
}
