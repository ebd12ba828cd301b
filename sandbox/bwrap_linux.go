package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/safeexec/safeexec/internal/prelaunch"
)

func init() {
	bwrapDetect = detectBwrap
	deepChecks["bwrap"] = deepCheckBwrap
}

// bwrapLocations are tried before $PATH: a bwrap found first in a directory
// the user (or a sandboxed command in a writable root) can write to would be
// trusted with the whole policy.
var bwrapLocations = []string{"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"}

// bwrapInstallFix says how to get bwrap.
const bwrapInstallFix = "install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch), apk add bubblewrap (Alpine)"

// osHostFS is the real host file system.
type osHostFS struct{}

func (osHostFS) Lstat(p string) (fs.FileMode, error) {
	var st unix.Stat_t
	for {
		err := unix.Lstat(p, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		break
	}
	return statMode(st.Mode), nil
}

// statMode is os's conversion of st_mode to a FileMode (the type and the
// permission bits; Lstat's callers look at the type).
func statMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

func (osHostFS) Readlink(p string) (string, error) { return os.Readlink(p) }

// ListDir lists dir with each entry's type, as Lstat would give it.
func (osHostFS) ListDir(dir string) (map[string]fs.FileMode, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make(map[string]fs.FileMode, len(ents))
	for _, e := range ents {
		out[e.Name()] = e.Type()
	}
	return out, nil
}

func findBwrap() (string, error) {
	for _, p := range bwrapLocations {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && unix.Access(p, unix.X_OK) == nil {
			return p, nil
		}
	}
	return exec.LookPath("bwrap")
}

// readSysctl reads a small /proc file with plain system calls: os.ReadFile
// would also register it with the poller, on every run.
func readSysctl(p string) (string, bool) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	var buf [64]byte
	n, err := unix.Read(fd, buf[:])
	if err != nil || n < 0 {
		return "", false
	}
	return strings.TrimSpace(string(buf[:n])), true
}

// detectBwrap decides whether bwrap can run here, cheaply: it reads a few
// files and starts no process, except when safeexec itself runs under a
// seccomp filter (a container), where only trying to create a user
// namespace tells. A sandbox that still fails to start makes Start fail
// with ErrUnavailable: never a silent run.
func detectBwrap() (Backend, Report, error) {
	r := Report{Backend: "bwrap"}
	fail := func(c Check) (Backend, Report, error) {
		r.Checks = append(r.Checks, c)
		r.Reason = "bwrap cannot run: " + c.Detail
		return nil, r, fmt.Errorf("sandbox bwrap: %s (%s): %w", c.Detail, c.Fix, ErrUnavailable)
	}
	path, err := findBwrap()
	if err != nil {
		return fail(Check{Name: "bwrap installed", Detail: "bwrap not found", Fix: bwrapInstallFix})
	}
	r.Checks = append(r.Checks, Check{Name: "bwrap installed", OK: true, Detail: path})

	if _, err := seccompBytes(); err != nil {
		return fail(Check{Name: "seccomp filter", Detail: err.Error(), Fix: "use a build of safeexec for amd64 or arm64"})
	}
	r.Checks = append(r.Checks, Check{Name: "seccomp filter", OK: true, Detail: "built for " + seccompArchName()})

	uid := os.Getuid()
	if v, ok := readSysctl("/proc/sys/user/max_user_namespaces"); ok && v == "0" {
		return fail(Check{Name: "user namespaces", Detail: "user namespaces are disabled (user.max_user_namespaces = 0)",
			Fix: "sysctl -w user.max_user_namespaces=15000 (and persist it in /etc/sysctl.d)"})
	}
	if uid != 0 {
		if v, ok := readSysctl("/proc/sys/kernel/unprivileged_userns_clone"); ok && v == "0" {
			return fail(Check{Name: "user namespaces", Detail: "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)",
				Fix: "sysctl -w kernel.unprivileged_userns_clone=1 (and persist it in /etc/sysctl.d)"})
		}
		if v, ok := readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); ok && v == "1" {
			if _, err := os.Stat("/etc/apparmor.d/bwrap-userns-restrict"); err != nil {
				return fail(Check{Name: "user namespaces", Detail: "AppArmor restricts unprivileged user namespaces and no profile allows bwrap",
					Fix: "install the bwrap AppArmor profile (/etc/apparmor.d/bwrap-userns-restrict, shipped with Ubuntu's apparmor package) or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"})
			}
		}
	}
	be := &bwrapBackend{path: path}
	check := Check{Name: "user namespaces", OK: true}
	if underSeccomp() {
		// Only trying tells; a success is remembered for the boot.
		cache := newUsernsCache()
		if cache.hit() {
			be.probe = cache
			check.Detail = "a probe succeeded earlier in this boot"
		} else {
			if err := probeUserns(); err != nil {
				return fail(Check{Name: "user namespaces", Detail: "creating a user namespace failed: " + err.Error() + " (a container's seccomp profile?)",
					Fix: "run the container with a profile that allows user namespaces (e.g. --security-opt seccomp=unconfined), or use the landlock backend"})
			}
			cache.remember()
			check.Detail = "probed: a user namespace could be created"
		}
	}
	r.Checks = append(r.Checks, check)
	r.Reason = "bwrap found at " + path + " and user namespaces are available"
	return be, r, nil
}

func seccompArchName() string {
	a, _ := seccompArch()
	switch a {
	case unix.AUDIT_ARCH_X86_64:
		return "x86-64"
	case unix.AUDIT_ARCH_AARCH64:
		return "arm64"
	}
	return "unknown"
}

// underSeccomp reports whether this process already runs under a seccomp
// filter, as in a container.
func underSeccomp() bool {
	mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err != nil || mode != 0 // an error: cannot tell, probe
}

// errProbeRan means the probe's exec of "/" succeeded, which it cannot.
var errProbeRan = errors.New("probe unexpectedly ran")

// deepCheckBwrap adds what only running bwrap tells: its version, and
// whether a real sandbox with the seccomp filter starts.
func deepCheckBwrap(be Backend, r *Report) {
	b, ok := be.(*bwrapBackend)
	if !ok {
		return
	}
	out, err := exec.Command(b.path, "--version").Output()
	if err == nil {
		r.Version = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "bubblewrap"))
	}
	cwd, _ := os.Getwd()
	if cwd == "" {
		cwd = "/"
	}
	var stderr strings.Builder
	proc, err := b.Start(&Policy{Mode: Compat, Cwd: "/"}, &Command{
		Argv: []string{"/bin/true"}, Env: []string{"PATH=/usr/bin:/bin"},
		Stdout: io.Discard, Stderr: &stderr,
	})
	if err == nil {
		var st Status
		st, err = proc.Wait()
		if err == nil && st.ExitCode != 0 {
			err = fmt.Errorf("exit status %d: %s", st.ExitCode, strings.TrimSpace(stderr.String()))
		}
	}
	if err != nil {
		r.Checks = append(r.Checks, Check{Name: "sandbox starts", Detail: err.Error(),
			Fix: "see the message; user namespaces or mounts may be refused here"})
		return
	}
	r.Checks = append(r.Checks, Check{Name: "sandbox starts", OK: true, Detail: "ran /bin/true with the seccomp filter"})
}

// seccompTestOverride replaces the filter handed to bwrap, for tests of a
// filter that cannot be installed.
var seccompTestOverride []byte

type bwrapBackend struct {
	path string
	// probe is the remembered probe result Detect relied on, if any: it
	// is forgotten when bwrap then cannot create the sandbox.
	probe *usernsCache
}

func (*bwrapBackend) Name() string { return "bwrap" }

// bwrapStatus is one JSON document of --json-status-fd.
type bwrapStatus struct {
	ChildPID *int `json:"child-pid"`
	ExitCode *int `json:"exit-code"`
}

func (b *bwrapBackend) Start(p *Policy, c *Command) (Process, error) {
	if p == nil || c == nil || len(c.Argv) == 0 {
		return nil, errors.New("sandbox bwrap: no policy or empty command")
	}
	proc, err := b.start(p, c, true)
	if errors.Is(err, errJoinNetns) {
		// The proxy's listeners could not be opened in the sandbox's
		// network namespace from outside (a kernel or security module that
		// refuses it): the bridge does it from inside. Nothing ran.
		proc, err = b.start(p, c, false)
	}
	return proc, err
}

// joinNetnsAlways makes a run by root open the listeners as one without
// root does, for tests of that path.
var joinNetnsAlways bool

// errJoinNetns marks a start that failed only because the listeners could
// not be opened in bwrap's network namespace; Start then uses the bridge.
var errJoinNetns = errors.New("cannot open listeners in the sandbox's network namespace")

func (b *bwrapBackend) start(p *Policy, c *Command, mayJoin bool) (Process, error) {
	started := coarseNow()
	// A sandbox started ahead that this start does not take (it returns
	// before, or it is not the one) is killed before Start returns: the
	// run may then remove what it mounts (the nested channel's directory),
	// and bwrap would complain about it on the command's stderr.
	defer c.Ahead.Cancel()
	// A command that is not there is reported as a shell would, without
	// starting a sandbox. What exists on the host may still be hidden
	// inside; Wait maps bwrap's failed exec to 127 then.
	hostPath, code, err := lookPathEnv(c.Argv[0], c.Env, p.Cwd)
	if err != nil {
		if c.Stderr != nil {
			fmt.Fprintf(c.Stderr, "safeexec: %s: %v\n", c.Argv[0], err)
		}
		return &failedProcess{status: Status{ExitCode: code}}, nil
	}
	c, closeStdio := withSafeStdio(c)
	defer closeStdio()
	markInheritedCloexec()
	filter, err := seccompBytes()
	if err != nil {
		return nil, fmt.Errorf("sandbox bwrap: %w", err)
	}
	if seccompTestOverride != nil {
		filter = seccompTestOverride
	}
	for _, d := range []string{p.CacheDir, p.TempDir} {
		if d != "" {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return nil, fmt.Errorf("sandbox bwrap: create %s: %w", d, err)
			}
		}
	}
	// A run by root with a process limit gets a pids cgroup (limits_linux.go).
	var cgroup string
	if p.Limits.Processes > 0 && os.Getuid() == 0 {
		if cgroup, err = pidsCgroupDir(); err != nil {
			return nil, fmt.Errorf("sandbox bwrap: %w", err)
		}
	}

	// Descriptors, numbered as bwrap sees them: status (bwrap writes),
	// seccomp (bwrap reads), sync (held by the sandbox's init: EOF when
	// the sandbox is gone; only the cgroup's watchdog needs it), block
	// (bwrap waits on it before starting the command: the watches on the
	// roots and the limits are set up while bwrap builds the sandbox).
	next := 3 + len(c.ExtraFiles)
	nextFD := func() int { next++; return next - 1 }
	fds := bwrapFDs{Status: nextFD(), Seccomp: nextFD()}
	if cgroup != "" {
		fds.Sync = nextFD()
	}
	fds.Block = nextFD()
	host := &bwrapHost{UID: os.Getuid(), GID: os.Getgid(), FS: osHostFS{}}
	// As root, the sandbox can run in a network namespace made here, where
	// the proxy listens directly: no bridge process inside (a terminal
	// still needs the bridge as its supervisor).
	if p.Network.Enabled && p.Network.Listen != nil && !c.Terminal && canMakeNetns() && !joinNetnsAlways && !c.JoinNetns {
		own := *p
		own.Network.ownNetns = true
		own.Network.Bridge = nil
		p = &own
	} else if p.Network.Enabled && p.Network.Listen != nil && !c.Terminal && mayJoin && stdinUnshared(c) {
		// Otherwise the listeners are opened in the namespace bwrap makes,
		// entered from outside once it exists and before the command
		// starts (netns_open_linux.go): again no bridge process. Should
		// that fail, the run starts over with the bridge, so the command's
		// standard input must not have been read from meanwhile.
		own := *p
		own.Network.joinNetns = true
		own.Network.Bridge = nil
		p = &own
	}
	// Git's control plane in the roots' git directories: read-only
	// during the run (gitprotect.go); everything else is looked at after
	// it, and the watch for that starts now, before the command.
	ctl := findGitControl(sweptRoots(p))
	withGit := *p
	withGit.git = ctl
	p = &withGit
	plan, err := bwrapArgs(p, host, fds, c.Argv, c.Env)
	if err != nil {
		return nil, fmt.Errorf("sandbox bwrap: %w", err)
	}

	// A sandbox started ahead with exactly this launch is used as it is;
	// any other is killed before it ran anything (ahead_linux.go).
	var pre *prestart
	if a := c.Ahead; a != nil {
		pre = a.take()
		if pre != nil && pre.warm != nil {
			// A warm sandbox: the same launch but for the command, and
			// the sandbox still as it was built (warm_linux.go).
			if p.Network.ownNetns || !pre.warmMatches(b.path, plan.Args, plan.Env, filter, c, fds) || pre.useWarm(c.Argv, plan.Env, hostPath) != nil {
				pre.cancel()
				pre = nil
			}
		} else if pre != nil && (p.Network.ownNetns || !pre.matches(b.path, plan.Args, plan.Env, filter, c, fds)) {
			pre.cancel()
			pre = nil
		}
		if pre != nil {
			a.Hit = true
		} else if !p.Network.ownNetns && fds == aheadFDs && !c.Terminal {
			a.Launch = &Launch{Path: b.path, Args: plan.Args, Env: plan.Env}
		}
	}

	var parentEnds, childEnds []*os.File
	fail := func(err error) (Process, error) {
		closeAll(parentEnds...)
		closeAll(childEnds...)
		return nil, err
	}
	var (
		child                            *prelaunch.Child
		statusR, syncR, seccompW, blockW *os.File
		release                          = func() {}
	)
	if pre != nil {
		child, statusR, seccompW, blockW = pre.child, pre.statusR, pre.seccompW, pre.blockW
		parentEnds = append(parentEnds, statusR, seccompW, blockW)
		child.Begin()
	} else {
		pipe := func(what string) (r, w *os.File, err error) {
			r, w, err = os.Pipe()
			if err != nil {
				return nil, nil, fmt.Errorf("sandbox bwrap: %s pipe: %w", what, err)
			}
			return r, w, nil
		}
		var statusW *os.File
		statusR, statusW, err = pipe("status")
		if err != nil {
			return fail(err)
		}
		parentEnds, childEnds = append(parentEnds, statusR), append(childEnds, statusW)
		var seccompR *os.File
		seccompR, seccompW, err = pipe("seccomp")
		if err != nil {
			return fail(err)
		}
		parentEnds, childEnds = append(parentEnds, seccompW), append(childEnds, seccompR)
		if fds.Sync > 0 {
			r, w, err := pipe("sync")
			if err != nil {
				return fail(err)
			}
			syncR = r
			parentEnds, childEnds = append(parentEnds, r), append(childEnds, w)
		}
		var blockR *os.File
		blockR, blockW, err = pipe("block")
		if err != nil {
			return fail(err)
		}
		parentEnds, childEnds = append(parentEnds, blockW), append(childEnds, blockR)

		// bwrap must not get the terminal's SIGINT: it would die and take the
		// sandbox with it before the command's handler ran. safeexec forwards
		// signals through Signal instead (Setpgid).
		start := func() (err error) {
			child, err = forkExec(b.path, append([]string{"bwrap"}, plan.Args...), plan.Env, c,
				append(append([]*os.File(nil), c.ExtraFiles...), childEnds...))
			if err != nil {
				return fmt.Errorf("sandbox bwrap: start %s: %w: %w", b.path, err, ErrUnavailable)
			}
			return nil
		}
		if p.Network.ownNetns {
			release, err = netnsThread(func() error {
				if err := p.Network.Listen(listenHere); err != nil {
					return fmt.Errorf("sandbox bwrap: network: %w", err)
				}
				return start()
			})
		} else {
			err = start()
		}
		closeAll(childEnds...)
		childEnds = nil
		if err != nil {
			return fail(err)
		}
	}
	// bwrap builds the sandbox now and then waits on the block
	// descriptor; until it is written the command cannot start. Meanwhile:
	// the watch for git directories made below the roots, the submodules'
	// configs as they are, the protected files' directories.
	sweep := newGitSweep(p, ctl, started)
	configs := snapConfigs(ctl.Configs)
	protect := watchProtected(plan.Protected)
	proc := &bwrapProcess{child: child, status: statusR, dec: json.NewDecoder(bufio.NewReader(statusR)), protect: protect,
		watch: plan.Watch, stderr: c.Stderr, argv0: c.Argv[0], pidfd: -1, release: release,
		sweep: sweep, gitLinks: ctl.Links, gitConfigs: configs}
	if syncR != nil {
		proc.watchdog = watchCgroup(syncR, cgroup)
	}

	var first bwrapStatus
	if pre != nil && pre.warm != nil {
		// Read when the warm sandbox was built.
		first, proc.dec = pre.warm.first, pre.warm.dec
	}
	if first.ChildPID == nil && (proc.dec.Decode(&first) != nil || first.ChildPID == nil) {
		// bwrap exited before creating the sandbox: namespaces refused,
		// a mount that failed, a bad option. Its message is on stderr.
		proc.Kill()
		closeAll(seccompW, blockW)
		st, _ := proc.Wait()
		if b.probe != nil {
			b.probe.forget()
		}
		return nil, fmt.Errorf("sandbox bwrap: could not create the sandbox (bwrap exit status %d; its message is above): %w",
			st.ExitCode, ErrUnavailable)
	}
	proc.childPID = *first.ChildPID
	if fd, err := unix.PidfdOpen(proc.childPID, 0); err == nil {
		proc.pidfd = fd
	}
	if p.Network.joinNetns {
		op, err := startNSOpener(proc.childPID)
		if err == nil {
			err = p.Network.Listen(op.listen)
			op.close()
		}
		if err != nil {
			// Killed before the block is lifted: the command never runs.
			proc.Kill()
			closeAll(seccompW, blockW)
			proc.Wait()
			return nil, fmt.Errorf("sandbox bwrap: network: %w: %w", err, errJoinNetns)
		}
	}
	if p.Limits != (Limits{}) {
		err := applyLimits(proc.childPID, p.Limits)
		if err == nil && cgroup != "" {
			if err = pidsCgroup(cgroup, proc.childPID, p.Limits.Processes); err == nil {
				proc.cgroup = cgroup
			}
		}
		if err != nil {
			// Killed before the block is lifted: the command never runs.
			proc.Kill()
			closeAll(seccompW, blockW)
			proc.Wait()
			return nil, fmt.Errorf("sandbox bwrap: %w", err)
		}
	}
	if c.BeforeRelease != nil {
		c.BeforeRelease()
	}
	// Let the sandbox go on to start the command, on all of safeexec's
	// processors.
	child.CPUs.Release(child.Pid, proc.childPID)
	if err = releaseSandbox(seccompW, blockW, filter); err != nil {
		proc.Kill()
		proc.Wait()
		return nil, fmt.Errorf("sandbox bwrap: start the command: %w", err)
	}
	return proc, nil
}

// waitPidfd blocks until the process behind fd has exited.
func waitPidfd(fd int) {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(pfd, -1)
		if err != unix.EINTR {
			return
		}
	}
}

// waitGone polls for a process to disappear, for kernels without pidfds.
func waitGone(pid int) {
	for i := 0; i < 500; i++ {
		if err := unix.Kill(pid, 0); err == unix.ESRCH {
			return
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// forkExec starts path with argv and env in its own process group, c's
// stdio as descriptors 0-2 and extra from 3 on (prelaunch.StartChild).
func forkExec(path string, argv, env []string, c *Command, extra []*os.File) (*prelaunch.Child, error) {
	ch, err := prelaunch.StartChild(path, argv, env, c.Stdin, c.Stdout, c.Stderr, extra)
	if err == nil {
		ch.Begin()
	}
	return ch, err
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

type bwrapProcess struct {
	child    *prelaunch.Child // bwrap
	status   *os.File
	dec      *json.Decoder
	watch    []watchPath // swept once the sandbox is gone
	protect  *protectWatch
	stderr   io.Writer
	watchdog *cgroupWatchdog
	childPID int    // the sandbox's init, in the host's pid namespace
	pidfd    int    // of the sandbox's init, or -1
	cgroup   string // the pids cgroup of a run by root with a process limit
	argv0    string
	// sweep looks at the git directories below the roots after the run;
	// gitLinks are control entries that are links, put back if changed.
	sweep      *gitSweep
	gitLinks   map[string]string
	gitConfigs []configSnap // submodules' configs, put back if they name a program
	// release ends the thread that holds the sandbox's network namespace
	// and bwrap's parent-death signal; called once bwrap is gone.
	release func()

	mu   sync.Mutex
	done bool

	waitOnce sync.Once
	st       Status
	err      error
}

// Signal sends sig to the command's process group inside the sandbox. The
// group is that of the sandbox's init (bwrap's --new-session makes it a
// session leader and the command inherits its group); init itself ignores
// signals it has no handler for.
func (b *bwrapProcess) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("sandbox bwrap: unsupported signal %v", sig)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return os.ErrProcessDone
	}
	if b.pidfd >= 0 {
		err := unix.PidfdSendSignal(b.pidfd, s, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
		if err == nil || !errors.Is(err, unix.EINVAL) {
			return err
		}
		// Kernels before 6.9 lack the group flag.
	}
	return syscall.Kill(-b.childPID, s)
}

// Kill ends the sandbox: SIGKILL to its init ends every process in its pid
// namespace, and bwrap follows.
func (b *bwrapProcess) Kill() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return os.ErrProcessDone
	}
	if b.pidfd >= 0 {
		unix.PidfdSendSignal(b.pidfd, unix.SIGKILL, nil, 0)
	} else if b.childPID > 0 {
		syscall.Kill(b.childPID, syscall.SIGKILL)
	}
	return b.child.Kill()
}

func (b *bwrapProcess) Wait() (Status, error) {
	b.waitOnce.Do(func() { b.st, b.err = b.wait() })
	return b.st, b.err
}

func (b *bwrapProcess) wait() (Status, error) {
	// bwrap returns as soon as the command exits; the sandbox's init then
	// kills whatever is left. Its pidfd turns readable only once it has
	// exited, which it does after every other process of its pid
	// namespace is gone.
	b.child.WaitExited()
	b.mu.Lock()
	b.done = true
	fd := b.pidfd
	b.pidfd = -1
	b.mu.Unlock()
	ws, werr := b.child.Reap()
	b.release()
	if fd >= 0 {
		waitPidfd(fd)
		unix.Close(fd)
	} else if b.childPID > 0 {
		waitGone(b.childPID)
	}

	// bwrap has exited, so its init and everything in the pid namespace are
	// gone; the status pipe holds the rest of what it wrote.
	exitCode := -1
	for {
		var s bwrapStatus
		if err := b.dec.Decode(&s); err != nil {
			break
		}
		if s.ExitCode != nil {
			exitCode = *s.ExitCode
		}
	}
	b.status.Close()
	b.child.WaitOutput()
	if b.cgroup != "" {
		removeCgroup(b.cgroup)
	}
	b.watchdog.stop()
	// One quarantine directory for everything this run leaves.
	q := &quarantine{}
	taken := sweepCreatedInto(q, b.watch, b.stderr)
	taken = append(taken, restoreLinks(q, b.gitLinks, b.stderr)...)
	cfgTaken, unchecked := restoreConfigs(q, b.gitConfigs, func() string {
		return findHostGit(func(p string) bool { return b.sweep.rootOf(p, true) != "" })
	}, b.stderr)
	taken = append(taken, cfgTaken...)
	gitTaken, more := b.sweep.finish(q, b.stderr)
	taken = append(taken, gitTaken...)
	unchecked = append(unchecked, more...)
	refused := b.protect.touched()

	if werr != nil {
		return Status{ExitCode: 125, Protected: taken, Unchecked: unchecked}, fmt.Errorf("sandbox bwrap: wait: %w", werr)
	}
	switch {
	case exitCode >= 0:
		st := Status{ExitCode: exitCode, Protected: taken, Refused: refused, Unchecked: unchecked}
		// bwrap reports a command killed by signal N as 128+N, as a shell
		// does; an exit status in that range is read the same way.
		if exitCode > 128 && exitCode <= 128+64 {
			st.Signal = exitCode - 128
		}
		return st, nil
	case ws.Signaled():
		// bwrap itself was killed (Kill, or from outside).
		return Status{ExitCode: 128 + int(ws.Signal()), Signal: int(ws.Signal()), Protected: taken, Unchecked: unchecked}, nil
	case b.childPID > 0 && ws.ExitStatus() == 1:
		// The sandbox's process started but no exit code came back: the
		// command never ran. Either bwrap could not exec it (found on the
		// host, not inside: strict mode) or a late setup step failed;
		// bwrap's message on stderr says which.
		return Status{ExitCode: 127, Protected: taken, Unchecked: unchecked}, fmt.Errorf("sandbox bwrap: %s did not start inside the sandbox (see bwrap's message above)", b.argv0)
	}
	return Status{ExitCode: ws.ExitStatus(), Protected: taken, Unchecked: unchecked}, nil
}

// listenHere opens a listener in the calling thread's network namespace.
func listenHere(network, host string, port int) (net.Listener, error) {
	lc := net.ListenConfig{KeepAlive: -1}
	return lc.Listen(context.Background(), network, net.JoinHostPort(host, strconv.Itoa(port)))
}

// stdinUnshared reports whether starting the sandbox reads nothing from
// the command's standard input (a file or nothing is handed over as is;
// anything else is copied once bwrap runs).
func stdinUnshared(c *Command) bool {
	if c.Stdin == nil {
		return true
	}
	_, ok := c.Stdin.(*os.File)
	return ok
}
