package prelaunch

import "syscall"

// tmpfsMagic is statfs(2)'s f_type of a tmpfs.
const tmpfsMagic = 0x01021994

// isTmpfs reports whether dir is a directory on a tmpfs, writable by all
// with the sticky bit (as /tmp is).
func isTmpfs(dir string) bool {
	var fs syscall.Statfs_t
	var st syscall.Stat_t
	return syscall.Statfs(dir, &fs) == nil && fs.Type == tmpfsMagic &&
		syscall.Stat(dir, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR && st.Mode&0o1777 == 0o1777
}
