package prelaunch

import (
	"os"
	"os/exec"
	"strconv"
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

// While bwrap builds the sandbox, every thread of safeexec's stays on one
// processor; reaped, safeexec has them all back.
func TestPinSelf(t *testing.T) {
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil || mine.Count() < 2 {
		t.Skip("one processor: nothing is pinned")
	}
	ch, err := StartChild("/bin/sleep", []string{"sleep", "10"}, nil, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ch.CPUs == nil {
		t.Fatal("the child was not pinned")
	}
	ch.CPUs.PinSelf()
	counts := threadCPUs(t)
	for tid, n := range counts {
		if n != 1 {
			t.Errorf("thread %d on %d processors while the child builds", tid, n)
		}
	}
	ch.Kill()
	ch.Reap()
	for tid, n := range threadCPUs(t) {
		if n != mine.Count() {
			t.Errorf("thread %d on %d processors after the child, want %d", tid, n, mine.Count())
		}
	}
	if len(counts) < 2 {
		t.Fatalf("only %d threads looked at", len(counts))
	}
}

// threadCPUs is how many processors each thread of the process may use.
func threadCPUs(t *testing.T) map[int]int {
	t.Helper()
	names, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, e := range names {
		tid, _ := strconv.Atoi(e.Name())
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &set); err == nil {
			out[tid] = set.Count()
		}
	}
	return out
}
