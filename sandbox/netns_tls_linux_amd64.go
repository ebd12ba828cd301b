package sandbox

import (
	"syscall"
	"unsafe"
)

// threadPointer is the calling thread's FS base, where Go keeps its g.
func threadPointer() uintptr {
	const archGetFS = 0x1003 // ARCH_GET_FS
	var fs uintptr
	if _, _, e := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archGetFS, uintptr(unsafe.Pointer(&fs)), 0); e != 0 {
		return 0
	}
	return fs
}
