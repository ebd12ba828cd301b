package startup

import (
	"runtime"
	"testing"
)

func TestOneProcessorUntilRestored(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS after init = %d, want 1", n)
	}
	Restore()
	defer runtime.GOMAXPROCS(1)
	if n, want := runtime.GOMAXPROCS(0), runtime.NumCPU(); n != want && runtime.NumCPU() > 1 {
		t.Logf("GOMAXPROCS after Restore = %d, NumCPU %d (a CPU limit may apply)", n, want)
		if n == 1 {
			t.Fatal("Restore left one processor")
		}
	}
}
