//go:build linux

package sandbox

// The Landlock fallback backend (Linux ≥ 6.7, Landlock ABI ≥ 4), for
// machines where bwrap is missing or user namespaces are refused.
//
// Start builds the Landlock ruleset (planLandlock: the rules of the mode,
// the credential paths left out), snapshots the protected paths and forks
// the command from an unconfined thread (forkexec_linux.go): the child
// closes every descriptor it was not given, drops every capability
// (bounding set included, so a root command execs with none), sets the
// resource limits, no_new_privs and SIGKILL as its parent-death signal,
// restricts itself with the ruleset, installs the seccomp filters (the
// shared one, the socket filter, the process filter) and execs the
// command in a new session. The process IS the command: its pid, its exit
// status, its session. No thread of safeexec is ever in the command's
// Landlock domain, and safeexec is not dumpable (Harden), so the command
// can neither signal nor trace nor read it.
//
// Limits (what this backend does not do; doctor lists them, cannot.go):
//   - No namespaces: the command sees host processes (it cannot signal or
//     trace them: Landlock scopes ptrace, and signals from ABI 6; below
//     ABI 6 the process filter protects safeexec and its group only),
//     shares SysV IPC, and /dev/shm in compat and permissive mode.
//   - Network: only TCP is confined (connect to the proxy's ports, no
//     bind), and IP sockets of any other protocol (MPTCP, SCTP, which
//     Landlock does not see) or unusual families are refused by the
//     socket filter. The rule is per port, not per address: a remote host
//     on the proxy's port number is reachable. UDP (DNS included) is confined
//     only from ABI 10. Path-named unix sockets can be connected to below
//     ABI 9 (the seccomp filter decides), abstract ones are scoped from
//     ABI 6.
//   - Protected paths inside writable roots cannot be denied by Landlock;
//     they are snapshotted and restored after the run (landlock_guard.go),
//     with git's control plane of the roots' git directories
//     (gitprotect.go); other git directories are judged by the sweep
//     (gitsweep_linux.go). During the run the command can change them.
//   - Credential paths: their contents are unreadable; in compat and
//     permissive mode the names inside a denied directory can be listed.
//     A file created directly in an ancestor of a denied path (e.g. a new
//     file in $HOME) during the run is not readable.
//   - chmod, chown (without capabilities: only on one's own files),
//     utime and xattrs are not controlled by Landlock.
//   - Processes: on exit the whole session is killed, and so is every
//     process that left it (setsid, a double-forked daemon): safeexec is
//     a child subreaper while a run is active, so such orphans are
//     reparented to it and killed at the end (landlock_orphans_linux.go;
//     a process-wide setting an embedding program shares while a run is
//     active). If safeexec is SIGKILLed, the command dies (parent-death
//     signal) but its own children are orphaned, not killed: there is no
//     pid namespace to take them down.
//   - Resource limits: RLIMIT_NPROC counts every process of the user, so a
//     small limit can stop a command from forking at all when the user
//     (root, typically) already runs many.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	landlockDetect = detectLandlock
	hostLandlockABI = landlockABIVersion
}

// Landlock returns the Landlock backend. Start refuses (wrapping
// ErrUnavailable) when the kernel cannot enforce the policy.
func Landlock() Backend { return landlockBackend{} }

// landlockSeccompProgram is the shared filter's program (seccomp_linux.go);
// without it the backend refuses to run.
var landlockSeccompProgram = seccompProgram

// landlockABIForTest, when not zero, stands for the kernel's answer (-1
// for no Landlock at all), so tests can see what older kernels get.
var landlockABIForTest int

// landlockABIVersion asks the kernel for its Landlock ABI (0: none).
func landlockABIVersion() int {
	if landlockABIForTest != 0 {
		return max(landlockABIForTest, 0)
	}
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	abi := int(v)
	if abi >= 6 {
		// ABI 6 kernels without erratum 2 fixed scope signals wrongly;
		// treat them as ABI 5 (signals unscoped), as go-landlock does.
		e, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
		if errno != 0 || e&2 == 0 {
			abi = 5
		}
	}
	return abi
}

func detectLandlock() (Backend, Report, error) {
	abi := landlockABIVersion()
	r := Report{Backend: "landlock", Level: landlockLevel(abi), Checks: landlockChecks(abi)}
	need, why := landlockMinABI(Compat)
	if abi < need {
		var err error
		if abi == 0 {
			err = fmt.Errorf("landlock: not available in this kernel (Linux ≥ 6.7 with landlock in the lsm= boot list): %w", ErrUnavailable)
		} else {
			err = fmt.Errorf("landlock: ABI %d is too old: %s: %w", abi, why, ErrUnavailable)
		}
		r.Reason = err.Error()
		return nil, r, err
	}
	r.Reason = fmt.Sprintf("landlock ABI %d", abi)
	return landlockBackend{}, r, nil
}

// landlockLevel names the ABI and what it enforces, for doctor and the
// audit record.
func landlockLevel(abi int) string {
	if abi <= 0 {
		return "none"
	}
	var by, seccomp []string
	by = append(by, "filesystem")
	if abi >= llABITruncate {
		by = append(by, "truncate")
	}
	if abi >= llABINet {
		by = append(by, "tcp")
	}
	if abi >= 5 {
		by = append(by, "device ioctl")
	}
	if abi >= 6 {
		by = append(by, "signal and abstract-socket scoping")
	}
	if abi >= 9 {
		by = append(by, "unix sockets")
	} else {
		seccomp = append(seccomp, "unix sockets")
	}
	if abi >= 10 {
		by = append(by, "udp")
	} else {
		seccomp = append(seccomp, "udp")
	}
	level := fmt.Sprintf("ABI %d: %s", abi, strings.Join(by, ", "))
	if len(seccomp) > 0 {
		level += "; " + strings.Join(seccomp, " and ") + " refused by seccomp (not in permissive mode)"
	}
	return level
}

// landlockChecks says what the kernel's ABI enforces and what it cannot.
func landlockChecks(abi int) []Check {
	upgrade := "a newer kernel, or install bubblewrap (apt-get install bubblewrap) and allow user namespaces"
	need, _ := landlockMinABI(Compat)
	cs := []Check{{
		Name: "landlock", OK: abi >= need,
		Detail: fmt.Sprintf("kernel Landlock ABI %d (ABI %d needed)", abi, need),
		Fix:    "Linux 6.7 or later with landlock enabled (lsm= boot parameter), or install bubblewrap",
	}}
	add := func(name string, ok bool, detail, fix string) {
		c := Check{Name: name, OK: ok, Detail: detail}
		if !ok {
			c.Fix = fix
		}
		cs = append(cs, c)
	}
	add("landlock filesystem", abi >= llABITruncate,
		"writes only beneath the writable roots, credential paths unreadable, /dev limited to terminals and null devices",
		upgrade)
	add("landlock tcp", abi >= llABINet, "TCP connect only to the proxy's ports (any address), no TCP bind", upgrade)
	add("landlock udp", abi >= 10, map[bool]string{
		true:  "no UDP at all",
		false: "below ABI 10 Landlock cannot confine UDP: the seccomp filter refuses UDP sockets (strict, compat); permissive mode leaves DNS and datagrams open",
	}[abi >= 10], upgrade)
	add("landlock unix sockets", abi >= 9, map[bool]string{
		true:  "path unix sockets only beneath the writable roots",
		false: "below ABI 9 Landlock cannot confine connect(2) to path unix sockets: the seccomp filter refuses every AF_UNIX socket (strict, compat; socketpair still works, a command's own unix-socket servers do not); permissive mode leaves host sockets reachable",
	}[abi >= 9], upgrade)
	add("landlock scoping", abi >= 6, map[bool]string{
		true:  "abstract unix sockets and signals limited to the sandbox",
		false: "abstract unix sockets and signals to host processes are not confined below ABI 6",
	}[abi >= 6], upgrade)
	add("protected paths", false,
		"Landlock cannot deny a path beneath a writable root: protected paths are restored after the run, not blocked during it",
		"install bubblewrap for read-only protected paths")
	add("namespaces", false,
		"no pid, ipc or network namespace: host processes are visible (not reachable), SysV IPC is shared",
		"install bubblewrap for namespaces")
	add("seccomp", landlockSeccompProgram != nil, map[bool]string{
		true:  "seccomp filter installed before the exec",
		false: "seccomp filter not built in: the backend refuses to run",
	}[landlockSeccompProgram != nil], "rebuild safeexec with the seccomp filter")
	return cs
}

type landlockBackend struct{}

func (landlockBackend) Name() string { return "landlock" }

func (landlockBackend) Start(p *Policy, c *Command) (Process, error) {
	if p == nil || c == nil || len(c.Argv) == 0 {
		return nil, errors.New("sandbox landlock: empty command")
	}
	started := coarseNow()
	mode, err := landlockModeOf(p.Mode)
	if err != nil {
		return nil, fmt.Errorf("sandbox landlock: %w", err)
	}
	abi := landlockABIVersion()
	if need, _ := landlockMinABI(mode); abi < need {
		_, _, err := detectLandlock()
		return nil, fmt.Errorf("sandbox %w", err)
	}
	if !filepath.IsAbs(p.Cwd) {
		return nil, fmt.Errorf("sandbox landlock: working directory %q is not absolute", p.Cwd)
	}
	roots, err := absRoots(p.WritableRoots)
	if err != nil {
		return nil, fmt.Errorf("sandbox landlock: %w", err)
	}
	req := &llRequest{Mode: mode, DenyRead: p.DenyRead, Net: p.Network.Enabled, Cwd: p.Cwd}
	if p.Private != "" {
		// Other projects' caches and temporary files; this run's own
		// are granted again (Always).
		req.Hidden = []string{p.Private}
	}
	req.Home, _ = envValue(c.Env, "HOME")
	if p.CacheDir != "" {
		if !filepath.IsAbs(p.CacheDir) {
			return nil, fmt.Errorf("sandbox landlock: cache directory %q is not absolute", p.CacheDir)
		}
		if err := os.MkdirAll(p.CacheDir, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox landlock: create cache directory: %w", err)
		}
		cache, err := filepath.EvalSymlinks(p.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("sandbox landlock: cache directory: %w", err)
		}
		req.Always = append(req.Always, cache)
	}
	cwd, err := filepath.EvalSymlinks(p.Cwd)
	if err != nil {
		return nil, fmt.Errorf("sandbox landlock: working directory: %w", err)
	}
	tmp, err := runTmp(p.TempDir, os.TempDir(), roots, c.Env, hostTempDirs(c.Env))
	if err != nil {
		return nil, fmt.Errorf("sandbox landlock: private temporary directory: %w", err)
	}
	roots = tmp.Roots
	req.Roots = roots
	req.Always = append(req.Always, tmp.Dir)
	if mode == Strict && !landlockVisibleInStrict(cwd, roots, req.Always) {
		tmp.remove()
		return nil, fmt.Errorf("sandbox landlock: strict mode shows only the system, the first writable root and the cache, and the working directory %s is in none of them", p.Cwd)
	}
	if p.Network.Enabled {
		for _, port := range []int{p.Network.ProxyHTTPPort, p.Network.ProxySOCKSPort} {
			if port != 0 {
				req.Ports = append(req.Ports, port)
			}
		}
		if len(req.Ports) == 0 {
			tmp.remove()
			return nil, errors.New("sandbox landlock: network enabled but the policy names no proxy port")
		}
	}
	cc := *c
	cc.Env = tmp.Env
	// Git's control plane in the roots' git directories is snapshotted
	// with the protected paths and put back after the run; the watch for
	// the sweep of everything else starts now, before the command.
	ctl := findGitControl(sweptRoots(p))
	anchors := holdAnchors(ctl.Anchors)
	sweep := newGitSweep(p, ctl, started)
	st := &llStart{p: p, c: &cc, mode: mode, abi: abi, req: req, roots: roots, tmp: tmp, git: ctl}
	st.noUnix, st.noUDP = landlockSocketFilter(mode, abi)
	// Orphans of the command are reparented to safeexec while it runs
	// (landlock_orphans_linux.go).
	adoptBegin()
	proc, err := st.fork()
	if lp, ok := proc.(*landlockProcess); ok {
		lp.tmp = tmp
		lp.sweep = sweep
		lp.anchors, lp.roots = anchors, sweptRoots(p)
		adoptStarted(lp.pid)
	} else {
		sweep.abort()
		for _, a := range anchors {
			unix.Close(a.fd)
		}
		tmp.remove()
		adoptEnd(0, nil)
	}
	return proc, err
}

// hostTempDirs are the directories a writable root may name to mean "the
// command's $TMPDIR": the shared ones, and the user's own $TMPDIR.
func hostTempDirs(env []string) []string {
	dirs := []string{"/tmp", "/var/tmp", os.TempDir()}
	if v, ok := envValue(env, "TMPDIR"); ok && v != "" {
		dirs = append(dirs, v)
	}
	var out []string
	for _, d := range dirs {
		out = append(out, d)
		if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
			out = append(out, r)
		}
	}
	return out
}

// llStart is one Start in progress.
type llStart struct {
	p             *Policy
	c             *Command
	mode          Mode
	abi           int
	req           *llRequest
	roots         []string
	noUnix, noUDP bool
	tmp           *privateTmp
	git           *gitControl
}

// prepare builds the ruleset and snapshots the protected paths.
func (st *llStart) prepare() (int, *protectGuard, error) {
	plan, err := planLandlock(st.req, st.abi, os.Geteuid() == 0)
	if err != nil {
		return -1, nil, fmt.Errorf("sandbox landlock: %w", err)
	}
	rfd, err := landlockRuleset(plan)
	if err != nil {
		return -1, nil, fmt.Errorf("sandbox landlock: %w", err)
	}
	protect := st.p.DenyWrite
	if st.git != nil {
		protect = append(slices.Clone(protect), st.git.Paths...)
		protect = append(protect, st.git.Configs...)
		for l := range st.git.Links {
			protect = append(protect, l)
		}
	}
	guard, err := snapshotProtected(landlockRoots(st.mode, st.roots), protect)
	if err != nil {
		unix.Close(rfd)
		return -1, nil, fmt.Errorf("sandbox landlock: snapshot protected paths: %w", err)
	}
	return rfd, guard, nil
}

// fork starts the command confined (forkexec_linux.go).
func (st *llStart) fork() (Process, error) {
	c := st.c
	path, code, err := lookPathEnv(c.Argv[0], c.Env, st.p.Cwd)
	if err != nil {
		if c.Stderr != nil {
			fmt.Fprintf(c.Stderr, "safeexec: %s: %v\n", c.Argv[0], err)
		}
		return &failedProcess{status: Status{ExitCode: code}}, nil
	}
	filters, err := st.filters()
	if err != nil {
		return nil, fmt.Errorf("sandbox landlock: %w", err)
	}
	rfd, guard, err := st.prepare()
	if err != nil {
		return nil, err
	}
	defer unix.Close(rfd)
	c, closeStdio := withSafeStdio(c)
	defer closeStdio()
	cc := &confinedCmd{
		Path: path, Argv: c.Argv, Env: c.Env, Dir: st.p.Cwd,
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Extra: c.ExtraFiles,
		Terminal: c.Terminal, Limits: st.p.Limits,
		RulesFD: rfd, Filters: filters,
	}
	cp, err := cc.start()
	var fe *forkExecError
	switch {
	case errors.As(err, &fe) && fe.Step == forkStepExec:
		// Found, but the sandbox (or the file) refuses to run it.
		guard.restore()
		if c.Stderr != nil {
			fmt.Fprintf(c.Stderr, "safeexec: %s: %v\n", c.Argv[0], fe.Errno)
		}
		code := 126
		if fe.Errno == unix.ENOENT {
			code = 127
		}
		return &failedProcess{status: Status{ExitCode: code}}, nil
	case errors.As(err, &fe) && fe.Errno == unix.ENOSYS:
		guard.restore()
		return nil, fmt.Errorf("sandbox landlock: %w: %w", err, ErrUnavailable)
	case err != nil:
		guard.restore()
		return nil, fmt.Errorf("sandbox landlock: %w", err)
	}
	return &landlockProcess{proc: cp, pid: cp.Pid, guard: guard, stderr: c.Stderr}, nil
}

// filters are the seccomp programs the command gets, in order: the
// shared filter, the socket filter, the process filter.
func (st *llStart) filters() ([][]unix.SockFilter, error) {
	if landlockSeccompProgram == nil {
		return nil, errors.New("seccomp filter not built in: refusing to run without it")
	}
	shared, err := landlockSeccompProgram()
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	sock, err := socketFilter(st.noUnix, st.noUDP)
	if err != nil {
		return nil, fmt.Errorf("socket filter: %w", err)
	}
	proc, err := processFilter(st.abi >= 6, os.Getpid(), unix.Getpgrp())
	if err != nil {
		return nil, fmt.Errorf("process filter: %w", err)
	}
	return [][]unix.SockFilter{shared, sock, proc}, nil
}

// absRoots checks that every root is absolute, and resolves symbolic links
// (Landlock rules attach to the real directory). Missing roots are dropped:
// there is nothing to write to.
func absRoots(roots []string) ([]string, error) {
	var out []string
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("writable root %q is not absolute", r)
		}
		t, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

type landlockProcess struct {
	proc   *confinedProc
	pid    int
	guard  *protectGuard
	stderr io.Writer
	// tmp is the run's private temporary directory, removed after it.
	tmp *privateTmp
	// sweep looks at the git directories below the roots after the run;
	// anchors are the roots' .git directories, put back if moved.
	sweep   *gitSweep
	anchors []gitAnchor
	roots   []string

	mu   sync.Mutex
	done bool
}

func (l *landlockProcess) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("sandbox landlock: unsupported signal %v", sig)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return os.ErrProcessDone
	}
	// The command leads its own session and process group.
	if err := unix.Kill(-l.pid, s); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return os.ErrProcessDone
		}
		return fmt.Errorf("sandbox landlock: signal %v: %w", sig, err)
	}
	return nil
}

func (l *landlockProcess) Kill() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return nil
	}
	killSession(l.pid)
	return nil
}

func (l *landlockProcess) Wait() (Status, error) {
	// Wait for the exit without reaping: while the zombie holds its pid,
	// the session id cannot be reused, so the sweep cannot hit a stranger.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, l.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	l.mu.Lock()
	killed := killSession(l.pid)
	ps, err := l.proc.Wait()
	// Daemons that left the session were reparented to safeexec: they
	// end here, before the protected paths are looked at.
	adoptEnd(l.pid, killed)
	l.done = true
	l.mu.Unlock()

	st := statusOf(ps)
	l.tmp.remove()
	if err != nil {
		err = fmt.Errorf("sandbox landlock: wait: %w", err)
	}
	q := &quarantine{}
	st.Protected, st.Unchecked = restoreAnchors(l.anchors, l.roots, q, l.stderr)
	if changed, failed := l.guard.restore(); len(changed) > 0 {
		st.Protected = append(st.Protected, changed...)
		for _, f := range failed {
			st.Unchecked = append(st.Unchecked, f+": could not be restored")
		}
		if l.stderr != nil {
			fmt.Fprintf(l.stderr, "safeexec: the command changed protected paths; restored: %v\n", changed)
			if len(failed) > 0 {
				fmt.Fprintf(l.stderr, "safeexec: could not restore %v: check them before running anything there\n", failed)
			}
		}
	}
	taken, unchecked := l.sweep.finish(q, l.stderr)
	st.Protected = append(st.Protected, taken...)
	st.Unchecked = append(st.Unchecked, unchecked...)
	return st, err
}

// killSession kills every process of session sid (the command's process
// group first, then stragglers in other groups of the session), in a few
// passes in case one forked while the previous pass ran.
func killSession(sid int) (killed []int) {
	unix.Kill(-sid, unix.SIGKILL)
	for pass := 0; pass < 16; pass++ {
		d, err := os.Open("/proc")
		if err != nil {
			return killed
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		found := false
		for _, n := range names {
			pid, err := strconv.Atoi(n)
			if err != nil || pid == sid {
				continue
			}
			if s, err := unix.Getsid(pid); err == nil && s == sid {
				unix.Kill(pid, unix.SIGKILL)
				found = true
				if !slices.Contains(killed, pid) {
					killed = append(killed, pid)
				}
			}
		}
		if !found {
			return killed
		}
	}
	return killed
}

// socketFilter is a second seccomp filter, stacked on the shared one (the
// kernel applies the stricter answer of the two). Landlock's network rules
// cover TCP only, and only sockets of protocol TCP: a stream socket of
// another protocol over IP (MPTCP, SCTP) or another family that carries
// TCP itself (SMC, RDS) connects and binds wherever it likes. So socket(2)
// is allowed for AF_UNIX (unless noUnix), AF_NETLINK (interface lists,
// which getaddrinfo reads), and AF_INET/AF_INET6 with SOCK_STREAM and
// protocol TCP (or 0), or SOCK_DGRAM and protocol UDP (or 0) unless noUDP;
// anything else over IP returns EPROTONOSUPPORT (Go and most programs then
// fall back to plain TCP, as on a kernel without MPTCP), AF_UNIX with
// noUnix and SOCK_DGRAM with noUDP EPERM, every other family
// EAFNOSUPPORT. socketpair(2) is untouched, so pipes between a command's
// own processes keep working.
func socketFilter(noUnix, noUDP bool) ([]unix.SockFilter, error) {
	arch, err := seccompArch()
	if err != nil {
		return nil, err
	}
	a := &bpfAsm{labels: map[string]int{}}
	a.load(seccompOffArch)
	a.jump(unix.BPF_JEQ, arch, "", "eperm")
	a.load(seccompOffNR)
	a.jump(unix.BPF_JEQ, uint32(unix.SYS_SOCKET), "", "allow")
	a.load(seccompArgLow(0))
	if noUnix {
		a.jump(unix.BPF_JEQ, unix.AF_UNIX, "eperm", "")
	} else {
		a.jump(unix.BPF_JEQ, unix.AF_UNIX, "allow", "")
	}
	a.jump(unix.BPF_JEQ, unix.AF_NETLINK, "allow", "")
	a.jump(unix.BPF_JEQ, unix.AF_INET, "inet", "")
	a.jump(unix.BPF_JEQ, unix.AF_INET6, "inet", "eafnosupport")
	a.label("inet")
	a.load(seccompArgLow(1))
	// The type carries SOCK_NONBLOCK and SOCK_CLOEXEC above its low
	// four bits.
	a.ins = append(a.ins, unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: 0xf})
	a.jump(unix.BPF_JEQ, unix.SOCK_STREAM, "stream", "")
	if noUDP {
		a.jump(unix.BPF_JEQ, unix.SOCK_DGRAM, "eperm", "eprotonosupport")
	} else {
		a.jump(unix.BPF_JEQ, unix.SOCK_DGRAM, "dgram", "eprotonosupport")
		a.label("dgram")
		a.load(seccompArgLow(2))
		a.jump(unix.BPF_JEQ, 0, "allow", "")
		a.jump(unix.BPF_JEQ, unix.IPPROTO_UDP, "allow", "eprotonosupport")
	}
	a.label("stream")
	a.load(seccompArgLow(2))
	a.jump(unix.BPF_JEQ, 0, "allow", "")
	a.jump(unix.BPF_JEQ, unix.IPPROTO_TCP, "allow", "eprotonosupport")
	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("eperm")
	a.ret(seccompErrno(unix.EPERM))
	a.label("eprotonosupport")
	a.ret(seccompErrno(unix.EPROTONOSUPPORT))
	a.label("eafnosupport")
	a.ret(seccompErrno(unix.EAFNOSUPPORT))
	return a.resolve()
}

// llRulesetAttr is struct landlock_ruleset_attr up to the scoped field
// (ABI 6); older kernels accept it as long as the fields they do not know
// are zero.
type llRulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

type llPathBeneathAttr struct {
	allowed  uint64
	parentFD int32
} // packed in the kernel: 12 bytes, the padding is not read

type llNetPortAttr struct {
	allowed uint64
	port    uint64
}

func landlockRuleset(p *llPlan) (int, error) {
	attr := llRulesetAttr{handledFS: p.HandledFS, handledNet: p.HandledNet, scoped: p.Scoped}
	size := unsafe.Sizeof(attr)
	switch {
	case p.ABI < 4:
		size = 8
	case p.ABI < 6:
		size = 16
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	rfd := int(fd)
	for _, r := range p.FS {
		if err := landlockAddPath(rfd, r); err != nil {
			unix.Close(rfd)
			return -1, err
		}
	}
	for _, port := range p.Ports {
		na := llNetPortAttr{allowed: llNetConnectTCP, port: uint64(port)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), 2, uintptr(unsafe.Pointer(&na)), 0, 0, 0); errno != 0 {
			unix.Close(rfd)
			return -1, fmt.Errorf("landlock: allow TCP port %d: %w", port, errno)
		}
	}
	return rfd, nil
}

func landlockAddPath(rfd int, r llRule) error {
	fd, err := unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) {
			return nil // gone, or not ours to reach: grant nothing
		}
		return fmt.Errorf("landlock: open %s: %w", r.Path, err)
	}
	defer unix.Close(fd)
	pb := llPathBeneathAttr{allowed: r.Access, parentFD: int32(fd)}
	add := func() unix.Errno {
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		return errno
	}
	errno := add()
	if errno == unix.EINVAL && r.Access&^llFileRights != 0 {
		// Not a directory (any more): only file rights apply.
		if pb.allowed &= llFileRights; pb.allowed == 0 {
			return nil
		}
		errno = add()
	}
	if errno != 0 {
		return fmt.Errorf("landlock: rule for %s: %w", r.Path, errno)
	}
	return nil
}
