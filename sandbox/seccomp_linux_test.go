package sandbox

import (
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

// seccompProbe runs raw syscalls from python3 inside the sandbox and prints
// "name errno" for each: 0 means the call went through.
const seccompProbe = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for spec in sys.argv[1:]:
    name, nr, *args = spec.split(":")
    args = [ctypes.c_ulong(int(a, 0)) for a in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(int(nr)), *args)
    print(name, ctypes.get_errno() if r == -1 else 0, flush=True)
`

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
}

func TestSeccompBlocks(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	nsUser := fmt.Sprint(unix.CLONE_NEWUSER)
	// clone(flags) with namespace flags: SIGCHLD|CLONE_NEWUSER. If the
	// filter let it through the child would return 0 here and print twice.
	specs := []struct {
		name, call string
		want       unix.Errno
	}{
		{"ptrace", fmt.Sprintf("ptrace:%d:0:0:0:0", unix.SYS_PTRACE), unix.EPERM},
		{"process_vm_readv", fmt.Sprintf("process_vm_readv:%d:1:0:0:0:0:0", unix.SYS_PROCESS_VM_READV), unix.EPERM},
		{"process_vm_writev", fmt.Sprintf("process_vm_writev:%d:1:0:0:0:0:0", unix.SYS_PROCESS_VM_WRITEV), unix.EPERM},
		{"io_uring_setup", fmt.Sprintf("io_uring_setup:%d:8:0", unix.SYS_IO_URING_SETUP), unix.EPERM},
		{"unshare_user", fmt.Sprintf("unshare_user:%d:%s", unix.SYS_UNSHARE, nsUser), unix.EPERM},
		{"unshare_mnt", fmt.Sprintf("unshare_mnt:%d:%d", unix.SYS_UNSHARE, unix.CLONE_NEWNS), unix.EPERM},
		{"unshare_net_highbits", fmt.Sprintf("unshare_net_highbits:%d:%d", unix.SYS_UNSHARE, uint64(1)<<32|unix.CLONE_NEWNET), unix.EPERM},
		{"clone_user", fmt.Sprintf("clone_user:%d:%d:0:0:0:0", unix.SYS_CLONE, unix.CLONE_NEWUSER|int(unix.SIGCHLD)), unix.EPERM},
		{"clone3", fmt.Sprintf("clone3:%d:0:0", unix.SYS_CLONE3), unix.ENOSYS},
		{"mount", fmt.Sprintf("mount:%d:0:0:0:0:0", unix.SYS_MOUNT), unix.EPERM},
		{"umount2", fmt.Sprintf("umount2:%d:0:0", unix.SYS_UMOUNT2), unix.EPERM},
		{"pivot_root", fmt.Sprintf("pivot_root:%d:0:0", unix.SYS_PIVOT_ROOT), unix.EPERM},
		{"open_tree", fmt.Sprintf("open_tree:%d:0:0:0", unix.SYS_OPEN_TREE), unix.EPERM},
		{"fsopen", fmt.Sprintf("fsopen:%d:0:0", unix.SYS_FSOPEN), unix.EPERM},
		{"setns", fmt.Sprintf("setns:%d:0:0", unix.SYS_SETNS), unix.EPERM},
		{"keyctl", fmt.Sprintf("keyctl:%d:0:0:0:0:0", unix.SYS_KEYCTL), unix.EPERM},
		{"add_key", fmt.Sprintf("add_key:%d:0:0:0:0:0", unix.SYS_ADD_KEY), unix.EPERM},
		{"request_key", fmt.Sprintf("request_key:%d:0:0:0:0", unix.SYS_REQUEST_KEY), unix.EPERM},
		{"bpf", fmt.Sprintf("bpf:%d:0:0:0", unix.SYS_BPF), unix.EPERM},
		{"perf_event_open", fmt.Sprintf("perf_event_open:%d:0:0:0:0:0", unix.SYS_PERF_EVENT_OPEN), unix.EPERM},
		{"userfaultfd", fmt.Sprintf("userfaultfd:%d:0", unix.SYS_USERFAULTFD), unix.EPERM},
		{"open_by_handle_at", fmt.Sprintf("open_by_handle_at:%d:0:0:0", unix.SYS_OPEN_BY_HANDLE_AT), unix.EPERM},
		{"vsock", fmt.Sprintf("vsock:%d:%d:1:0", unix.SYS_SOCKET, unix.AF_VSOCK), unix.EPERM},
		{"pidfd_getfd", fmt.Sprintf("pidfd_getfd:%d:0:0:0", unix.SYS_PIDFD_GETFD), unix.EPERM},
		// openat2's mode is in memory the filter cannot read: callers
		// fall back to openat, whose mode it checks.
		{"openat2", fmt.Sprintf("openat2:%d:0:0:0:0", unix.SYS_OPENAT2), unix.ENOSYS},
		{"fchmodat_setuid", fmt.Sprintf("fchmodat_setuid:%d:%d:0:%d", unix.SYS_FCHMODAT, unix.AT_FDCWD&0xffffffff, 0o4755), unix.EPERM},
	}
	if runtime.GOARCH == "amd64" {
		// An x32 syscall number: the same getpid through the other ABI.
		specs = append(specs, struct {
			name, call string
			want       unix.Errno
		}{"x32_getpid", fmt.Sprintf("x32_getpid:%d", 0x40000000|unix.SYS_GETPID), unix.EPERM})
	}
	args := []string{"python3", "-c", seccompProbe}
	for _, s := range specs {
		args = append(args, s.call)
	}
	// Allowed calls still work.
	args = append(args, fmt.Sprintf("getpid:%d", unix.SYS_GETPID), fmt.Sprintf("unshare_files:%d:%d", unix.SYS_UNSHARE, unix.CLONE_FILES))
	r := bwRun(t, bwPolicy(t, dir), args...)
	if r.ExitCode != 0 {
		t.Fatalf("probe: %+v", r)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		name, errno, _ := strings.Cut(line, " ")
		if _, dup := got[name]; dup {
			t.Errorf("%s printed twice: a clone went through", name)
		}
		got[name] = errno
	}
	for _, s := range specs {
		if want := fmt.Sprint(int(s.want)); got[s.name] != want {
			t.Errorf("%s: errno %q, want %s (%v)", s.name, got[s.name], want, s.want)
		}
	}
	if got["getpid"] != "0" || got["unshare_files"] != "0" {
		t.Errorf("allowed syscalls refused: getpid %q unshare(CLONE_FILES) %q", got["getpid"], got["unshare_files"])
	}
}

// TestSeccompTIOCSTI pushes a character into a terminal's input queue, the
// classic way out of a sandbox that shares the user's terminal.
func TestSeccompTIOCSTI(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	script := fmt.Sprintf(`
import os, fcntl, ctypes
m, s = os.openpty()
for cmd in (%d, %d, (1 << 32) | %d):
    try:
        fcntl.ioctl(s, cmd, b"x")
        print("allowed")
    except OSError as e:
        print(e.errno)
`, unix.TIOCSTI, unix.TIOCLINUX, unix.TIOCSTI)
	r := bwRun(t, bwPolicy(t, dir), "python3", "-c", script)
	want := fmt.Sprintf("%d\n%d\n%d\n", unix.EPERM, unix.EPERM, unix.EPERM)
	if r.stdout != want {
		t.Errorf("TIOCSTI/TIOCLINUX: got %q (stderr %q), want %q", r.stdout, r.stderr, want)
	}
}

// TestSeccompI386 makes a 32-bit "int 0x80" syscall from a 64-bit
// process: the architecture check must refuse it.
func TestSeccompI386(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("x86-64 only")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "int80.c")
	// getpid is 20 on i386. The result is printed as a number: a pid
	// means the call went through.
	code := `#include <stdio.h>
int main(void) {
	long r;
	__asm__ volatile ("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	printf("%ld\n", r);
	return 0;
}
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "int80")
	if out, err := exec.Command(gcc, "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("gcc: %v %s", err, out)
	}
	// Without the filter the call works, or the kernel has no 32-bit
	// emulation at all (then there is nothing to refuse).
	if out, err := exec.Command(bin).Output(); err != nil || strings.TrimSpace(string(out)) == fmt.Sprint(-int(unix.ENOSYS)) {
		t.Skipf("no i386 syscalls on this kernel (%v %q)", err, out)
	}
	r := bwRun(t, bwPolicy(t, dir), bin)
	if got := strings.TrimSpace(r.stdout); got != fmt.Sprint(-int(unix.EPERM)) {
		t.Errorf("int 0x80 getpid returned %q (stderr %q), want -EPERM", got, r.stderr)
	}
}

// TestSeccompInstallFailureRefuses hands bwrap a broken program: the
// command must not run.
func TestSeccompInstallFailureRefuses(t *testing.T) {
	dir := t.TempDir()
	seccompTestOverride = []byte{1, 2, 3, 4, 5, 6, 7}
	t.Cleanup(func() { seccompTestOverride = nil })
	b := bwBackend(t)
	proc, err := b.Start(bwPolicy(t, dir), &Command{Argv: []string{"/bin/sh", "-c", "touch ran"}, Env: bwEnv})
	if err == nil {
		st, werr := proc.Wait()
		if werr == nil && st.ExitCode == 0 {
			t.Errorf("ran with a broken filter: %+v", st)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Errorf("the command ran although the filter could not be installed")
	}
}

func TestSeccompProgramShape(t *testing.T) {
	prog, err := seccompProgram()
	if err != nil {
		t.Skip(err)
	}
	if prog[0].Code != unix.BPF_LD|unix.BPF_W|unix.BPF_ABS || prog[0].K != seccompOffArch {
		t.Errorf("first instruction does not load the architecture: %+v", prog[0])
	}
	last := prog[len(prog)-1]
	if last.Code != unix.BPF_RET|unix.BPF_K || last.K != seccompErrno(unix.EPERM) {
		t.Errorf("last instruction %+v", last)
	}
	b, err := seccompBytes()
	if err != nil || len(b) != 8*len(prog) {
		t.Errorf("bytes: %d for %d instructions, %v", len(b), len(prog), err)
	}
}

// seccompChildArg makes the test binary install the filter on all its
// threads and try a blocked call.
const seccompChildArg = "__seccomp_child"

func seccompChild() int {
	before := underSeccomp()
	if err := installSeccompAll(); err != nil {
		fmt.Println("install:", err)
		return 2
	}
	_, _, errno := unix.Syscall(unix.SYS_UNSHARE, unix.CLONE_NEWUSER, 0, 0)
	_, _, errno2 := unix.Syscall(unix.SYS_PTRACE, unix.PTRACE_TRACEME, 0, 0)
	fmt.Println("unshare", int(errno), "ptrace", int(errno2))
	fmt.Println("under seccomp before", before, "after", underSeccomp())
	return 0
}

// installSeccompAll sets no_new_privs and installs the shared filter on
// every thread of the test process (TSYNC).
func installSeccompAll() error {
	prog, _, err := seccompCached()
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return errno
	}
	if r != 0 {
		return fmt.Errorf("thread %d could not take the filter", r)
	}
	return nil
}

func TestInstallSeccompChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, seccompChildArg).CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v %s", err, out)
	}
	if want := fmt.Sprintf("unshare %d ptrace %d", int(unix.EPERM), int(unix.EPERM)); !strings.Contains(string(out), want) {
		t.Errorf("child output %q, want %q", out, want)
	}
	// Detect's check for a container's filter sees this one.
	if want := fmt.Sprintf("under seccomp before %v after true", underSeccomp()); !strings.Contains(string(out), want) {
		t.Errorf("child output %q, want %q", out, want)
	}
}

// bpfRun interprets the classic BPF subset the filter uses over a
// seccomp_data built from nr, arch and args.
func bpfRun(t *testing.T, prog []unix.SockFilter, nr int, arch uint32, args ...uint64) uint32 {
	t.Helper()
	var data [64]byte
	le := func(off int, v uint64, n int) {
		for i := 0; i < n; i++ {
			data[off+i] = byte(v >> (8 * i))
		}
	}
	le(0, uint64(uint32(nr)), 4)
	le(4, uint64(arch), 4)
	for i, a := range args {
		le(16+8*i, a, 8)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			k := int(in.K)
			acc = uint32(data[k]) | uint32(data[k+1])<<8 | uint32(data[k+2])<<16 | uint32(data[k+3])<<24
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			var ok bool
			switch in.Code &^ (unix.BPF_JMP | unix.BPF_K) {
			case unix.BPF_JEQ:
				ok = acc == in.K
			case unix.BPF_JGE:
				ok = acc >= in.K
			case unix.BPF_JSET:
				ok = acc&in.K != 0
			}
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("unexpected instruction %+v at %d", in, pc)
		}
	}
	t.Fatal("program fell off the end")
	return 0
}

func TestSeccompProgramSemantics(t *testing.T) {
	prog, err := seccompProgram()
	if err != nil {
		t.Skip(err)
	}
	native, _ := seccompArch()
	eperm, enosys := seccompErrno(unix.EPERM), seccompErrno(unix.ENOSYS)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	for _, c := range []struct {
		name string
		nr   int
		arch uint32
		args []uint64
		want uint32
	}{
		{"read", unix.SYS_READ, native, nil, allow},
		{"i386 arch", 20, unix.AUDIT_ARCH_I386, nil, eperm},
		{"arm32 arch", 20, unix.AUDIT_ARCH_ARM, nil, eperm},
		{"ptrace", unix.SYS_PTRACE, native, nil, eperm},
		{"ioctl TIOCSTI", unix.SYS_IOCTL, native, []uint64{0, unix.TIOCSTI}, eperm},
		{"ioctl TIOCSTI high bits", unix.SYS_IOCTL, native, []uint64{0, 0xffffffff00000000 | unix.TIOCSTI}, eperm},
		{"ioctl TIOCGWINSZ", unix.SYS_IOCTL, native, []uint64{0, unix.TIOCGWINSZ}, allow},
		{"clone thread", unix.SYS_CLONE, native, []uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}, allow},
		{"clone newpid", unix.SYS_CLONE, native, []uint64{unix.CLONE_NEWPID}, eperm},
		{"unshare newtime", unix.SYS_UNSHARE, native, []uint64{unix.CLONE_NEWTIME}, eperm},
		{"clone3", unix.SYS_CLONE3, native, nil, enosys},
		{"socket inet", unix.SYS_SOCKET, native, []uint64{unix.AF_INET}, allow},
		{"socket vsock", unix.SYS_SOCKET, native, []uint64{unix.AF_VSOCK}, eperm},
	} {
		if got := bpfRun(t, prog, c.nr, c.arch, c.args...); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
	if native == unix.AUDIT_ARCH_X86_64 {
		if got := bpfRun(t, prog, 0x40000000|unix.SYS_GETPID, native); got != eperm {
			t.Errorf("x32 getpid: %#x", got)
		}
	}
	for _, d := range seccompDenied {
		if got := bpfRun(t, prog, int(d.nr), native); got != eperm {
			t.Errorf("%s: %#x, want EPERM", d.name, got)
		}
	}
}
