package sandbox

import (
	"golang.org/x/sys/unix"
)

// processFilter is the Landlock backend's third seccomp filter: what keeps
// the command away from processes outside its own tree, which Landlock
// alone does not. Without a pid namespace every process of the user is
// addressable by pid, and the kernel lets a process of the same user lower
// another's resource limits (prlimit), priority (setpriority, ioprio_set),
// CPU placement and scheduling (sched_setaffinity, sched_setscheduler,
// sched_setparam, sched_setattr) and move its memory (migrate_pages,
// move_pages): a command could starve safeexec (no descriptors left to
// write the audit record) or any host process. So those calls are allowed
// only on the caller itself (pid 0; for setpriority and ioprio_set, the
// caller or its own process group, never "every process of the user"),
// and process_madvise, which acts on another process through a pidfd, is
// refused. POSIX message queues live in the IPC namespace, which Landlock
// does not have and does not see: the host's queues would be the
// command's to read, fill or unlink, so mq_* is refused. (SysV IPC is
// reached by id as well as by key and cannot be told apart; doctor says
// it is shared.)
//
// Landlock scopes signals from ABI 6: a signal (kill, tkill, tgkill,
// rt_sigqueueinfo, pidfd_send_signal, and SIGIO/SIGURG through F_SETOWN)
// reaches only processes in the command's domain or below. Without that
// scoping (scoped false) the filter refuses what it can tell apart:
// signals to safeexec (kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo
// and pidfd_open naming its pid), to its process group, and to every
// process at once (kill -1); tkill and pidfd_send_signal (whose target
// the filter cannot see); and the ways to have the kernel signal an
// owner (fcntl F_SETOWN, F_SETOWN_EX and F_SETSIG, ioctl FIOSETOWN and
// SIOCSPGRP). A signal to another host process by its pid cannot be told
// apart from one to the command's own child, and stays possible there:
// doctor says so.
//
// ptrace, process_vm_readv/writev, pidfd_getfd and kcmp are refused by
// the shared filter; /proc/<pid>/mem, environ and the like need ptrace
// access, which Landlock denies outside the domain (and safeexec is not
// dumpable).
// The socket ioctls that set a signal owner (asm-generic/sockios.h).
const (
	ioctlFIOSETOWN = 0x8901
	ioctlSIOCSPGRP = 0x8902
)

func processFilter(scoped bool, self, pgrp int) ([]unix.SockFilter, error) {
	arch, err := seccompArch()
	if err != nil {
		return nil, err
	}
	a := &bpfAsm{labels: map[string]int{}}
	a.load(seccompOffArch)
	a.jump(unix.BPF_JEQ, arch, "", "eperm")
	a.load(seccompOffNR)
	for _, nr := range []uintptr{unix.SYS_PRLIMIT64, unix.SYS_SCHED_SETAFFINITY, unix.SYS_SCHED_SETSCHEDULER,
		unix.SYS_SCHED_SETPARAM, unix.SYS_SCHED_SETATTR, unix.SYS_MIGRATE_PAGES, unix.SYS_MOVE_PAGES} {
		a.jump(unix.BPF_JEQ, uint32(nr), "pid0", "")
	}
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_SETPRIORITY), "setpriority", "")
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_IOPRIO_SET), "ioprio", "")
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_PROCESS_MADVISE), "eperm", "")
	for _, nr := range []uintptr{unix.SYS_MQ_OPEN, unix.SYS_MQ_UNLINK, unix.SYS_MQ_TIMEDSEND,
		unix.SYS_MQ_TIMEDRECEIVE, unix.SYS_MQ_NOTIFY, unix.SYS_MQ_GETSETATTR} {
		a.jump(unix.BPF_JEQ, uint32(nr), "eperm", "")
	}
	if !scoped {
		a.jump(unix.BPF_JEQ, uint32(unix.SYS_KILL), "kill", "")
		a.jump(unix.BPF_JEQ, uint32(unix.SYS_TKILL), "eperm", "")
		a.jump(unix.BPF_JEQ, uint32(unix.SYS_PIDFD_SEND_SIGNAL), "eperm", "")
		for _, nr := range []uintptr{unix.SYS_TGKILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO, unix.SYS_PIDFD_OPEN} {
			a.jump(unix.BPF_JEQ, uint32(nr), "notself", "")
		}
		a.jump(unix.BPF_JEQ, uint32(unix.SYS_FCNTL), "fcntl", "")
		a.jump(unix.BPF_JEQ, uint32(unix.SYS_IOCTL), "ioctl", "")
	}
	a.ret(unix.SECCOMP_RET_ALLOW)

	// The first argument is a pid: only 0, the caller itself.
	a.label("pid0")
	a.load(seccompArgLow(0))
	a.jump(unix.BPF_JEQ, 0, "allow", "eperm")

	// setpriority(which, who, prio): PRIO_USER means every process of a
	// user; otherwise who must be 0 (the caller, its process group).
	a.label("setpriority")
	a.load(seccompArgLow(0))
	a.jump(unix.BPF_JEQ, unix.PRIO_USER, "eperm", "")
	a.load(seccompArgLow(1))
	a.jump(unix.BPF_JEQ, 0, "allow", "eperm")

	// ioprio_set(which, who, ioprio): the same, IOPRIO_WHO_USER being 3.
	a.label("ioprio")
	a.load(seccompArgLow(0))
	a.jump(unix.BPF_JEQ, 3, "eperm", "")
	a.load(seccompArgLow(1))
	a.jump(unix.BPF_JEQ, 0, "allow", "eperm")

	if !scoped {
		// kill(pid, sig): not safeexec, not its process group, not -1.
		a.label("kill")
		a.load(seccompArgLow(0))
		a.jump(unix.BPF_JEQ, uint32(self), "eperm", "")
		a.jump(unix.BPF_JEQ, 0xffffffff, "eperm", "") // -1
		if pgrp > 0 {
			a.jump(unix.BPF_JEQ, uint32(int32(-pgrp)), "eperm", "")
		}
		a.ret(unix.SECCOMP_RET_ALLOW)

		// The first argument is a process: not safeexec.
		a.label("notself")
		a.load(seccompArgLow(0))
		a.jump(unix.BPF_JEQ, uint32(self), "eperm", "allow")

		// fcntl(fd, cmd, …): no signal owner, no signal choice.
		a.label("fcntl")
		a.load(seccompArgLow(1))
		a.jump(unix.BPF_JEQ, unix.F_SETOWN, "eperm", "")
		a.jump(unix.BPF_JEQ, unix.F_SETOWN_EX, "eperm", "")
		a.jump(unix.BPF_JEQ, unix.F_SETSIG, "eperm", "allow")

		a.label("ioctl")
		a.load(seccompArgLow(1))
		a.jump(unix.BPF_JEQ, ioctlFIOSETOWN, "eperm", "")
		a.jump(unix.BPF_JEQ, ioctlSIOCSPGRP, "eperm", "allow")
	}

	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("eperm")
	a.ret(seccompErrno(unix.EPERM))
	return a.resolve()
}
