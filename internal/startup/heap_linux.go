package startup

import (
	"syscall"
	"unsafe"
)

// Advice for madvise(2) (golang.org/x/sys/unix has them, but importing it
// would make this package initialise later: see the package comment).
const (
	madvHugepage = 14 // MADV_HUGEPAGE
	madvCollapse = 25 // MADV_COLLAPSE
)

// hugePage is the size of a transparent huge page on amd64 and arm64
// (with 4 KiB pages).
const hugePage = 2 << 20

// heapMark is allocated to learn where the heap is.
var heapMark *[64]byte

// prepareHeap backs the first huge page's worth of the heap with one huge
// page (MADV_COLLAPSE, Linux 6.1). A run allocates about 1.5 MiB, nearly
// all of it there, and on a virtual machine each 4 KiB page touched for
// the first time is a fault costing ~14 µs; one huge page is one fault.
// It costs one copy of what is already there (~0.5 ms) and leaves the
// huge page resident (≤ 2 MiB). Where the kernel cannot (older kernels,
// transparent huge pages disabled, no free huge page) the heap stays as it
// is: nothing depends on it.
func prepareHeap() {
	heapMark = new([64]byte)
	base := uintptr(unsafe.Pointer(heapMark)) &^ (hugePage - 1)
	if heapErr = madvise(base, madvHugepage); heapErr == 0 {
		heapErr = madvise(base, madvCollapse)
	}
}

// heapErr is what the kernel said (for the tests).
var heapErr syscall.Errno

// madvise advises on the huge page at base (not a Go object: unix.Madvise
// takes a slice).
func madvise(base uintptr, advice int) syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_MADVISE, base, hugePage, uintptr(advice))
	return e
}
