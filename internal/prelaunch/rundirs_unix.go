//go:build unix

package prelaunch

import (
	"os"
	"syscall"
)

// SweepRunDirs removes the private run directories (MakeRunDir) of the
// user's runs whose process is gone: a run killed with SIGKILL leaves its
// own. Only directories the effective user owns, named with a process id
// that no longer exists, are removed, never through a symbolic link.
// Names without a process id (made by an older safeexec) are left.
func SweepRunDirs() {
	for _, dir := range []string{RuntimeDir(), os.TempDir()} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			pid, ok := runDirPID(e.Name())
			if !ok || !e.IsDir() || processExists(pid) {
				continue
			}
			path := dir + "/" + e.Name()
			var st syscall.Stat_t
			if syscall.Lstat(path, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR || int(st.Uid) != os.Geteuid() {
				continue
			}
			os.RemoveAll(path)
		}
	}
}

// processExists reports whether process pid exists (signal 0 reaches it,
// or would but for permission).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
