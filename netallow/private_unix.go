//go:build unix

package netallow

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a socket directory that another user could enter or
// that belongs to someone else: the sockets carry the sandbox's only way
// out, and nothing else may use or replace them.
func checkPrivate(dir string, fi os.FileInfo) error {
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("socket directory %s: mode %04o, want 0700 (not reachable by other users)", dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("socket directory %s: owned by uid %d, not by this user (%d)", dir, st.Uid, os.Getuid())
	}
	return nil
}
