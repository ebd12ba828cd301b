package sandbox

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// markInheritedCloexec marks every descriptor above 2 close-on-exec
// (fds_unix.go says why).
func markInheritedCloexec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: one by one.
	names, _ := readDirNames("/proc/self/fd")
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// isPathOnly reports whether fd was opened with O_PATH.
func isPathOnly(fd int) bool {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_PATH != 0
}

func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
