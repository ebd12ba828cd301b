package sandbox

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Git runs a repository's hooks, and commands named in its config
// (core.fsmonitor, core.sshCommand, aliases), when the user works in it on
// the host. The protected paths cover the .git of each writable root; a
// repository nested below a root (a vendored one, one the command creates
// with git init, a submodule's git directory in .git/modules) is just
// files. So after the run, sweepNestedGit looks for git directories below
// the roots and takes away the hooks and config files the run created or
// changed: their status-change time (which a command cannot set back, as
// it can the modification time) is at or after the run's start.
//
// Git directories are found where git finds them: a .git directory; a
// .git file ("gitdir: PATH", as submodules and worktrees use) and a
// commondir file, followed to wherever they lead inside what the command
// could write (the roots, the tool cache); a bare repository (HEAD, objects
// and refs in any directory). A root's own .git is checked too when it did
// not exist at the start (the run made the directory a repository, so
// nothing was protected), and its per-worktree config (config.worktree,
// read with extensions.worktreeConfig) always.
//
// The walk does not follow symbolic links, skips directories where nobody
// runs git (node_modules, virtualenvs, caches), and stops after
// nestedGitBudget entries: beyond that, and for repositories created
// outside the roots, nothing is checked (doc.go, Limits).

// nestedGitBudget bounds the directory entries one sweep looks at, and
// nestedGitDepth how deep below a root it goes.
var (
	nestedGitBudget = 50000
	nestedGitDepth  = 12
)

// nestedGitSkip are directory names not descended into.
var nestedGitSkip = []string{"node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache",
	".pytest_cache", ".gradle", ".cache"}

// gitSweepPlan is what the sweep needs to know from the start of the run.
type gitSweepPlan struct {
	// roots are walked.
	roots []string
	// hadGit holds the roots whose own .git was there at the start, and
	// so protected during the run.
	hadGit map[string]bool
	// reach are the resolved directories the command could write to: a
	// git directory named by a .git or commondir file is checked only
	// there (nowhere else could the run have put one).
	reach []string
	// protected are the resolved .git directories of the roots in
	// hadGit: reached through a link or a .git file, their hooks and
	// config are still the protected ones.
	protected []string
}

// sweepNestedGit checks the git directories below the plan's roots and
// returns the host paths it took away, reporting each on w.
func sweepNestedGit(plan *gitSweepPlan, since time.Time, w io.Writer) []string {
	if plan == nil {
		return nil
	}
	s := &gitSweep{since: since, budget: nestedGitBudget, w: w, plan: plan, seen: map[string]bool{}}
	for _, r := range plan.roots {
		fd := openNoFollow(r)
		if fd < 0 {
			continue
		}
		dfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err == nil {
			s.dir(dfd, r, 0, true)
		}
	}
	return s.taken
}

type gitSweep struct {
	since  time.Time
	budget int
	w      io.Writer
	q      quarantine
	taken  []string
	buf    []byte
	plan   *gitSweepPlan
	seen   map[string]bool // git directories checked
}

// gitNames are the file names readNames reports besides directories.
type gitNames struct {
	dotGit, head bool // a .git and a HEAD that are not directories
}

// readNames lists the entries of dfd that are, or may be, directories
// (raw getdents with the entry types: the walk runs after every command
// and must not touch each file), and notes a .git or HEAD file.
func (s *gitSweep) readNames(dfd int) ([]string, gitNames) {
	if s.buf == nil {
		s.buf = make([]byte, 32<<10)
	}
	var names []string
	var files gitNames
	for {
		n, err := unix.ReadDirent(dfd, s.buf)
		if err != nil || n <= 0 {
			return names, files
		}
		b := s.buf[:n]
		for len(b) >= 19 {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			typ := b[18]
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			s.budget--
			if typ != unix.DT_DIR && typ != unix.DT_UNKNOWN {
				switch string(name) {
				case ".git":
					files.dotGit = true
				case "HEAD":
					files.head = true
				}
				continue
			}
			if nm := string(name); nm != "." && nm != ".." {
				names = append(names, nm)
			}
		}
	}
}

// dir walks the directory open as dfd (host path p), and closes dfd.
// Subdirectories are opened relative to it without following links, so
// the walk never leaves the root.
func (s *gitSweep) dir(dfd int, p string, depth int, isRoot bool) {
	defer unix.Close(dfd)
	if s.budget <= 0 || depth > nestedGitDepth {
		return
	}
	names, files := s.readNames(dfd)
	if files.head && slices.Contains(names, "objects") && slices.Contains(names, "refs") {
		// A bare repository (or one that looks like it to git).
		s.gitDir(p, true)
		return
	}
	if files.dotGit {
		// "gitdir: PATH": a submodule's or worktree's git directory
		// elsewhere, which git uses as if it were here.
		s.follow(p, ".git", "gitdir: ")
	}
	for _, name := range names {
		if name == ".git" {
			// The root's own hooks and config are bound read-only during
			// the run when they were there at its start; its
			// submodules' git directories are not.
			if fi, err := os.Lstat(filepath.Join(p, name)); err == nil && fi.IsDir() {
				g := filepath.Join(p, name)
				s.gitDir(g, !isRoot || !s.plan.hadGit[p])
			} else {
				s.follow(p, ".git", "gitdir: ")
			}
			continue
		}
		if slices.Contains(nestedGitSkip, name) {
			continue
		}
		sub, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // not a directory, or a link
		}
		s.dir(sub, filepath.Join(p, name), depth+1, false)
	}
}

// gitDir checks one git directory: its hooks and config (unless they were
// protected during the run), its per-worktree config files, the common
// directory it names, and its submodules' git directories.
func (s *gitSweep) gitDir(g string, own bool) {
	if s.seen[g] || s.budget <= 0 {
		return
	}
	s.seen[g] = true
	s.check(g, "config.worktree", configRuns)
	if wts, err := readDirNoFollow(filepath.Join(g, "worktrees")); err == nil {
		s.budget -= len(wts)
		for _, wt := range wts {
			if wt.IsDir() {
				d := filepath.Join(g, "worktrees", wt.Name())
				s.check(d, "config.worktree", configRuns)
				s.follow(d, "commondir", "")
			}
		}
	}
	s.follow(g, "commondir", "")
	if own {
		s.check(g, "config", configRuns)
		if hooks, err := readDirNoFollow(filepath.Join(g, "hooks")); err == nil {
			for _, h := range hooks {
				s.check(filepath.Join(g, "hooks"), h.Name(), hookRuns)
			}
		} else {
			// A hooks entry that is not a directory (a link elsewhere).
			s.check(g, "hooks", func(string, *unix.Stat_t) bool { return true })
		}
	}
	s.modules(filepath.Join(g, "modules"), 0)
}

// follow reads the file dir/name (a .git file after prefix, or a
// commondir file), and checks the git directory it names when that lies
// where the command could have written. A .git that is a link to a
// directory is that git directory.
func (s *gitSweep) follow(dir, name, prefix string) {
	// Git follows links here; so does the look, but only to check what
	// lies inside the roots, where the check itself follows none.
	p, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if err != nil {
		return
	}
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	if fi.IsDir() {
		if name == ".git" {
			s.gitIn(p)
		}
		return
	}
	if !fi.Mode().IsRegular() {
		return
	}
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:max(n, 0)]), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	if !ok || target == "" {
		return
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	if real, err := filepath.EvalSymlinks(target); err == nil {
		s.gitIn(real)
	}
}

// gitIn checks the git directory real (resolved) when it lies where the
// command could have written.
func (s *gitSweep) gitIn(real string) {
	for _, r := range s.plan.reach {
		if real == r || strings.HasPrefix(real, r+"/") {
			s.gitDir(real, !slices.Contains(s.plan.protected, real))
			return
		}
	}
}

// hookRuns: git runs an executable file (or what a link names) in hooks,
// never the .sample files git init writes.
func hookRuns(p string, st *unix.Stat_t) bool {
	if strings.HasSuffix(p, ".sample") {
		return false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return true
	case unix.S_IFREG:
		return st.Mode&0o111 != 0
	}
	return false
}

// gitConfigRuns are config keys (last component, lower case) whose value
// git runs, or which pull in more config, or turn hooks on elsewhere.
var gitConfigRuns = []string{"hookspath", "fsmonitor", "sshcommand", "pager", "editor", "askpass",
	"textconv", "clean", "smudge", "process", "program", "helper", "path", "command", "cmd",
	"proxycommand", "receivepack", "uploadpack", "gitproxy", "exec"}

// configRuns: a config file the run wrote matters when it names a command
// or another file; one git init writes (format version, file mode, ...)
// is left alone, so repositories a build or a test creates keep working.
func configRuns(p string, st *unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return true
	}
	if st.Size > 1<<20 {
		return true
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.ToLower(strings.TrimSpace(line))
		if strings.HasPrefix(line, "[include") || strings.HasPrefix(line, "[alias") {
			return true
		}
		key, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		if slices.Contains(gitConfigRuns, key) || strings.HasSuffix(key, "command") || strings.HasSuffix(key, "cmd") ||
			strings.HasSuffix(key, "program") || strings.HasSuffix(key, "helper") {
			return true
		}
	}
	return false
}

// modules walks .git/modules, where each submodule's git directory lives
// (nested submodules in its own modules directory).
func (s *gitSweep) modules(m string, depth int) {
	if depth > 8 || s.budget <= 0 {
		return
	}
	ents, err := readDirNoFollow(m)
	if err != nil {
		return
	}
	s.budget -= len(ents)
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(m, e.Name())
		if _, err := os.Lstat(filepath.Join(sub, "HEAD")); err == nil {
			s.gitDir(sub, true)
		} else {
			s.modules(sub, depth+1) // a submodule named with a slash
		}
	}
}

// check takes away dir/name if the run created or changed it and it is
// something git would run (matters).
func (s *gitSweep) check(dir, name string, matters func(string, *unix.Stat_t) bool) {
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(dir, name), &st); err != nil {
		return
	}
	if time.Unix(st.Ctim.Unix()).Before(s.since) || !matters(filepath.Join(dir, name), &st) {
		return
	}
	dfd := openNoFollow(dir)
	if dfd < 0 {
		return
	}
	defer unix.Close(dfd)
	at := filepath.Join(dir, name)
	dst, err := s.q.take(dfd, name, at)
	s.taken = append(s.taken, at)
	if s.w == nil {
		return
	}
	switch {
	case err != nil:
		io.WriteString(s.w, "safeexec: the command changed "+at+", which git runs or reads on the host, and it could not be moved away ("+err.Error()+"): check it before using git there\n")
	case dst == "":
		io.WriteString(s.w, "safeexec: the command changed "+at+", which git runs or reads on the host; removed it\n")
	default:
		io.WriteString(s.w, "safeexec: the command changed "+at+", which git runs or reads on the host; moved it to "+dst+"\n")
	}
}

// readDirNoFollow lists directory p, refusing a symbolic link in any of
// its components.
func readDirNoFollow(p string) ([]os.DirEntry, error) {
	fd := openNoFollow(p)
	if fd < 0 {
		return nil, os.ErrNotExist
	}
	dfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	unix.Close(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dfd), p)
	defer f.Close()
	return f.ReadDir(-1)
}

// sweepRoots plans the nested-git sweep of p's writable roots: existing
// directories, the first only in strict mode, not the host's temporary
// directories (a private one replaced them). guarded says the backend
// restores the roots' own .git/hooks and .git/config itself (Landlock);
// otherwise a root's .git is checked whole when it is missing now, at the
// start.
func sweepRoots(p *Policy, guarded bool) *gitSweepPlan {
	roots := p.WritableRoots
	if p.Mode == Strict && len(roots) > 1 {
		roots = roots[:1]
	}
	plan := &gitSweepPlan{hadGit: map[string]bool{}}
	for _, r := range roots {
		if r == "/" || r == "/tmp" || r == "/var/tmp" || r == os.TempDir() {
			continue
		}
		if fi, err := os.Stat(r); err == nil && fi.IsDir() && !slices.Contains(plan.roots, r) {
			plan.roots = append(plan.roots, r)
			if _, err := os.Lstat(filepath.Join(r, ".git")); guarded || err == nil {
				plan.hadGit[r] = true
				if real, err := filepath.EvalSymlinks(filepath.Join(r, ".git")); err == nil {
					plan.protected = append(plan.protected, real)
				}
			}
			if real, err := filepath.EvalSymlinks(r); err == nil {
				plan.reach = append(plan.reach, real)
			}
		}
	}
	if p.CacheDir != "" {
		if real, err := filepath.EvalSymlinks(p.CacheDir); err == nil {
			plan.reach = append(plan.reach, real)
		}
	}
	return plan
}

// coarseNow reads the clock file times come from (the kernel stamps
// changes with the coarse real-time clock): a change made after this call
// carries this time or a later one.
func coarseNow() time.Time {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts); err != nil {
		return time.Now().Add(-20 * time.Millisecond)
	}
	return time.Unix(ts.Unix())
}
