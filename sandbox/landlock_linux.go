//go:build linux

package sandbox

// The Landlock fallback backend (Linux ≥ 6.7, Landlock ABI ≥ 4), for
// machines where bwrap is missing or user namespaces are refused.
//
// Start builds the Landlock ruleset (planLandlock: the rules of the mode,
// the credential paths left out) and snapshots the protected paths. Then
// one of two paths confines the command; both drop every capability
// (bounding set included, so a root command execs with none), set
// no_new_privs, restrict with the ruleset, install the shared seccomp
// filter and the socket filter, and exec the command in a new session
// with SIGKILL as its parent-death signal. The process IS the command: its
// pid, its exit status, its session.
//
//   - In-thread (the default): a goroutine locks an OS thread of safeexec,
//     confines that thread only (all of the above is per-thread state),
//     and forks the command from it. No second Go runtime starts, which is
//     most of the cost of a re-exec. The thread is never unlocked, so the
//     runtime discards it when the goroutine ends, after the command is
//     reaped (the parent-death signal is tied to the forking thread).
//   - Re-exec, when the policy sets resource limits (setrlimit is
//     per-process, it would bind safeexec too): `safeexec __landlock
//     <spec> -- CMD…` (landlock.go describes the spec). RunLandlockChild
//     sets the limits, receives the ruleset over a socket pair while the
//     parent builds it, confines itself and execs. The child answers on the
//     socket only when setup fails; then nothing ran and Start says why.
//
// Limits (what this backend does not do; doctor lists them as checks):
//   - No namespaces: the command sees host processes (it cannot signal or
//     trace them: Landlock scopes ptrace, and signals from ABI 6), shares
//     SysV IPC, and /dev/shm in compat and permissive mode.
//   - Network: only TCP is confined (connect to the proxy's ports, no
//     bind), and IP sockets of any other protocol (MPTCP, SCTP, which
//     Landlock does not see) or unusual families are refused by the
//     socket filter. The rule is per port, not per address: a remote host
//     on the proxy's port number is reachable. UDP (DNS included) is confined
//     only from ABI 10. Path-named unix sockets can be connected to below
//     ABI 9 (the seccomp filter decides), abstract ones are scoped from
//     ABI 6.
//   - Protected paths inside writable roots cannot be denied by Landlock;
//     they are snapshotted and restored after the run (landlock_guard.go).
//     During the run the command can change them. Nested repositories'
//     hooks (sub/.git/hooks) are not covered.
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
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	landlockDetect = detectLandlock
}

// Landlock returns the Landlock backend. Start refuses (wrapping
// ErrUnavailable) when the kernel cannot enforce the policy.
func Landlock() Backend { return landlockBackend{} }

// landlockSeccomp installs the shared seccomp filter on every thread of a
// re-executed child (seccomp_linux.go sets it). When it is nil the child
// refuses to run: fail closed.
var landlockSeccomp func() error

// landlockSeccompProgram is the shared filter's program, which the
// in-thread path installs on one thread only.
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
	add("seccomp", landlockSeccomp != nil && landlockSeccompProgram != nil, map[bool]string{
		true:  "seccomp filter installed before the exec",
		false: "seccomp filter not built in: the backend refuses to run",
	}[landlockSeccomp != nil && landlockSeccompProgram != nil], "rebuild safeexec with the seccomp filter")
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
	tmp, err := newPrivateTmp(os.TempDir(), roots, c.Env, hostTempDirs(c.Env))
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
	st := &llStart{p: p, c: &cc, mode: mode, abi: abi, req: req, roots: roots, tmp: tmp}
	st.noUnix, st.noUDP = landlockSocketFilter(mode, abi)
	var proc Process
	// Orphans of the command are reparented to safeexec while it runs
	// (landlock_orphans_linux.go).
	adoptBegin()
	if p.Limits == (Limits{}) && !landlockForceReexec {
		proc, err = st.inThread()
	} else {
		// Resource limits belong to a whole process: set in a thread of
		// safeexec they would bind safeexec too. The re-executed child
		// sets them on itself before the exec.
		proc, err = st.reexec()
	}
	if lp, ok := proc.(*landlockProcess); ok {
		lp.tmp = tmp
		lp.gitRoots, lp.started = sweepRoots(p, true), started
		adoptStarted(lp.pid)
	} else {
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

// landlockForceReexec makes tests take the re-exec path without limits.
var landlockForceReexec bool

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
	guard, err := snapshotProtected(landlockRoots(st.mode, st.roots), st.p.DenyWrite)
	if err != nil {
		unix.Close(rfd)
		return -1, nil, fmt.Errorf("sandbox landlock: snapshot protected paths: %w", err)
	}
	return rfd, guard, nil
}

// inThread confines one OS thread of safeexec (capabilities, no_new_privs,
// Landlock, seccomp: all per-thread state) and forks the command from it,
// so the command inherits the confinement without a second Go runtime
// starting. The thread stays locked to its goroutine until the command is
// reaped (the parent-death signal is tied to the thread that forked), and
// is then thrown away: the goroutine exits without unlocking it, and the
// runtime never creates threads from a locked one.
func (st *llStart) inThread() (Process, error) {
	c := st.c
	path, code, err := lookPathEnv(c.Argv[0], c.Env, st.p.Cwd)
	if err != nil {
		if c.Stderr != nil {
			fmt.Fprintf(c.Stderr, "safeexec: %s: %v\n", c.Argv[0], err)
		}
		return &failedProcess{status: Status{ExitCode: code}}, nil
	}
	rfd, guard, err := st.prepare()
	if err != nil {
		return nil, err
	}
	type started struct {
		proc Process
		err  error
	}
	res := make(chan started, 1)
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		err := confineThread(rfd, st.noUnix, st.noUDP)
		unix.Close(rfd)
		if err != nil {
			res <- started{err: fmt.Errorf("sandbox landlock: %w", err)}
			return
		}
		argv := c.Argv
		for {
			cmd := &exec.Cmd{
				Path:       path,
				Args:       argv,
				Env:        c.Env,
				Dir:        st.p.Cwd,
				Stdin:      c.Stdin,
				Stdout:     c.Stdout,
				Stderr:     c.Stderr,
				ExtraFiles: c.ExtraFiles,
				SysProcAttr: &syscall.SysProcAttr{
					Setsid:    true,
					Setctty:   c.Terminal,
					Pdeathsig: syscall.SIGKILL,
				},
				WaitDelay: 2 * time.Second,
			}
			err := cmd.Start()
			if errors.Is(err, unix.ENOEXEC) && path != "/bin/sh" {
				// No #! line: run it with the shell, as execvp does.
				argv = append([]string{"sh", path}, c.Argv[1:]...)
				path = "/bin/sh"
				continue
			}
			if err != nil {
				// Found, but the sandbox (or the file) refuses to run it.
				if c.Stderr != nil {
					fmt.Fprintf(c.Stderr, "safeexec: %s: %v\n", c.Argv[0], err)
				}
				res <- started{proc: &failedProcess{status: Status{ExitCode: 126}}}
				return
			}
			res <- started{proc: &landlockProcess{cmd: cmd, pid: cmd.Process.Pid, guard: guard, stderr: c.Stderr, release: release}}
			<-release
			return
		}
	}()
	r := <-res
	if r.err != nil {
		guard.restore()
		return nil, r.err
	}
	if _, ok := r.proc.(*failedProcess); ok {
		guard.restore()
	}
	return r.proc, nil
}

// confineThread applies, to the calling thread only, what the command
// inherits across fork and exec: no capabilities, no_new_privs, the
// Landlock ruleset, the shared seccomp filter and the socket filter.
func confineThread(rfd int, noUnix, noUDP bool) error {
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rfd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	if landlockSeccompProgram == nil {
		return errors.New("seccomp filter not built in: refusing to run without it")
	}
	prog, err := landlockSeccompProgram()
	if err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	// Flags 0, never TSYNC: the filter is for this thread, not safeexec.
	if err := installFilter(prog); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	return installSocketFilter(noUnix, noUDP)
}

// reexec starts `safeexec __landlock <spec> -- CMD…` (RunLandlockChild),
// which sets the resource limits on itself, takes the ruleset the parent
// builds meanwhile, confines itself and execs the command.
func (st *llStart) reexec() (Process, error) {
	p, c := st.p, st.c
	self := p.SafeexecPath
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox landlock: find the safeexec binary: %w", err)
		}
	}
	spec := &landlockSpec{
		V:             landlockSpecVersion,
		Cwd:           p.Cwd,
		Limits:        p.Limits,
		SockFD:        3 + len(c.ExtraFiles),
		ParentPID:     os.Getpid(),
		NoUnixSockets: st.noUnix,
		NoUDP:         st.noUDP,
	}
	enc, err := encodeLandlockSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("sandbox landlock: %w", err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox landlock: socket pair: %w", err)
	}
	parentSock := os.NewFile(uintptr(fds[0]), "landlock-parent")
	childSock := os.NewFile(uintptr(fds[1]), "landlock-child")
	defer parentSock.Close()

	cmd := &exec.Cmd{
		Path:       self,
		Args:       append([]string{self, landlockArg, enc, "--"}, c.Argv...),
		Env:        c.Env,
		Dir:        p.Cwd,
		Stdin:      c.Stdin,
		Stdout:     c.Stdout,
		Stderr:     c.Stderr,
		ExtraFiles: append(append([]*os.File(nil), c.ExtraFiles...), childSock),
		SysProcAttr: &syscall.SysProcAttr{
			Setsid:    true,
			Setctty:   c.Terminal,
			Pdeathsig: syscall.SIGKILL,
		},
		// A daemon that escaped the session sweep may hold a copied
		// stdout pipe open; do not wait for it forever.
		WaitDelay: 2 * time.Second,
	}
	err = cmd.Start()
	childSock.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox landlock: start %s: %w", self, err)
	}
	abort := func(err error) (Process, error) {
		unix.Sendmsg(fds[0], []byte("abort"), nil, nil, 0)
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	// While the child's runtime starts: the ruleset and the snapshot.
	rfd, guard, err := st.prepare()
	if err != nil {
		return abort(err)
	}
	err = unix.Sendmsg(fds[0], []byte("ok"), unix.UnixRights(rfd), nil, 0)
	unix.Close(rfd)
	if err != nil {
		guard.close()
		return abort(fmt.Errorf("sandbox landlock: hand the ruleset to the child: %w", err))
	}
	// The child answers only if setup fails; end-of-file means it exec'd.
	buf := make([]byte, 4096)
	n, err := readRetry(fds[0], buf)
	if err != nil || n > 0 {
		cmd.Wait()
		guard.restore()
		if err != nil {
			return nil, fmt.Errorf("sandbox landlock: read the child's status: %w", err)
		}
		return nil, landlockSetupError(string(buf[:n]))
	}
	return &landlockProcess{cmd: cmd, pid: cmd.Process.Pid, guard: guard, stderr: c.Stderr}, nil
}

func readRetry(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Read(fd, buf)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// landlockSetupError turns the child's status message back into an error;
// one starting with "unavailable: " wraps ErrUnavailable.
func landlockSetupError(msg string) error {
	if rest, ok := strings.CutPrefix(msg, "unavailable: "); ok {
		return fmt.Errorf("sandbox landlock: %s: %w", rest, ErrUnavailable)
	}
	return fmt.Errorf("sandbox landlock: %s", msg)
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
	cmd    *exec.Cmd
	pid    int
	guard  *protectGuard
	stderr io.Writer
	// release lets the confined thread that forked the command go, once
	// the command is reaped (nil when the command was re-executed).
	release chan struct{}
	// tmp is the run's private temporary directory, removed after it.
	tmp *privateTmp
	// gitRoots and started: see sweepNestedGit.
	gitRoots *gitSweepPlan
	started  time.Time

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
	err := l.cmd.Wait()
	// Daemons that left the session were reparented to safeexec: they
	// end here, before the protected paths are looked at.
	adoptEnd(l.pid, killed)
	l.done = true
	if l.release != nil {
		close(l.release)
	}
	l.mu.Unlock()

	st := statusOf(l.cmd.ProcessState)
	l.tmp.remove()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		return st, fmt.Errorf("sandbox landlock: wait: %w", err)
	}
	st.Protected = sweepNestedGit(l.gitRoots, l.started, l.stderr)
	if changed, failed := l.guard.restore(); len(changed) > 0 {
		st.Protected = append(st.Protected, changed...)
		if l.stderr != nil {
			fmt.Fprintf(l.stderr, "safeexec: the command changed protected paths; restored: %v\n", changed)
			if len(failed) > 0 {
				fmt.Fprintf(l.stderr, "safeexec: could not restore %v: check them before running anything there\n", failed)
			}
		}
	}
	return st, nil
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

// RunLandlockChild is the re-executed child of the Landlock backend:
// args are what follows "__landlock" in argv (the encoded spec, "--", the
// command). It confines the process and execs the command; it returns only
// on failure, with 125 (setup failed, reported to the parent), 126 (not
// executable) or 127 (not found).
func RunLandlockChild(args []string) int {
	// Landlock, no_new_privs and seccomp apply to the calling thread; the
	// exec must happen on the same thread.
	runtime.LockOSThread()
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "safeexec: __landlock is internal to safeexec's Landlock sandbox")
		return 125
	}
	spec, err := decodeLandlockSpec(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "safeexec: %v\n", err)
		return 125
	}
	sock := spec.SockFD
	if sock <= 2 {
		fmt.Fprintln(os.Stderr, "safeexec: landlock: bad socket descriptor")
		return 125
	}
	if _, err := unix.FcntlInt(uintptr(sock), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		fmt.Fprintf(os.Stderr, "safeexec: landlock: socket descriptor: %v\n", err)
		return 125
	}
	fail := func(err error) int {
		msg := err.Error()
		if errors.Is(err, ErrUnavailable) {
			msg = "unavailable: " + msg
		}
		if _, werr := unix.Write(sock, []byte(msg)); werr != nil {
			fmt.Fprintf(os.Stderr, "safeexec: %s\n", msg)
		}
		return 125
	}
	rfd, err := receiveRuleset(sock)
	if err != nil {
		return fail(err)
	}
	if err := landlockConfine(spec, rfd); err != nil {
		return fail(err)
	}
	argv := args[2:]
	env := os.Environ()
	path, code, err := lookPathEnv(argv[0], env, spec.Cwd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "safeexec: %s: %v\n", argv[0], err)
		return code
	}
	if landlockSeccomp == nil {
		return fail(errors.New("seccomp filter not built in: refusing to run without it"))
	}
	if err := landlockSeccomp(); err != nil {
		return fail(fmt.Errorf("install seccomp filter: %w", err))
	}
	if err := installSocketFilter(spec.NoUnixSockets, spec.NoUDP); err != nil {
		return fail(err)
	}
	err = unix.Exec(path, argv, env)
	if errors.Is(err, unix.ENOEXEC) {
		// No #! line: run it with the shell, as execvp does.
		err = unix.Exec("/bin/sh", append([]string{"sh", path}, argv[1:]...), env)
	}
	fmt.Fprintf(os.Stderr, "safeexec: %s: %v\n", argv[0], err)
	return 126
}

// receiveRuleset waits for the parent's message: "ok" with the ruleset's
// descriptor, or anything else (abort, end-of-file) to give up.
func receiveRuleset(sock int) (int, error) {
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	var err error
	for {
		n, oobn, _, _, err = unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return -1, fmt.Errorf("receive the ruleset: %w", err)
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if got, err := unix.ParseUnixRights(&m); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	if string(buf[:n]) != "ok" || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1, errors.New("the parent gave no ruleset")
	}
	return fds[0], nil
}

// landlockConfine applies everything but the seccomp filter to the calling
// thread: resource limits, no capabilities, no_new_privs, the ruleset.
func landlockConfine(spec *landlockSpec, rfd int) error {
	defer unix.Close(rfd)
	if err := landlockRlimits(spec.Limits); err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rfd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	// The parent-death signal survives the exec; arm it again in case a
	// credential change cleared it, and give up if safeexec is gone.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("set parent-death signal: %w", err)
	}
	if spec.ParentPID != 0 && os.Getppid() != spec.ParentPID {
		return errors.New("safeexec exited before the command started")
	}
	return nil
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

func installSocketFilter(noUnix, noUDP bool) error {
	prog, err := socketFilter(noUnix, noUDP)
	if err != nil {
		return fmt.Errorf("socket filter: %w", err)
	}
	if err := installFilter(prog); err != nil {
		return fmt.Errorf("socket filter: %w", err)
	}
	return nil
}

// installFilter installs a seccomp program on the calling thread only
// (no_new_privs must be set, which it sets again).
func installFilter(prog []unix.SockFilter) error {
	if len(prog) == 0 {
		return errors.New("empty program")
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("install: %w", errno)
	}
	return nil
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

// landlockRlimits lowers the resource limits the policy sets.
func landlockRlimits(l Limits) error {
	for _, lim := range []struct {
		res int
		v   uint64
	}{
		{unix.RLIMIT_NPROC, l.Processes},
		{unix.RLIMIT_NOFILE, l.OpenFiles},
		{unix.RLIMIT_FSIZE, l.FileSize},
		{unix.RLIMIT_CPU, l.CPUSeconds},
	} {
		if lim.v == 0 {
			continue
		}
		if err := unix.Setrlimit(lim.res, &unix.Rlimit{Cur: lim.v, Max: lim.v}); err != nil {
			return fmt.Errorf("set resource limit %d to %d: %w", lim.res, lim.v, err)
		}
	}
	return nil
}

// dropCapabilities leaves the thread with no capability and an empty
// bounding set, so that even a root command execs with none.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return nil // an unprivileged user: no_new_privs keeps it that way
	}
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the last capability this kernel knows
			}
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
