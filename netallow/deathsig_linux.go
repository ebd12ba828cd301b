package netallow

import (
	"runtime"
	"syscall"
)

// setDeathSignal makes the kernel kill the command when the bridge dies,
// even by SIGKILL and even outside a PID namespace. The signal is tied to
// the thread that forks, so the bridge stays on that thread until it
// exits.
func setDeathSignal(attr *syscall.SysProcAttr) {
	runtime.LockOSThread()
	attr.Pdeathsig = syscall.SIGKILL
}
