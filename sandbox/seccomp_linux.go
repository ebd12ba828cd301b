package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter every Linux backend installs. It is a classic BPF
// program assembled here, without a BPF library: it is short, and every
// instruction is one we can read.
//
// Policy: a syscall from any architecture but the native one is refused
// (on x86-64 that covers i386 "int 0x80" and the x32 ABI), the syscalls
// below return EPERM, clone3 returns ENOSYS (its flags live in memory the
// filter cannot read; libc then falls back to clone, whose flags it can),
// and everything else is allowed. The filter narrows what the kernel
// offers; the namespaces and mounts do the confining.
//
// A file mode with the set-user-ID or set-group-ID bit is refused too
// (chmod, open and mknod and their variants; openat2, whose mode lives in
// memory, gets ENOSYS as on kernels before 5.6 and callers fall back to
// openat). The files a command creates in a writable root belong, on the
// host, to the user who ran safeexec: root, when the command runs as an
// unprivileged uid mapped onto root. A set-user-ID copy of a shell left
// in the project would hand that user's rights (root's) to whoever runs
// it later, on the host, outside every sandbox.

// seccompDenied are refused outright with EPERM.
var seccompDenied = []struct {
	name string
	nr   uintptr
}{
	{"ptrace", unix.SYS_PTRACE},
	{"process_vm_readv", unix.SYS_PROCESS_VM_READV},
	{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV},
	{"pidfd_getfd", unix.SYS_PIDFD_GETFD},
	{"kcmp", unix.SYS_KCMP},
	{"io_uring_setup", unix.SYS_IO_URING_SETUP},
	{"io_uring_enter", unix.SYS_IO_URING_ENTER},
	{"io_uring_register", unix.SYS_IO_URING_REGISTER},
	{"mount", unix.SYS_MOUNT},
	{"umount2", unix.SYS_UMOUNT2},
	{"pivot_root", unix.SYS_PIVOT_ROOT},
	{"move_mount", unix.SYS_MOVE_MOUNT},
	{"open_tree", unix.SYS_OPEN_TREE},
	{"fsopen", unix.SYS_FSOPEN},
	{"fsconfig", unix.SYS_FSCONFIG},
	{"fsmount", unix.SYS_FSMOUNT},
	{"fspick", unix.SYS_FSPICK},
	{"mount_setattr", unix.SYS_MOUNT_SETATTR},
	{"setns", unix.SYS_SETNS},
	{"chroot", unix.SYS_CHROOT},
	{"keyctl", unix.SYS_KEYCTL},
	{"add_key", unix.SYS_ADD_KEY},
	{"request_key", unix.SYS_REQUEST_KEY},
	{"bpf", unix.SYS_BPF},
	{"perf_event_open", unix.SYS_PERF_EVENT_OPEN},
	{"userfaultfd", unix.SYS_USERFAULTFD},
	{"kexec_load", unix.SYS_KEXEC_LOAD},
	{"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD},
	{"init_module", unix.SYS_INIT_MODULE},
	{"finit_module", unix.SYS_FINIT_MODULE},
	{"delete_module", unix.SYS_DELETE_MODULE},
	{"reboot", unix.SYS_REBOOT},
	{"swapon", unix.SYS_SWAPON},
	{"swapoff", unix.SYS_SWAPOFF},
	{"acct", unix.SYS_ACCT},
	{"syslog", unix.SYS_SYSLOG},
	{"quotactl", unix.SYS_QUOTACTL},
	{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT},
	{"name_to_handle_at", unix.SYS_NAME_TO_HANDLE_AT},
	{"fanotify_init", unix.SYS_FANOTIFY_INIT},
	{"vhangup", unix.SYS_VHANGUP},
	{"settimeofday", unix.SYS_SETTIMEOFDAY},
	{"clock_settime", unix.SYS_CLOCK_SETTIME},
	{"clock_adjtime", unix.SYS_CLOCK_ADJTIME},
	{"adjtimex", unix.SYS_ADJTIMEX},
}

// seccompModeCall is a syscall that takes a file mode in argument arg.
type seccompModeCall struct {
	name string
	nr   uintptr
	arg  int
}

// seccompSetID are the mode bits a command may not set: S_ISUID, S_ISGID.
const seccompSetID = unix.S_ISUID | unix.S_ISGID

// seccompNamespaceFlags are the clone/unshare flags that create
// namespaces.
const seccompNamespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// Offsets into struct seccomp_data. Both supported architectures are
// little-endian, so the low 32 bits of argument i are at 16+8*i.
const (
	seccompOffNR   = 0
	seccompOffArch = 4
)

func seccompArgLow(i int) uint32 { return uint32(16 + 8*i) }

const seccompX32Bit = 0x40000000

// seccompArch returns the audit architecture of the running binary.
func seccompArch() (uint32, error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, nil
	}
	return 0, fmt.Errorf("seccomp: no filter for %s (only amd64 and arm64)", runtime.GOARCH)
}

// bpfAsm assembles classic BPF with symbolic jump targets.
type bpfAsm struct {
	ins    []unix.SockFilter
	labels map[string]int
	fixups []bpfFixup
}

type bpfFixup struct {
	at         int
	jt, jf     string
	unresolved bool
}

func (a *bpfAsm) label(name string) { a.labels[name] = len(a.ins) }

func (a *bpfAsm) load(off uint32) {
	a.ins = append(a.ins, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *bpfAsm) ret(v uint32) {
	a.ins = append(a.ins, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: v})
}

// jump appends a conditional jump (op is BPF_JEQ, BPF_JGE or BPF_JSET); an
// empty target means "the next instruction".
func (a *bpfAsm) jump(op uint16, k uint32, jt, jf string) {
	a.fixups = append(a.fixups, bpfFixup{at: len(a.ins), jt: jt, jf: jf})
	a.ins = append(a.ins, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *bpfAsm) resolve() ([]unix.SockFilter, error) {
	off := func(from int, to string) (uint8, error) {
		if to == "" {
			return 0, nil
		}
		t, ok := a.labels[to]
		if !ok {
			return 0, fmt.Errorf("seccomp: undefined label %q", to)
		}
		d := t - from - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("seccomp: jump to %q out of range (%d)", to, d)
		}
		return uint8(d), nil
	}
	for _, f := range a.fixups {
		jt, err := off(f.at, f.jt)
		if err != nil {
			return nil, err
		}
		jf, err := off(f.at, f.jf)
		if err != nil {
			return nil, err
		}
		a.ins[f.at].Jt, a.ins[f.at].Jf = jt, jf
	}
	return a.ins, nil
}

func seccompErrno(e unix.Errno) uint32 {
	return unix.SECCOMP_RET_ERRNO | (uint32(e) & unix.SECCOMP_RET_DATA)
}

// seccompProgram returns the filter for the running architecture.
func seccompProgram() ([]unix.SockFilter, error) {
	arch, err := seccompArch()
	if err != nil {
		return nil, err
	}
	a := &bpfAsm{labels: map[string]int{}}
	a.load(seccompOffArch)
	a.jump(unix.BPF_JEQ, arch, "", "eperm")
	a.load(seccompOffNR)
	if arch == unix.AUDIT_ARCH_X86_64 {
		a.jump(unix.BPF_JGE, seccompX32Bit, "eperm", "")
	}
	for _, d := range seccompDenied {
		a.jump(unix.BPF_JEQ, uint32(d.nr), "eperm", "")
	}
	modeArgs := map[int]bool{}
	for _, m := range seccompModeCalls {
		a.jump(unix.BPF_JEQ, uint32(m.nr), fmt.Sprintf("mode%d", m.arg), "")
		modeArgs[m.arg] = true
	}
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_OPENAT2), "enosys", "")
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_IOCTL), "ioctl", "")
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_CLONE), "flags0", "")
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_UNSHARE), "flags0", "")
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_CLONE3), "enosys", "")
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_SOCKET), "socket", "")
	a.ret(unix.SECCOMP_RET_ALLOW)

	// ioctl(fd, cmd): the kernel reads cmd as a 32-bit value.
	a.label("ioctl")
	a.load(seccompArgLow(1))
	a.jump(unix.BPF_JEQ, unix.TIOCSTI, "eperm", "")
	a.jump(unix.BPF_JEQ, unix.TIOCLINUX, "eperm", "")
	a.ret(unix.SECCOMP_RET_ALLOW)

	// clone(flags, ...) and unshare(flags): clone uses the low 32 bits.
	a.label("flags0")
	a.load(seccompArgLow(0))
	a.jump(unix.BPF_JSET, seccompNamespaceFlags, "eperm", "")
	a.ret(unix.SECCOMP_RET_ALLOW)

	// A mode argument with S_ISUID or S_ISGID: the kernel reads mode_t
	// as 32 bits.
	for arg := 0; arg < 6; arg++ {
		if !modeArgs[arg] {
			continue
		}
		a.label(fmt.Sprintf("mode%d", arg))
		a.load(seccompArgLow(arg))
		a.jump(unix.BPF_JSET, seccompSetID, "eperm", "")
		a.ret(unix.SECCOMP_RET_ALLOW)
	}

	// socket(domain, ...): vsock reaches the hypervisor host, outside
	// every network namespace.
	a.label("socket")
	a.load(seccompArgLow(0))
	a.jump(unix.BPF_JEQ, unix.AF_VSOCK, "eperm", "")
	a.ret(unix.SECCOMP_RET_ALLOW)

	a.label("enosys")
	a.ret(seccompErrno(unix.ENOSYS))
	a.label("eperm")
	a.ret(seccompErrno(unix.EPERM))
	return a.resolve()
}

var seccompOnce struct {
	sync.Once
	prog  []unix.SockFilter
	bytes []byte
	err   error
}

func seccompCached() ([]unix.SockFilter, []byte, error) {
	seccompOnce.Do(func() {
		prog, err := seccompProgram()
		if err != nil {
			seccompOnce.err = err
			return
		}
		if len(prog) == 0 || len(prog) > 4096 {
			seccompOnce.err = errors.New("seccomp: program has no or too many instructions")
			return
		}
		// bwrap reads struct sock_filter as laid out in memory.
		b := make([]byte, 0, len(prog)*8)
		for i := range prog {
			raw := (*[8]byte)(unsafe.Pointer(&prog[i]))
			b = append(b, raw[:]...)
		}
		seccompOnce.prog, seccompOnce.bytes = prog, b
	})
	return seccompOnce.prog, seccompOnce.bytes, seccompOnce.err
}

// seccompBytes is the program in the form bwrap's --seccomp reads.
func seccompBytes() ([]byte, error) {
	_, b, err := seccompCached()
	return b, err
}
