package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLimitsForkBomb(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	p := bwPolicy(t, dir)
	p.Limits.Processes = 20
	r := bwRun(t, p, "python3", "-c", `
import os, time, signal
n = 0
kids = []
try:
    for i in range(200):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        kids.append(pid)
        n += 1
except OSError as e:
    print("refused", e.errno)
print("forked", n, flush=True)
for k in kids:
    os.kill(k, signal.SIGKILL)
`)
	if !strings.Contains(r.stdout, "refused") {
		t.Fatalf("fork bomb not stopped: %q %q", r.stdout, r.stderr)
	}
	var n int
	for _, line := range strings.Split(r.stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "forked "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	if n >= 20 {
		t.Errorf("forked %d processes with a limit of 20", n)
	}
	// A run by root uses a pids cgroup: it must be gone.
	if left, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/pids/safeexec-%d-*", os.Getpid())); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

func TestLimitsFileSize(t *testing.T) {
	dir := t.TempDir()
	p := bwPolicy(t, dir)
	p.Limits.FileSize = 1 << 20
	r := bwSh(t, p, "head -c 8388608 /dev/zero > big")
	if r.Signal != 25 { // SIGXFSZ
		t.Errorf("huge write: %+v, want killed by SIGXFSZ", r.Status)
	}
	fi, err := os.Stat(filepath.Join(dir, "big"))
	if err != nil || fi.Size() > 1<<20 {
		t.Errorf("file on the host: %v %v, want at most 1 MiB", fi.Size(), err)
	}
}

func TestLimitsOpenFiles(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	p := bwPolicy(t, dir)
	p.Limits.OpenFiles = 16
	r := bwRun(t, p, "python3", "-c", `
fs = []
try:
    for i in range(100):
        fs.append(open("/dev/null"))
except OSError as e:
    print("refused", e.errno)
print(len(fs))
`)
	if !strings.HasPrefix(r.stdout, "refused 24") { // EMFILE
		t.Errorf("open files not limited: %q %q", r.stdout, r.stderr)
	}
}

func TestLimitsCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("burns a second of CPU")
	}
	dir := t.TempDir()
	p := bwPolicy(t, dir)
	p.Limits.CPUSeconds = 1
	r := bwSh(t, p, "while :; do :; done")
	if r.Signal != 24 && r.Signal != 9 { // SIGXCPU, then SIGKILL at the hard limit
		t.Errorf("busy loop: %+v, want SIGXCPU", r.Status)
	}
}
