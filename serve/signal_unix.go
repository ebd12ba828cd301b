//go:build unix

package serve

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName is the name a terminal reports for signal n ("SIGKILL").
func signalName(n int) string {
	if s := unix.SignalName(syscall.Signal(n)); s != "" {
		return s
	}
	return "SIG" + strconv.Itoa(n)
}
