package sandbox

// The Landlock backend has no pid namespace to end a command's daemons
// with it: a process that starts a session of its own (setsid, a
// double fork) outlives the session sweep, still confined, but free to
// write a git hook or an .envrc into a writable root after the run has
// restored them. So while a Landlock run is active safeexec is a child
// subreaper (prctl PR_SET_CHILD_SUBREAPER): the command's orphans are
// reparented to it instead of to init, and when the run ends every such
// adopted process that carries the sandbox's marks (no_new_privs and more
// seccomp filters than safeexec itself has) is killed and reaped.

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

var adoption struct {
	sync.Mutex
	runs int
	// was says the process was a subreaper before the first run (an
	// embedding program's own choice, left as it was).
	was bool
	// live are the pids of commands started and not yet reaped: direct
	// children that other code (os/exec) waits for.
	live map[int]bool
}

// adoptBegin makes safeexec a child subreaper for a run about to start.
func adoptBegin() {
	adoption.Lock()
	defer adoption.Unlock()
	if adoption.runs == 0 {
		v, err := unix.PrctlRetInt(unix.PR_GET_CHILD_SUBREAPER, 0, 0, 0, 0)
		adoption.was = err == nil && v != 0
		if !adoption.was {
			unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		}
		adoption.live = map[int]bool{}
	}
	adoption.runs++
}

// adoptStarted records a command's pid (0 when it did not start).
func adoptStarted(pid int) {
	if pid <= 0 {
		return
	}
	adoption.Lock()
	adoption.live[pid] = true
	adoption.Unlock()
}

// adoptEnd ends one run whose command pid has been reaped, and whose
// session's other processes were killed: once those are dead (a dying
// process hands its children to the subreaper first), it kills and reaps
// the sandboxed processes reparented to safeexec, and stops being a
// subreaper after the last run.
func adoptEnd(pid int, killed []int) {
	for _, k := range killed {
		waitDying(k)
	}
	adoption.Lock()
	defer adoption.Unlock()
	delete(adoption.live, pid)
	killAdopted(adoption.live)
	adoption.runs--
	if adoption.runs == 0 && !adoption.was {
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	}
}

// killAdopted kills the children of this process that are sandboxed
// (sandboxMarks) and not in live, and reaps them, in passes until none is
// left: a process killed in one pass may leave children that reach us in
// the next.
func killAdopted(live map[int]bool) {
	self := os.Getpid()
	// This thread's filters: the process's main thread may be one that a
	// run confined (the in-thread path locks whichever thread it gets),
	// this one is not (a confined thread runs nothing else).
	_, ownFilters := sandboxMarks("thread-self")
	for pass := 0; pass < 32; pass++ {
		var victims []int
		for _, n := range childrenOf() {
			pid, err := strconv.Atoi(n)
			if err != nil || pid == self || live[pid] || parentOf(n) != self {
				continue
			}
			if nnp, filters := sandboxMarks(n); nnp && filters > ownFilters {
				unix.Kill(pid, unix.SIGKILL)
				victims = append(victims, pid)
			}
		}
		if len(victims) == 0 {
			return
		}
		for _, pid := range victims {
			var ws unix.WaitStatus
			for {
				_, err := unix.Wait4(pid, &ws, 0, nil)
				if err != unix.EINTR {
					break
				}
			}
		}
	}
}

// childrenOf lists the children of this process: from each thread's
// children file where the kernel has them, else every process (the
// caller checks the parent).
func childrenOf() []string {
	if tasks, err := os.ReadDir("/proc/self/task"); err == nil {
		var out []string
		ok := true
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
			if err != nil {
				ok = false
				break
			}
			out = append(out, strings.Fields(string(b))...)
		}
		if ok {
			return out
		}
	}
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	return names
}

// waitDying waits, for a second at most, until a killed process has
// exited: gone, or a zombie (its children reparented by then).
func waitDying(pid int) {
	p := "/proc/" + strconv.Itoa(pid) + "/stat"
	for i := 0; i < 2000; i++ {
		b, err := os.ReadFile(p)
		if err != nil {
			return
		}
		s := string(b)
		if j := strings.LastIndexByte(s, ')'); j < 0 || len(s) < j+3 || s[j+2] == 'Z' || s[j+2] == 'X' {
			return
		}
		time.Sleep(500 * time.Microsecond)
	}
}

// parentOf reads the parent pid of /proc/<pid>, or -1.
func parentOf(pid string) int {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return ppid
}

// sandboxMarks reads no_new_privs and the number of seccomp filters of
// /proc/<pid> ("thread-self" for the calling thread).
func sandboxMarks(pid string) (nnp bool, filters int) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return false, 0
	}
	mode, counted := 0, false
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "NoNewPrivs":
			nnp = v == "1"
		case "Seccomp":
			mode, _ = strconv.Atoi(v)
		case "Seccomp_filters":
			filters, _ = strconv.Atoi(v)
			counted = true
		}
	}
	if !counted && mode == 2 {
		filters = 1 // before Linux 5.9: filtered or not
	}
	return nnp, filters
}
