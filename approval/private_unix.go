//go:build unix

package approval

import (
	"io/fs"
	"os"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

// ownedPrivate reports whether fi belongs to this user and gives nobody
// else any access.
func ownedPrivate(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Geteuid() {
		return false
	}
	return fi.Mode().Perm()&0o077 == 0
}
