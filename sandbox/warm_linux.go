package sandbox

// Warm sandboxes.
//
// A sandbox started ahead (ahead_linux.go) is started when its run
// begins, from that run's own command: it can only overlap with the run.
// A process that runs many commands (safeexec serve) can do better and
// build the next command's sandbox while it waits for that command, but
// then the command is not known yet. A warm sandbox runs a tiny program
// of ours instead (warmexec/amd64.S: no libc, a few hundred bytes,
// handed to bwrap as a sealed memory file, descriptor 7): once the
// sandbox is released it reads the command's arguments, and the paths
// to try as execvp(3) would walk PATH, from descriptor 6, and execs it.
// No shell reads the command: what runs is exactly that argument vector.
//
// The sandbox may be used minutes after it was built, and the host may
// have changed meanwhile in ways the run's own plan cannot see: a file
// masked by a mount, replaced on the host (git writes .git/config by
// renaming a new file over it), loses that mount in every other mount
// namespace, so the plan, computed from the host as it is now, is the
// same while the sandbox no longer masks it. So a warm sandbox is used
// only if, when its run takes it: its mount table is byte for byte the
// one it had when it was built (nothing detached, nothing propagated in);
// every mount the launch asks for is at its place, of its kind, read-only
// where asked; and every bind shows the very file or directory its source
// is on the host now. Anything else, and it is killed unused, as a
// mismatched sandbox started ahead is.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/safeexec/safeexec/internal/prelaunch"
)

// warmCommand is the command of a warm sandbox's launch: the program on
// descriptor 7.
var warmCommand = []string{"/proc/self/fd/7"}

// warmMax bounds what is handed to a warm sandbox: it is written before
// the sandbox is released, so it must fit in the pipe's buffer (and the
// program reads at most 64 KiB).
const warmMax = 60 << 10

// warmSettleMax bounds how long a warm sandbox may take to be built.
const warmSettleMax = 2 * time.Second

// WarmCommand is the command a warm sandbox's launch ends with (see
// StartWarm).
func WarmCommand() []string { return slices.Clone(warmCommand) }

// warmState is what a warm sandbox learnt of itself once built.
type warmState struct {
	argvW   *os.File      // the command, written when used
	argvCap int           // what argvW's pipe holds
	settled chan struct{} // closed once built (or failed)
	stop    chan struct{} // closed when the sandbox is killed
	err     error
	dec     *json.Decoder // bwrap's status, its first document read
	first   bwrapStatus
	// The sandbox's mount table once built, and the host's (safeexec's)
	// from before bwrap started to copy it until the sandbox was built.
	mounts, hostMounts []byte
}

// StartWarm starts a warm sandbox: bwrap as l says, whose command must
// be WarmCommand, its stdout and stderr the command's to be (see
// StartAhead); a run whose command has the same launch up to the command
// runs in it (Start). Only launches that mount /proc (where the program
// is found) are started, and only where there is such a program (amd64).
func StartWarm(l *Launch, stdout, stderr io.Writer) *Ahead {
	opts, command, ok := prelaunch.SplitLaunchArgs(l.Args)
	exe := warmExecFile()
	if !ok || exe == nil || !warmable(opts, command) || !prelaunch.PathsExist(l.Args) {
		return &Ahead{}
	}
	// The host's mount table before bwrap copies it: one that changes
	// while the sandbox is built may be copied in part or not at all.
	host, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return &Ahead{}
	}
	argvR, argvW, err := os.Pipe()
	if err != nil {
		return &Ahead{}
	}
	// The command is written before the sandbox is released, so it must
	// fit in the pipe: a user over fs.pipe-user-pages-soft gets 8 KiB
	// pipes (useWarm refuses a longer command).
	unix.FcntlInt(argvW.Fd(), unix.F_SETPIPE_SZ, warmMax)
	capacity, err := unix.FcntlInt(argvW.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		closeAll(argvR, argvW)
		return &Ahead{}
	}
	pre := &prestart{done: make(chan struct{}), launch: *l,
		stdio: Command{Stdout: stdout, Stderr: stderr},
		warm: &warmState{argvW: argvW, argvCap: capacity, settled: make(chan struct{}), stop: make(chan struct{}),
			hostMounts: host}}
	pre.err = pre.start(argvR, exe)
	argvR.Close()
	close(pre.done)
	if pre.err != nil {
		argvW.Close()
		close(pre.warm.settled)
		return &Ahead{}
	}
	go pre.settle()
	return &Ahead{pre: pre}
}

// warmable reports whether a launch's options and command are a warm
// sandbox's.
func warmable(opts, command []string) bool {
	// The program alone: a program before it (the network bridge) would
	// keep descriptors 6 and 7 while the command runs.
	if !slices.Equal(command, warmCommand) {
		return false
	}
	for i := 0; i < len(opts); i++ {
		if opts[i] == "--proc" && i+1 < len(opts) && opts[i+1] == "/proc" {
			return true
		}
		i += aheadArity(opts[i])
	}
	return false
}

// settle waits for the warm sandbox to be built: bwrap's first process is
// then blocked reading its block descriptor. Its mount table is kept.
func (pre *prestart) settle() {
	w := pre.warm
	defer close(w.settled)
	w.dec = json.NewDecoder(bufio.NewReader(pre.statusR))
	if err := w.dec.Decode(&w.first); err != nil || w.first.ChildPID == nil {
		w.err = errors.New("warm sandbox: bwrap reported no sandbox")
		return
	}
	pid := *w.first.ChildPID
	deadline := time.Now().Add(warmSettleMax)
	for {
		blocked, err := blockedOnBlockFD(pid)
		if err != nil {
			w.err = err
			return
		}
		if blocked {
			break
		}
		if time.Now().After(deadline) {
			w.err = errors.New("warm sandbox: not built in time")
			return
		}
		select {
		case <-w.stop:
			w.err = errors.New("warm sandbox: killed")
			return
		case <-time.After(time.Millisecond):
		}
	}
	if w.mounts, w.err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/mountinfo"); w.err != nil {
		return
	}
	host, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		w.err = err
		return
	}
	if !bytes.Equal(host, w.hostMounts) {
		w.err = errors.New("warm sandbox: the host's mounts changed while it was built")
		return
	}
	opts, _, _ := prelaunch.SplitLaunchArgs(pre.launch.Args)
	table := parseMountinfo(w.mounts)
	if w.err = checkWarmMounts(pid, opts, table); w.err != nil {
		return
	}
	w.err = checkCopiedMounts(opts, table, parseMountinfo(host))
}

// checkCopiedMounts checks that every mount in the sandbox that the
// launch did not make itself is a copy of a mount the host has now, at
// the place the launch's bind maps it to, of the same file system and
// root. bwrap binds recursively: the host's mounts below a source are
// copied with it, and one the host made while bwrap copied its table and
// has removed since (a secrets directory bound into the project for a
// moment) would otherwise stay in the sandbox, with the host's table the
// same before and after.
func checkCopiedMounts(opts []string, sandbox, host map[uint64]mountEntry) error {
	type bind struct{ src, dst string }
	var binds []bind
	own := map[string]bool{}
	var internal []string // --dev and --proc: bwrap fills them itself
	for i := 0; i < len(opts); i++ {
		switch opts[i] {
		case "--bind", "--ro-bind", "--ro-bind-try":
			binds = append(binds, bind{opts[i+1], opts[i+2]})
			own[opts[i+2]] = true
		case "--tmpfs":
			own[opts[i+1]] = true
		case "--proc", "--dev":
			own[opts[i+1]] = true
			internal = append(internal, opts[i+1])
		}
		i += aheadArity(opts[i])
	}
	under := func(p, dir string) bool {
		return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
	}
	hostAt := map[string][]mountEntry{}
	for _, e := range host {
		hostAt[e.point] = append(hostAt[e.point], e)
	}
	for _, e := range sandbox {
		if own[e.point] || slices.ContainsFunc(internal, func(d string) bool { return under(e.point, d) }) {
			continue
		}
		// The last bind whose destination holds it brought it in.
		from := ""
		for _, b := range binds {
			if under(e.point, b.dst) {
				rest := strings.TrimPrefix(e.point, b.dst)
				if b.dst == "/" {
					rest = e.point
				}
				from = path.Join(b.src, rest)
			}
		}
		if from == "" || !slices.ContainsFunc(hostAt[from], func(h mountEntry) bool {
			return h.dev == e.dev && h.root == e.root && h.fstype == e.fstype
		}) {
			return fmt.Errorf("warm sandbox: %s is mounted in it and no longer on the host", e.point)
		}
	}
	return nil
}

// blockedOnBlockFD reports whether the sandbox's first process is in
// read(2) on its block descriptor, where bwrap waits once it has built
// the sandbox and dropped its privileges (nothing else bwrap does reads
// that descriptor).
func blockedOnBlockFD(pid int) (bool, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
	if err != nil {
		return false, fmt.Errorf("warm sandbox: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return false, nil // running
	}
	return f[0] == strconv.Itoa(unix.SYS_READ) && f[1] == "0x"+strconv.FormatInt(int64(aheadFDs.Block), 16), nil
}

// warmMatches is matches for a warm sandbox: the same launch up to the
// command, which the shell then runs.
func (pre *prestart) warmMatches(path string, args, env []string, filter []byte, c *Command, fds bwrapFDs) bool {
	<-pre.done
	n := len(args) - len(c.Argv)
	m := len(pre.launch.Args) - len(warmCommand)
	if pre.err != nil || n < 0 || m < 0 || !slices.Equal(args[n:], c.Argv) {
		return false
	}
	same := *pre
	same.launch.Args = slices.Concat(pre.launch.Args[:m], c.Argv)
	return same.matches(path, args, env, filter, c, fds)
}

// useWarm checks the warm sandbox against the host as it is now (see
// above) and hands it the command: argv, run with env (bwrap's, which the
// sandbox has), found on the host at hostPath.
func (pre *prestart) useWarm(argv, env []string, hostPath string) error {
	w := pre.warm
	select {
	case <-w.settled:
	case <-time.After(warmSettleMax):
		return errors.New("warm sandbox: not built in time")
	}
	if w.err != nil {
		return w.err
	}
	if !directlyExecutable(hostPath) {
		// execvp(3) would run it with /bin/sh; the program does not.
		return errors.New("warm sandbox: not a program the kernel runs")
	}
	data, err := warmData(argv, env)
	if err != nil {
		return err
	}
	if len(data) > min(warmMax, w.argvCap) {
		return errors.New("warm sandbox: command too long")
	}
	// Checked once built (checkWarmMounts): every mount as asked, of the
	// source its path names on the host, no symbolic link on the way.
	// Since then, the host can only have changed what they show by
	// removing, renaming or replacing a mount point or a source, or by
	// mounting something: each changes one of the two mount tables (a
	// mount point removed or replaced is unmounted in every other
	// namespace, a moved one and a moved or removed source show at their
	// new path or as deleted; new mounts propagate or are the host's).
	pid := *w.first.ChildPID
	now, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/mountinfo")
	if err != nil {
		return fmt.Errorf("warm sandbox: %w", err)
	}
	host, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("warm sandbox: %w", err)
	}
	if !bytes.Equal(now, w.mounts) || !bytes.Equal(host, w.hostMounts) {
		return errors.New("warm sandbox: the mounts changed")
	}
	if blocked, err := blockedOnBlockFD(pid); err != nil || !blocked {
		return errors.New("warm sandbox: not waiting")
	}
	_, err = w.argvW.Write(data)
	if cerr := w.argvW.Close(); err == nil {
		err = cerr
	}
	return err
}

// directlyExecutable reports whether the file at p is a regular file that
// starts as a program the kernel runs itself: an ELF file or a script
// with #!. (Opened without blocking: the command may have made it a
// FIFO.)
func directlyExecutable(p string) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	var b [4]byte
	n, _ := unix.Read(fd, b[:])
	return n == 4 && string(b[:]) == "\x7fELF" || n >= 2 && string(b[:2]) == "#!"
}

// warmData is what the program reads (warmexec/amd64.S): the number of
// arguments and of paths, then each, NUL-terminated. The paths are
// execvp(3)'s: argv[0] itself if it has a slash, else argv[0] in each
// directory of env's PATH (its first, as getenv(3) finds it; glibc's
// default without one), an empty one being the working directory.
func warmData(argv, env []string) ([]byte, error) {
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, errors.New("warm sandbox: a NUL byte in an argument")
		}
	}
	var paths []string
	if strings.Contains(argv[0], "/") {
		paths = []string{argv[0]}
	} else {
		path := "/bin:/usr/bin"
		for _, kv := range env {
			if v, found := strings.CutPrefix(kv, "PATH="); found {
				path = v
				break
			}
		}
		for _, dir := range strings.Split(path, ":") {
			if dir == "" {
				dir = "."
			}
			paths = append(paths, strings.TrimSuffix(dir, "/")+"/"+argv[0])
		}
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(argv)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(paths)))
	for _, list := range [][]string{argv, paths} {
		for _, s := range list {
			b = append(append(b, s...), 0)
		}
	}
	return b, nil
}

// mountEntry is one line of a mountinfo file.
type mountEntry struct {
	point, root, fstype, dev string
	readOnly                 bool
}

// parseMountinfo reads a mountinfo file, by mount ID.
func parseMountinfo(b []byte) map[uint64]mountEntry {
	m := map[uint64]mountEntry{}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		sep := slices.Index(f, "-")
		if len(f) < 6 || sep < 6 || sep+1 >= len(f) {
			continue
		}
		id, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		m[id] = mountEntry{point: unescapeMount(f[4]), root: unescapeMount(f[3]), fstype: f[sep+1], dev: f[2],
			readOnly: slices.Contains(strings.Split(f[5], ","), "ro")}
	}
	return m
}

// unescapeMount undoes mountinfo's octal escapes (space, tab, newline,
// backslash).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// warmMount is a mount a launch asks for.
type warmMount struct {
	op, src, dst string
}

// launchMounts lists the mounts of a launch's options that nothing mounted
// later covers (what the sandbox shows at their destination).
func launchMounts(opts []string) []warmMount {
	var all []warmMount
	for i := 0; i < len(opts); i++ {
		switch opts[i] {
		case "--bind", "--ro-bind", "--ro-bind-try":
			all = append(all, warmMount{opts[i], opts[i+1], opts[i+2]})
		case "--tmpfs", "--proc", "--dev":
			all = append(all, warmMount{opts[i], "", opts[i+1]})
		}
		i += aheadArity(opts[i])
	}
	var top []warmMount
	for i, m := range all {
		covered := false
		for _, later := range all[i+1:] {
			if later.dst == m.dst || later.dst == "/" || strings.HasPrefix(m.dst, later.dst+"/") {
				covered = true
				break
			}
		}
		if !covered {
			top = append(top, m)
		}
	}
	return top
}

// checkWarmMounts checks that the sandbox of bwrap's first process pid
// shows every mount of opts as asked, and the host's sources as they are
// now.
func checkWarmMounts(pid int, opts []string, table map[uint64]mountEntry) error {
	root, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("warm sandbox: %w", err)
	}
	defer unix.Close(root)
	for _, m := range launchMounts(opts) {
		inside, ok := statInside(root, m.dst)
		if m.op == "--ro-bind-try" {
			var st unix.Stat_t
			if unix.Stat(m.src, &st) != nil {
				// No source: nothing may be mounted there.
				if ok && table[inside.Mnt_id].point == m.dst {
					return fmt.Errorf("warm sandbox: %s is mounted, its source is gone", m.dst)
				}
				continue
			}
		}
		if !ok {
			return fmt.Errorf("warm sandbox: %s is not there", m.dst)
		}
		e, found := table[inside.Mnt_id]
		if !found || e.point != m.dst || strings.HasSuffix(e.root, "//deleted") {
			return fmt.Errorf("warm sandbox: %s is not mounted as built", m.dst)
		}
		switch m.op {
		case "--tmpfs", "--dev":
			if e.fstype != "tmpfs" {
				return fmt.Errorf("warm sandbox: %s is not a tmpfs", m.dst)
			}
			continue
		case "--proc":
			if e.fstype != "proc" {
				return fmt.Errorf("warm sandbox: %s is not proc", m.dst)
			}
			continue
		}
		var host unix.Stat_t
		if err := unix.Stat(m.src, &host); err != nil {
			return fmt.Errorf("warm sandbox: %w", err)
		}
		if real, err := filepath.EvalSymlinks(m.src); err != nil || real != m.src {
			return fmt.Errorf("warm sandbox: %s is not a path without links", m.src)
		}
		if host.Ino != inside.Ino || host.Dev != unix.Mkdev(inside.Dev_major, inside.Dev_minor) {
			return fmt.Errorf("warm sandbox: %s is no longer what %s is", m.dst, m.src)
		}
		if e.readOnly != (m.op != "--bind") {
			return fmt.Errorf("warm sandbox: %s has the wrong access", m.dst)
		}
	}
	return nil
}

// statInside stats p in the sandbox whose root is the descriptor root, as
// the sandbox resolves it, following no symbolic link.
func statInside(root int, p string) (unix.Statx_t, bool) {
	var st unix.Statx_t
	rel := strings.TrimPrefix(p, "/")
	if rel == "" {
		rel = "."
	}
	fd, err := unix.Openat2(root, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return st, false
	}
	defer unix.Close(fd)
	if unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_INO|unix.STATX_MNT_ID, &st) != nil || st.Mask&unix.STATX_MNT_ID == 0 {
		return st, false
	}
	return st, true
}

// warmExec is the warm sandbox's program in a sealed memory file, made once.
var warmExec struct {
	once sync.Once
	f    *os.File
}

// warmExecFile is the memory file holding warmExecELF, or nil where there
// is none or it cannot be made.
func warmExecFile() *os.File {
	warmExec.once.Do(func() {
		if len(warmExecELF) == 0 {
			return
		}
		const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
		fd, err := unix.MemfdCreate("safeexec-warm", flags|unix.MFD_EXEC)
		if err != nil { // kernels before 6.3 know no MFD_EXEC
			fd, err = unix.MemfdCreate("safeexec-warm", flags)
		}
		if err != nil {
			return
		}
		f := os.NewFile(uintptr(fd), "safeexec-warm")
		if _, err := f.Write(warmExecELF); err != nil {
			f.Close()
			return
		}
		// vm.memfd_noexec=2 makes every memory file one that cannot be
		// run (no x bits, sealed so): no warm sandboxes then.
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Mode&0o111 != 0o111 {
			f.Close()
			return
		}
		// Sealed as it is, x bits included (F_SEAL_EXEC, Linux 6.3): a
		// command that reached the file could not make it unrunnable
		// for the next ones.
		seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
		if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals|unix.F_SEAL_EXEC); err != nil {
			if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
				f.Close()
				return
			}
		}
		warmExec.f = f
	})
	return warmExec.f
}
