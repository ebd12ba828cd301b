package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// applyLimits sets the policy's resource limits on pid, the sandbox's init,
// before it starts the command (bwrap waits on --block-fd meanwhile), so the
// whole sandboxed tree inherits them.
//
// RLIMIT_NPROC is counted per user per user namespace: the sandbox has its
// own user namespace, so the limit bounds the processes of the sandbox, not
// every process the user has on the host.
func applyLimits(pid int, l Limits) error {
	set := func(res int, name string, soft, hard uint64) error {
		if soft == 0 {
			return nil
		}
		lim := unix.Rlimit{Cur: soft, Max: hard}
		if err := unix.Prlimit(pid, res, &lim, nil); err != nil {
			return fmt.Errorf("set %s limit to %d: %w", name, soft, err)
		}
		return nil
	}
	if err := set(unix.RLIMIT_NPROC, "process", l.Processes, l.Processes); err != nil {
		return err
	}
	if err := set(unix.RLIMIT_NOFILE, "open file", l.OpenFiles, l.OpenFiles); err != nil {
		return err
	}
	if err := set(unix.RLIMIT_FSIZE, "file size", l.FileSize, l.FileSize); err != nil {
		return err
	}
	// SIGXCPU at the soft limit, SIGKILL a second later.
	return set(unix.RLIMIT_CPU, "cpu time", l.CPUSeconds, l.CPUSeconds+1)
}

// RLIMIT_NPROC does not bind processes whose real uid is host root (the
// kernel exempts root's user), and a sandbox started by root runs as host
// root to the kernel. For root, the process limit is a pids cgroup
// instead: one per run, removed after it.

var cgroupSeq atomic.Uint64

// pidsCgroupDir chooses the directory of a new pids cgroup for one run
// (it does not create it), enabling the controller where cgroup v2 needs
// that.
func pidsCgroupDir() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("process limit: %w", err)
	}
	var v1, v2 string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				v1 = parts[2]
			}
		}
	}
	name := fmt.Sprintf("safeexec-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	switch {
	case v1 != "":
		removeStaleCgroups(filepath.Join("/sys/fs/cgroup/pids", v1))
		return filepath.Join("/sys/fs/cgroup/pids", v1, name), nil
	case v2 != "":
		base := filepath.Join("/sys/fs/cgroup", v2)
		ctl, err := os.ReadFile(filepath.Join(base, "cgroup.subtree_control"))
		if err != nil {
			return "", fmt.Errorf("process limit: %w", err)
		}
		if !slices.Contains(strings.Fields(string(ctl)), "pids") {
			if err := os.WriteFile(filepath.Join(base, "cgroup.subtree_control"), []byte("+pids"), 0); err != nil {
				return "", fmt.Errorf("process limit: enable the pids controller in %s: %w", base, err)
			}
		}
		removeStaleCgroups(base)
		return filepath.Join(base, name), nil
	}
	return "", errors.New("process limit: no pids cgroup controller")
}

// removeStaleCgroups removes the cgroups of runs whose safeexec died before
// it could (a SIGKILL before its watchdog started).
func removeStaleCgroups(base string) {
	old, _ := filepath.Glob(filepath.Join(base, "safeexec-*-*"))
	for _, d := range old {
		var pid, n int
		if _, err := fmt.Sscanf(filepath.Base(d), "safeexec-%d-%d", &pid, &n); err != nil || pid == os.Getpid() {
			continue
		}
		if unix.Kill(pid, 0) == unix.ESRCH {
			unix.Rmdir(d) // fails, harmlessly, while processes remain
		}
	}
}

// pidsCgroup creates the cgroup dir allowing max processes and moves pid
// into it.
func pidsCgroup(dir string, pid int, max uint64) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("process limit: %w", err)
	}
	// The sandbox's init counts too.
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(max+1, 10)), 0); err != nil {
		os.Remove(dir)
		return fmt.Errorf("process limit: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		os.Remove(dir)
		return fmt.Errorf("process limit: %w", err)
	}
	return nil
}

// removeCgroup removes a run's cgroup once its processes are gone.
func removeCgroup(dir string) {
	for i := 0; i < 50; i++ {
		if err := unix.Rmdir(dir); err == nil || err == unix.ENOENT {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A run's cgroup outlives a safeexec killed with SIGKILL. Its watchdog, a
// small sh started once the run has lasted watchdogDelay, waits for EOF on
// bwrap's --sync-fd (the sandbox holds the other end) and removes the
// directory. It exists only for runs with a cgroup (root with a process
// limit); what an earlier SIGKILL leaves, the next such run removes
// (removeStaleCgroups).
const cgroupWatchdogScript = `read -r _ <&3
exec 3<&-
for i in 1 2 3 4 5 6 7 8 9 10; do rmdir -- "$1" 2>/dev/null && exit; sleep 0.1; done
`

// watchdogDelay is how long a run lasts before its watchdog starts: short
// runs never pay for the process.
var watchdogDelay = 50 * time.Millisecond

type cgroupWatchdog struct {
	sync  *os.File
	timer *time.Timer
	cmd   chan *exec.Cmd
}

// watchCgroup arranges for the watchdog of cgroup; it owns sync, the read
// end of bwrap's --sync-fd, from here on.
func watchCgroup(sync *os.File, cgroup string) *cgroupWatchdog {
	cmd := &exec.Cmd{
		Path:        "/bin/sh",
		Args:        []string{"safeexec-cgroup-watchdog", "-c", cgroupWatchdogScript, "sh", cgroup},
		Env:         []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL=C"},
		ExtraFiles:  []*os.File{sync},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	w := &cgroupWatchdog{sync: sync, cmd: make(chan *exec.Cmd, 1)}
	w.timer = time.AfterFunc(watchdogDelay, func() {
		if cmd.Start() != nil {
			cmd = nil
		}
		w.cmd <- cmd
	})
	return w
}

// stop ends the watchdog of a run that safeexec itself cleaned up.
func (w *cgroupWatchdog) stop() {
	if w == nil {
		return
	}
	if w.timer.Stop() {
		close(w.cmd)
	}
	c := <-w.cmd
	w.sync.Close()
	if c != nil {
		c.Process.Kill()
		go c.Wait()
	}
}
