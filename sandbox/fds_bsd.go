//go:build unix && !linux

package sandbox

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// markInheritedCloexec marks every descriptor above 2 close-on-exec
// (fds_unix.go says why).
func markInheritedCloexec() {
	d, err := os.Open("/dev/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

func isPathOnly(int) bool { return false }
