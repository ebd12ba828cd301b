package prelaunch

import (
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// bwrap builds the sandbox on all but the processor safeexec is on, and
// gets them all back.
func TestPinChild(t *testing.T) {
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil || mine.Count() < 2 {
		t.Skip("one processor: nothing is pinned")
	}
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pin := PinChild(cmd.Process.Pid)
	if pin == nil {
		t.Fatal("not pinned")
	}
	var during unix.CPUSet
	unix.SchedGetaffinity(cmd.Process.Pid, &during)
	pin.Release(cmd.Process.Pid)
	var after unix.CPUSet
	unix.SchedGetaffinity(cmd.Process.Pid, &after)
	if during.Count() != mine.Count()-1 || after != mine {
		t.Fatalf("processors: %d, %d while pinned (want one less), given back: %v", mine.Count(), during.Count(), after == mine)
	}
}
