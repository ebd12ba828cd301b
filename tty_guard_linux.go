package safeexec

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
	// ioctlTIOCGEXCL reads exclusive mode (Linux 3.8): _IOR('T', 0x40, int).
	ioctlTIOCGEXCL = 0x80045440
)

func terminalExclusive(fd int) bool {
	v, err := unix.IoctlGetInt(fd, ioctlTIOCGEXCL)
	return err == nil && v != 0
}

func resumeOutput(fd int) { unix.IoctlSetInt(fd, unix.TCXONC, unix.TCOON) }
