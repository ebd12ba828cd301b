package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// usernsCacheChildArg makes the test binary put itself under a seccomp
// filter (as in a container), run bwrap's detection twice and print how
// many probes each ran: "probes 1 0" is a probe followed by a hit.
const usernsCacheChildArg = "__userns_cache_child"

func init() {
	if len(os.Args) > 2 && os.Args[1] == usernsCacheChildArg {
		os.Exit(usernsCacheChild(os.Args[2]))
	}
}

func usernsCacheChild(filter string) int {
	if err := installTestFilter(filter == "deny-userns"); err != nil {
		fmt.Println("filter:", err)
		return 2
	}
	if !underSeccomp() {
		fmt.Println("not under seccomp")
		return 2
	}
	var runs []string
	for i := 0; i < 2; i++ {
		before := probeRuns
		be, _, err := detectBwrap()
		runs = append(runs, fmt.Sprint(probeRuns-before))
		if err != nil {
			runs = append(runs, "refused")
			continue
		}
		if len(os.Args) > 3 {
			// Start a sandbox too: "ran" or "unavailable".
			dir := os.Args[3]
			proc, err := be.Start(&Policy{Mode: Compat, Cwd: dir, WritableRoots: []string{dir}},
				&Command{Argv: []string{"/bin/true"}, Env: bwEnv})
			switch {
			case errors.Is(err, ErrUnavailable):
				runs = append(runs, "unavailable")
			case err != nil:
				runs = append(runs, "error")
			default:
				if st, err := proc.Wait(); err == nil && st.ExitCode == 0 {
					runs = append(runs, "ran")
				} else {
					runs = append(runs, "failed")
				}
			}
		}
	}
	fmt.Println("probes", strings.Join(runs, " "))
	return 0
}

// installTestFilter installs, on every thread, a filter that allows
// everything, or everything but new user namespaces.
func installTestFilter(denyUserns bool) error {
	const allow = unix.SECCOMP_RET_ALLOW
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	enosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	prog := []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: allow}}
	if denyUserns {
		prog = []unix.SockFilter{
			{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // nr
			{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_CLONE3, Jt: 0, Jf: 1},
			{Code: unix.BPF_RET | unix.BPF_K, K: enosys},
			{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_CLONE, Jt: 1, Jf: 0},
			{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_UNSHARE, Jt: 0, Jf: 3},
			{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 16}, // low half of the flags
			{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: unix.CLONE_NEWUSER, Jt: 0, Jf: 1},
			{Code: unix.BPF_RET | unix.BPF_K, K: eperm},
			{Code: unix.BPF_RET | unix.BPF_K, K: allow},
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return errno
	}
	return nil
}

func runUsernsCacheChild(t *testing.T, runtimeDir, filter string, start ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{usernsCacheChildArg, filter}, start...)...)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestUsernsProbeRemembered: under a container's seccomp filter the probe
// runs once; later runs in the same boot, user and namespaces rely on
// what it found, and a changed or untrustworthy entry is a miss.
func TestUsernsProbeRemembered(t *testing.T) {
	if _, err := findBwrap(); err != nil {
		t.Skip("no bwrap")
	}
	if err := probeUserns(); err != nil {
		t.Skipf("user namespaces refused here: %v", err)
	}
	rt := t.TempDir()
	entry := filepath.Join(rt, "safeexec", usernsCacheName)

	if got := runUsernsCacheChild(t, rt, "allow"); got != "probes 1 0" {
		t.Fatalf("first process: %q, want a probe then a hit", got)
	}
	if fi, err := os.Stat(entry); err != nil || fi.Mode().Perm()&0o022 != 0 {
		t.Fatalf("entry: %v %v", fi, err)
	}
	if got := runUsernsCacheChild(t, rt, "allow"); got != "probes 0 0" {
		t.Errorf("second process: %q, want hits", got)
	}

	// Another boot (or container, or user) has another key.
	data, _ := os.ReadFile(entry)
	if err := os.WriteFile(entry, []byte(strings.Replace(string(data), "boot=", "boot=x", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := runUsernsCacheChild(t, rt, "allow"); got != "probes 1 0" {
		t.Errorf("stale entry: %q, want a new probe", got)
	}

	// An entry others may write, or a symbolic link, is not believed.
	if err := os.Chmod(entry, 0o666); err != nil {
		t.Fatal(err)
	}
	if got := runUsernsCacheChild(t, rt, "allow"); got != "probes 1 0" {
		t.Errorf("world-writable entry: %q, want a new probe", got)
	}
	good, _ := os.ReadFile(entry)
	other := filepath.Join(rt, "elsewhere")
	os.WriteFile(other, good, 0o600)
	os.Remove(entry)
	os.Symlink(other, entry)
	if got := runUsernsCacheChild(t, rt, "allow"); got != "probes 1 0" {
		t.Errorf("symlinked entry: %q, want a new probe", got)
	}
}

// TestUsernsProbeFailureNotRemembered: a refused probe refuses bwrap every
// time and leaves nothing behind. An entry from a success under another
// filter with the same number of filters (the kernel shows no more of a
// filter than that) lets detection pass, but the sandbox then cannot be
// created: the run is refused and the entry forgotten, so the next run
// probes, and is refused, again.
func TestUsernsProbeFailureNotRemembered(t *testing.T) {
	if _, err := findBwrap(); err != nil {
		t.Skip("no bwrap")
	}
	rt := t.TempDir()
	if got := runUsernsCacheChild(t, rt, "deny-userns"); got != "probes 1 refused 1 refused" {
		t.Fatalf("got %q, want two refused probes", got)
	}
	if _, err := os.Stat(filepath.Join(rt, "safeexec", usernsCacheName)); err == nil {
		t.Errorf("a failed probe was remembered")
	}
	if err := probeUserns(); err != nil {
		t.Skipf("user namespaces refused here: %v", err)
	}
	if got := runUsernsCacheChild(t, rt, "allow"); got != "probes 1 0" {
		t.Fatalf("allow: %q", got)
	}
	if got := runUsernsCacheChild(t, rt, "deny-userns", t.TempDir()); got != "probes 0 unavailable 1 refused" {
		t.Errorf("after a success under another filter: %q, want a refused sandbox, then a refused probe", got)
	}
	if _, err := os.Stat(filepath.Join(rt, "safeexec", usernsCacheName)); err == nil {
		t.Errorf("the entry survived a sandbox that could not be created")
	}
}

// TestUsernsProbeForgottenWhenBwrapFails: when the sandbox cannot be
// created after a remembered success, the run is refused and the entry
// goes, so the next run probes again.
func TestUsernsProbeForgottenWhenBwrapFails(t *testing.T) {
	dir := t.TempDir()
	c := &usernsCache{path: filepath.Join(dir, usernsCacheName), key: []byte("k\n")}
	c.remember()
	if !c.hit() {
		t.Fatal("no hit after remember")
	}
	b := &bwrapBackend{path: "/bin/false", probe: c}
	_, err := b.Start(bwPolicy(t, dir), &Command{Argv: []string{"/bin/true"}, Env: bwEnv})
	if err == nil {
		t.Fatal("a bwrap that cannot start did not refuse")
	}
	if c.hit() {
		t.Error("the entry survived a sandbox that could not be created")
	}
}
