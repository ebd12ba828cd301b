# An attack on everything outside the command's own tree, run inside a
# sandbox by the escape tests. Usage:
#
#   reach.py MODE [TARGET_FILE...]
#
# (TARGET_FILE:nosignal: everything but signals.) MODE is "landlock" (no pid namespace: every process visible here is
# outside the tree but this one) or "bwrap" (what /proc shows is the
# sandbox's own namespace). Each TARGET_FILE holds the pid of a process to
# attack for real; the parent is attacked too when it is safeexec.
#
# Every other process is only probed, in ways that change nothing even
# when the kernel allows them (signal 0, setting a value to what it is),
# so a broken sandbox cannot harm the machine running the tests. Every
# operation the kernel allowed on a process outside the tree is printed as
#
#   REACHED <operation> <pid>
#
# and whatever environment of another process could be read is printed as
# LEAKED <text>. The last line is "reach done".
import ctypes, errno, os, resource, signal, struct, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.ptrace.restype = ctypes.c_long

ARCH = os.uname().machine
NR = {
    "x86_64": dict(tgkill=234, tkill=200, rt_sigqueueinfo=129, rt_tgsigqueueinfo=297, ioprio_get=252,
                   ioprio_set=251, process_vm_readv=310, kcmp=312, pidfd_getfd=438, process_madvise=440,
                   migrate_pages=256),
    "aarch64": dict(tgkill=131, tkill=130, rt_sigqueueinfo=138, rt_tgsigqueueinfo=240, ioprio_get=31,
                    ioprio_set=30, process_vm_readv=270, kcmp=272, pidfd_getfd=438, process_madvise=440,
                    migrate_pages=238),
}[ARCH]

me = os.getpid()
mode = sys.argv[1]
reached = []


def report(op, pid):
    print("REACHED %s %d" % (op, pid), flush=True)


def sys_call(name, *args):
    r = libc.syscall(NR[name], *[ctypes.c_long(a) for a in args])
    return r, ctypes.get_errno()


def siginfo(sig):
    # struct siginfo: signo, errno, code (SI_QUEUE = -1), pid, uid, value
    b = struct.pack("iiiiI", sig, 0, -1, me, os.getuid()) + bytes(128 - 20)
    return ctypes.create_string_buffer(b, 128)


def tasks(pid):
    try:
        return [int(t) for t in os.listdir("/proc/%d/task" % pid)]
    except OSError:
        return [pid]


def probe(pid):
    """Harmless tries: each one succeeding means the kernel let us act on pid."""
    def ok(op, f):
        try:
            if f() is not False:
                report(op, pid)
        except (OSError, ValueError, OverflowError):
            pass

    ok("signal", lambda: os.kill(pid, 0))
    ok("tgkill", lambda: sys_call("tgkill", pid, pid, 0)[0] == 0)
    ok("rt_sigqueueinfo", lambda: libc.syscall(NR["rt_sigqueueinfo"], pid, 0, siginfo(0)) == 0)
    ok("prlimit", lambda: resource.prlimit(pid, resource.RLIMIT_NOFILE))
    ok("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, pid)))
    ok("sched_setaffinity", lambda: os.sched_setaffinity(pid, os.sched_getaffinity(pid)))
    ok("sched_setscheduler", lambda: os.sched_setscheduler(pid, os.sched_getscheduler(pid), os.sched_getparam(pid)))

    def ioprio():
        v, _ = sys_call("ioprio_get", 1, pid)
        if v < 0:
            return False
        return sys_call("ioprio_set", 1, pid, v)[0] == 0
    ok("ioprio_set", ioprio)

    def environ():
        with open("/proc/%d/environ" % pid, "rb") as f:
            data = f.read()
        print("LEAKED %r" % data[:4000], flush=True)
    ok("environ", environ)
    for t in tasks(pid):
        def tenv(t=t):
            with open("/proc/%d/task/%d/environ" % (pid, t), "rb") as f:
                data = f.read()
            print("LEAKED %r" % data[:4000], flush=True)
        ok("task-environ", tenv)
        ok("task-mem", lambda t=t: open("/proc/%d/task/%d/mem" % (pid, t), "rb").close())
        ok("tkill", lambda t=t: sys_call("tkill", t, 0)[0] == 0)
    ok("mem", lambda: open("/proc/%d/mem" % pid, "rb").close())
    ok("maps", lambda: open("/proc/%d/maps" % pid).read(1) != "")

    def fds():
        names = os.listdir("/proc/%d/fd" % pid)  # the numbers alone are no reach
        for n in names:
            try:
                os.readlink("/proc/%d/fd/%s" % (pid, n))
                return True
            except OSError:
                pass
            try:
                os.close(os.open("/proc/%d/fd/%s" % (pid, n), os.O_RDONLY))
                return True
            except OSError:
                pass
        return False
    ok("fd", fds)

    def vmread():
        buf = ctypes.create_string_buffer(8)
        local = struct.pack("QQ", ctypes.addressof(buf), 8)
        remote = struct.pack("QQ", 0x10000, 8)
        r = libc.syscall(NR["process_vm_readv"], pid, ctypes.c_char_p(local), 1, ctypes.c_char_p(remote), 1, 0)
        e = ctypes.get_errno()
        return r >= 0 or e == errno.EFAULT  # EFAULT: allowed, bad address
    ok("process_vm_readv", vmread)

    def ptrace():
        if libc.ptrace(0x4206, pid, 0, 0) != 0:  # PTRACE_SEIZE: does not stop the tracee
            return False
        libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
    ok("ptrace", ptrace)

    def pidfd():
        fd = os.pidfd_open(pid)
        try:
            ok("pidfd_send_signal", lambda: signal.pidfd_send_signal(fd, 0))
            r, _ = sys_call("pidfd_getfd", fd, 0, 0)
            if r >= 0:
                os.close(r)
                report("pidfd_getfd", pid)
        finally:
            os.close(fd)
    try:
        pidfd()
    except OSError:
        pass
    ok("kcmp", lambda: sys_call("kcmp", me, pid, 0, 0, 0)[1] not in (errno.EPERM, errno.ESRCH, errno.EACCES, errno.ENOSYS))



def attack(pid, signals=True):
    """The real thing, against a process this test started for it."""
    import fcntl
    for f in (
        lambda: resource.prlimit(pid, resource.RLIMIT_NOFILE, (0, 0)),
        lambda: resource.prlimit(pid, resource.RLIMIT_CPU, (1, 1)),
        lambda: os.setpriority(os.PRIO_PROCESS, pid, 19),
        lambda: os.sched_setaffinity(pid, {0}),
        lambda: sys_call("ioprio_set", 1, pid, 3 << 13),
        lambda: libc.ptrace(0x4206, pid, 0, 0),
    ):
        try:
            f()
        except OSError:
            pass
    if not signals:
        return
    try:
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, pid)
        fcntl.fcntl(r, 10, signal.SIGKILL)  # F_SETSIG
        fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
        os.write(w, b"x")
    except OSError:
        pass
    for t in tasks(pid):
        sys_call("tgkill", pid, t, signal.SIGKILL)
        sys_call("tkill", t, signal.SIGKILL)
    libc.syscall(NR["rt_sigqueueinfo"], pid, signal.SIGKILL, siginfo(signal.SIGKILL))
    try:
        fd = os.pidfd_open(pid)
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


targets, quiet = [], set()
for arg in sys.argv[2:]:
    path, _, opt = arg.partition(":")
    with open(path) as f:
        pid = int(f.read().split()[0])
    targets.append(pid)
    if opt == "nosignal":
        quiet.add(pid)
parent = os.getppid()
if "safeexec" in comm(parent) or comm(parent).endswith(".test"):
    targets.append(parent)

visible = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
inside = {me} if mode == "landlock" else set(visible)
# Every visible process is probed, and every target; under bwrap the
# targets are not visible, which is the point.
for pid in sorted(set(visible) | set(targets)):
    if pid not in inside:
        probe(pid)
# Signal 0 to every pid there could be: the kernel answers EPERM or ESRCH
# for all but the tree.
for pid in range(1, 1 << 16):
    if pid in inside:
        continue
    try:
        os.kill(pid, 0)
        report("signal-scan", pid)
    except OSError:
        pass
# (kill -1 is not probed: it reports success when every target refused.)

# A protected path named at run time (protect.txt), changed before the
# attack on safeexec: it must be taken back all the same.
if os.path.exists("protect.txt"):
    with open("protect.txt") as f:
        name = f.read().strip()
    try:
        with open(name, "a") as f:
            f.write("pwned\n")
    except OSError as e:
        print("protected write refused: %s" % e.strerror, flush=True)

for pid in targets:
    print("attacking %d %s" % (pid, comm(pid) or "(not visible)"), flush=True)
    attack(pid, pid not in quiet)
print("reach done", flush=True)
