package sandbox

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// bwrap builds the sandbox off safeexec's processor, and the command gets
// every processor safeexec has, started ahead or not.
func TestCommandGetsAllProcessors(t *testing.T) {
	bwBackend(t)
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil || mine.Count() < 2 {
		t.Skip("one processor: nothing is pinned")
	}
	want := allowedList(t, "/proc/self/status")
	p := bwPolicy(t, t.TempDir())
	r := bwRun(t, p, "/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	if r.ExitCode != 0 {
		t.Fatalf("exit %d: %s", r.ExitCode, r.stderr)
	}
	if got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r.stdout), "Cpus_allowed_list:")); got != want {
		t.Fatalf("the command runs on %q, safeexec on %q", got, want)
	}
}

func allowedList(t *testing.T, status string) string {
	b, err := os.ReadFile(status)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no Cpus_allowed_list")
	return ""
}
