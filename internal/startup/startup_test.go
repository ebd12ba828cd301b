package startup

import (
	"os"
	"runtime"
	"testing"
)

// Init leaves one processor; Restore gives back Go's own choice (here,
// with no GOMAXPROCS variable, more than one where the machine has more).
func TestOneProcessorUntilRestored(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS after init = %d, want 1", n)
	}
	Restore()
	defer runtime.GOMAXPROCS(1)
	if os.Getenv("GOMAXPROCS") != "" || runtime.NumCPU() < 2 {
		return
	}
	if n := runtime.GOMAXPROCS(0); n == 1 {
		t.Fatalf("Restore left one processor of %d (unless a CPU quota of one applies)", runtime.NumCPU())
	}
}
