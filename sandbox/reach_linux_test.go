package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hostProcess starts a process outside any sandbox, the stand-in for
// everything else the user runs, and records what the command must not
// be able to change about it.
type hostProcess struct {
	cmd   *exec.Cmd
	pid   int
	state string
}

func startHostProcess(t *testing.T) *hostProcess {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &hostProcess{cmd: cmd, pid: cmd.Process.Pid}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 200 && !strings.HasPrefix(procState(t, h.pid), "state S"); i++ {
		time.Sleep(5 * time.Millisecond) // asleep, as it will be after
	}
	h.state = procState(t, h.pid)
	return h
}

// procState is what an attack on a process would change: its state,
// nice value, affinity, limits, I/O priority class.
func procState(t *testing.T, pid int) string {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "gone"
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	limits, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	var allowed string
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Cpus_allowed_list") || strings.HasPrefix(l, "TracerPid") {
			allowed += l + "\n"
		}
	}
	return "state " + f[0] + " nice " + f[16] + "\n" + allowed + string(limits)
}

// reachScript is the attack run inside the sandbox (testdata/reach.py),
// copied into root: the repository may itself lie under the host's /tmp
// (a CI checkout), which the sandbox replaces with a private one.
func reachScript(t *testing.T, root string) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("python3 not installed")
	}
	b, err := os.ReadFile("testdata/reach.py")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "reach.py")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkReach judges one attack's output: nothing outside the tree was
// reached, no other process's environment was read, the attack ran to
// the end, the host process is as it was.
func checkReach(t *testing.T, out, secret string, h *hostProcess, allowSignalsToHost bool) {
	t.Helper()
	if !strings.Contains(out, "reach done") {
		t.Errorf("the attack did not finish:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "LEAKED"):
			t.Errorf("read another process's environment: %.200s", line)
		case strings.HasPrefix(line, "REACHED"):
			f := strings.Fields(line)
			if allowSignalsToHost && len(f) == 3 && f[2] != strconv.Itoa(os.Getpid()) && signalOps[f[1]] {
				continue // below Landlock ABI 6, documented
			}
			t.Errorf("%s", line)
		}
	}
	if strings.Contains(out, secret) {
		t.Errorf("the command saw safeexec's secret")
	}
	if got := procState(t, h.pid); got != h.state {
		t.Errorf("the host process changed:\nbefore %s\nafter  %s", h.state, got)
	}
}

// signalOps are the reach.py operations that send a signal.
var signalOps = map[string]bool{"signal": true, "signal-scan": true, "tgkill": true, "tkill": true, "rt_sigqueueinfo": true, "pidfd_send_signal": true}

// reachSecret is put in this process's environment (safeexec's stand-in
// holds the stripped secrets in its own).
func reachSecret(t *testing.T) string {
	b := make([]byte, 12)
	rand.Read(b)
	s := "reach-secret-" + hex.EncodeToString(b)
	t.Setenv("SAFEEXEC_TEST_REACH_SECRET", s)
	return s
}

// The command cannot signal, trace, read, limit or reprioritise anything
// outside its own tree under Landlock: not the process that started it
// (this test process stands in for safeexec, holding a secret in its
// environment; the attack sends it SIGKILL among the rest), not a host
// process. Targets are found at run time (the parent, a pid in a file).
func TestLandlockOutOfReach(t *testing.T) {
	needLandlock(t)
	for _, abi := range []int{0, 5} {
		t.Run("abi"+strconv.Itoa(abi), func(t *testing.T) {
			if abi != 0 {
				landlockABIForTest = abi
				defer func() { landlockABIForTest = 0 }()
			}
			secret := reachSecret(t)
			h := startHostProcess(t)
			root := t.TempDir()
			script := reachScript(t, root)
			if err := os.WriteFile(filepath.Join(root, "host.pid"), []byte(strconv.Itoa(h.pid)), 0o644); err != nil {
				t.Fatal(err)
			}
			target := "host.pid"
			if abi == 5 {
				target += ":nosignal"
			}
			r := runLandlock(t, llPolicy(t, root), "/usr/bin/python3", script, "landlock", target)
			// Below ABI 6 Landlock does not scope signals: a host process
			// other than safeexec can be signalled (doctor says so); its
			// state is still checked, and the probes send signal 0.
			checkReach(t, r.stdout+r.stderr, secret, h, abi == 5)
			if r.status.ExitCode != 0 {
				t.Errorf("attack exited %d: %s", r.status.ExitCode, r.stderr)
			}
		})
	}
}

// The same under bwrap, where the pid namespace hides safeexec and the
// host: their pids, read from files, lead nowhere.
func TestBwrapOutOfReach(t *testing.T) {
	bwBackend(t)
	root := t.TempDir()
	script := reachScript(t, root)
	secret := reachSecret(t)
	h := startHostProcess(t)
	os.WriteFile(filepath.Join(root, "host.pid"), []byte(strconv.Itoa(h.pid)), 0o644)
	os.WriteFile(filepath.Join(root, "self.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	r := bwRun(t, bwPolicy(t, root), "/usr/bin/python3", script, "bwrap", "host.pid", "self.pid")
	checkReach(t, r.stdout+r.stderr, secret, h, false)
	if r.ExitCode != 0 {
		t.Errorf("attack exited %d: %s", r.ExitCode, r.stderr)
	}
	time.Sleep(10 * time.Millisecond)
	if err := syscall.Kill(os.Getpid(), 0); err != nil {
		t.Error(err)
	}
}

// taskMarks returns, for every thread of this process, the marks a
// thread confined for a command would carry: no_new_privs and a seccomp
// mode.
func taskMarks(t *testing.T) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/status")
		if err != nil {
			continue // gone meanwhile
		}
		var marks []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "NoNewPrivs:") || strings.HasPrefix(l, "Seccomp:") {
				marks = append(marks, strings.Join(strings.Fields(l), " "))
			}
		}
		out[e.Name()] = strings.Join(marks, ", ")
	}
	return out
}

// No thread of safeexec is in the command's domain while it runs (or
// after): every thread of this process keeps the marks the process had,
// none has the no_new_privs and seccomp filters the command got.
func TestLandlockNoThreadInDomain(t *testing.T) {
	needLandlock(t)
	before := taskMarks(t)
	base := before[strconv.Itoa(os.Getpid())]
	root := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	proc, err := Landlock().Start(llPolicy(t, root), &Command{
		Argv: []string{"/bin/sh", "-c", "grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status; read x"},
		Env:  []string{"PATH=/usr/bin:/bin"}, Stdin: r, Stdout: w, Stderr: os.Stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Wait()
	defer w.Close()
	time.Sleep(100 * time.Millisecond)
	for tid, marks := range taskMarks(t) {
		if marks != base {
			t.Errorf("thread %d of safeexec has %q, the process %q: it is confined", mustAtoi(tid), marks, base)
		}
	}
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// harden makes the test binary call Harden and report whether the process
// is then dumpable.
const hardenArg = "__harden"

func init() {
	if len(os.Args) > 1 && os.Args[1] == hardenArg {
		before, _ := prctlDumpable()
		if err := Harden(); err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		after, _ := prctlDumpable()
		os.Stdout.WriteString("dumpable " + strconv.Itoa(before) + " " + strconv.Itoa(after) + "\n")
		os.Exit(0)
	}
}

// prctlDumpable reports the process's dumpable flag.
func prctlDumpable() (int, error) {
	return unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
}

func TestHarden(t *testing.T) {
	out, err := exec.Command(testExecutable(t), hardenArg).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "dumpable 1 0" {
		t.Fatalf("harden: %v %s (want dumpable 1 0)", err, out)
	}
}

// A POSIX message queue of the host's cannot be opened from inside
// Landlock (no IPC namespace there: the process filter refuses mq_*).
func TestLandlockNoPOSIXMessageQueues(t *testing.T) {
	needLandlock(t)
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("python3 not installed")
	}
	name := "safeexec-test-" + strconv.Itoa(os.Getpid())
	p, _ := unix.BytePtrFromString(name)
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), unix.O_RDWR|unix.O_CREAT, 0o600, 0, 0, 0)
	if errno != 0 {
		t.Skipf("mq_open on the host: %v", errno)
	}
	defer unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0)
	defer unix.Close(int(fd))
	root := t.TempDir()
	script := fmt.Sprintf(`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": (240, 241), "aarch64": (180, 181)}[os.uname().machine]
r = libc.syscall(nr[0], %q.encode(), os.O_RDWR, 0, 0)
print("open", r, ctypes.get_errno())
r = libc.syscall(nr[1], %q.encode())
print("unlink", r, ctypes.get_errno())
`, name, name)
	r := runLandlock(t, llPolicy(t, root), "/usr/bin/python3", "-c", script)
	want := fmt.Sprintf("open -1 %d\nunlink -1 %d\n", int(unix.EPERM), int(unix.EPERM))
	if r.stdout != want {
		t.Errorf("inside: %q, want %q (%s)", r.stdout, want, r.stderr)
	}
}

// What doctor says a backend cannot enforce follows the machine: the
// signal gap only below ABI 6, the root-owned files only as root.
func TestCannotEnforce(t *testing.T) {
	has := func(list []string, s string) bool { return slices.Contains(list, s) }
	if l := cannotEnforce("landlock", Compat, false, 5); !has(l, cannotLandlockSignals) || has(l, cannotRoot) {
		t.Errorf("landlock, ABI 5, not root: %q", l)
	}
	if l := cannotEnforce("landlock", Strict, true, 7); has(l, cannotLandlockSignals) || !has(l, cannotRoot) || has(l, cannotReads) {
		t.Errorf("landlock, ABI 7, root, strict: %q", l)
	}
	if l := cannotEnforce("bwrap", Compat, false, 0); !has(l, cannotHostTools) || has(l, cannotLandlockChmod) {
		t.Errorf("bwrap: %q", l)
	}
}
