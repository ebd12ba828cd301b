//go:build unix && !linux

package netallow

import "syscall"

// setDeathSignal has no equivalent here; the sandbox ends what the
// command leaves behind.
func setDeathSignal(attr *syscall.SysProcAttr) {}
