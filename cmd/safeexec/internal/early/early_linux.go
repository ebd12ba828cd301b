package early

import (
	"os"
	"syscall"
	"unsafe"

	"github.com/safeexec/safeexec/internal/prelaunch"
)

func init() {
	if spec, ok := Plan(os.Args, os.Getenv, os.Geteuid(), isTerminal(os.Stdin) && isTerminal(os.Stdout)); ok {
		prelaunch.StartEarly(spec)
	}
}

// isTerminal reports whether f is a terminal (TCGETS succeeds), as
// golang.org/x/term decides it.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return e == 0
}
