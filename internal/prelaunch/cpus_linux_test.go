package prelaunch

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// bwrap itself starts on all but the processor safeexec is on.
func TestPinOthers(t *testing.T) {
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil || mine.Count() < 2 {
		t.Skip("one processor: nothing is pinned")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pin, undo := PinOthers(exe)
	if pin == nil {
		t.Fatal("not pinned")
	}
	var during unix.CPUSet
	unix.SchedGetaffinity(0, &during)
	undo()
	var after unix.CPUSet
	unix.SchedGetaffinity(0, &after)
	if during.Count() != mine.Count()-1 || after != mine {
		t.Fatalf("processors: %d before, %d while pinned (want one less), restored: %v", mine.Count(), during.Count(), after == mine)
	}
}
