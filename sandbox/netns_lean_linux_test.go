package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// The opener's fork leaves safeexec's memory behind (amd64): the child
// maps none of the parent's heap, so it holds no copy of what safeexec
// keeps there (the environment stripped from the command among it), and
// it still opens listeners in the namespaces it joined.
func TestNSOpenerLean(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the lean fork needs the thread pointer, read on amd64 only")
	}
	// A process in user and network namespaces of its own to join.
	ns := exec.Command("unshare", "--user", "--map-root-user", "--net", "sh", "-c", "ip link set lo up 2>/dev/null; exec sleep 30")
	if err := ns.Start(); err != nil {
		t.Skipf("unshare: %v", err)
	}
	t.Cleanup(func() { ns.Process.Kill(); ns.Wait() })
	time.Sleep(100 * time.Millisecond)

	// Heap memory written before the fork; its middle is far from what
	// the child keeps (its stack, its request buffers, the TLS).
	secret := make([]byte, 1<<20)
	for i := range secret {
		secret[i] = 's'
	}
	op, err := startNSOpener(ns.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	defer op.close()
	addr := uint64(uintptr(unsafe.Pointer(&secret[len(secret)/2])))
	if mapped(t, op.pid, addr) {
		t.Errorf("the opener maps the parent's heap at %#x", addr)
	}
	ln, err := op.listen("tcp4", "127.0.0.1", 3128)
	if err != nil {
		t.Fatalf("listen in the namespace: %v", err)
	}
	ln.Close()
	runtime.KeepAlive(secret)
}

// mapped reports whether addr is in one of pid's mappings.
func mapped(t *testing.T, pid int, addr uint64) bool {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lo, hi, _ := strings.Cut(strings.Fields(sc.Text())[0], "-")
		a, _ := strconv.ParseUint(lo, 16, 64)
		b, _ := strconv.ParseUint(hi, 16, 64)
		if a <= addr && addr < b {
			return true
		}
	}
	return false
}
