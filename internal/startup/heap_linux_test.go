package startup

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// The heap's first huge page is one huge page after init, where the kernel
// can make one.
func TestHeapHugePage(t *testing.T) {
	switch heapErr {
	case 0:
	case syscall.EINVAL, syscall.ENOMEM, syscall.EAGAIN:
		t.Skipf("the kernel made no huge page (%v): older than 6.1, or THP off or short", heapErr)
	default:
		t.Fatalf("madvise: %v", heapErr)
	}
	addr := uint64(uintptr(unsafe.Pointer(heapMark)))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line + " ")[0], "-"); ok && !strings.HasSuffix(line, ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = a <= addr && addr < b
				continue
			}
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			kb, _ := strconv.Atoi(strings.Fields(line)[1])
			if kb < hugePage>>10 {
				t.Fatalf("the heap's mapping has %d kB in huge pages, want at least %d", kb, hugePage>>10)
			}
			return
		}
	}
	t.Fatal("no mapping holds the heap mark")
}
