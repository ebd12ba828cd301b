package sandbox

// After a run: the git directories the run could have made the host's git
// read from.
//
// The backends protect the control plane of the roots' own git
// directories (gitprotect.go). Any other directory below a root becomes a
// git directory to the host's git once it has objects and refs (or a
// commondir naming a directory that has them) and a HEAD; a worktree
// reaches one through its .git (a directory, a link, a "gitdir:" file).
// The sweep keeps this true after every run: no directory inside the
// roots that has objects and refs, or a commondir (a candidate, whether
// or not it has a HEAD yet), holds a hook or config that a run planted.
//
//   - A candidate that became one during the run (its objects, refs or
//     commondir were made or moved in) is judged whole, by what git would
//     read from it now: every runnable hook, every config naming a
//     program. Nothing staged by an earlier run survives being made
//     reachable, whatever its change time.
//   - In a candidate that was one before, the control entries the run
//     made or changed (change time at or after the start; a directory
//     made or moved in) are judged; what was there before is the user's
//     or was judged by the run that made it a candidate.
//   - A .git or commondir that the run made or changed, and leads outside
//     the swept roots into a directory runs can write (the tool cache),
//     has what it leads to judged whole. The hooks directory a worktree's
//     relative core.hooksPath names (its own config's or the host's) is
//     judged with the worktree.
//
// Content cannot come into a root from elsewhere without being made there
// during the run: bwrap binds each root on its own, and Landlock lets
// nothing move from the cache or the private temporary directory into a
// root (landlock.go), so a rename into a root fails and tools copy.
// Within the roots, moving a candidate does not change what git reads
// from it.
//
// Which candidates to look at: with a fanotify watch (fanotify_linux.go)
// those in or above a directory where something happened, so the cost
// follows what the run changed; without one, every directory of the roots
// is listed, up to gitSweepBudget entries and gitSweepDepth levels, and
// where the listing stops safeexec says so on stderr and in the audit
// record. Config is read by the host's git (git config --list --null) when
// it is installed outside the writable directories, by gitconf's parser
// otherwise; a config naming a program (gitconf.Runs) or including
// another file is taken back when judged.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/safeexec/safeexec/sandbox/gitconf"
	"golang.org/x/sys/unix"
)

// gitSweepBudget bounds the directory entries a listing sweep reads, and
// gitSweepDepth how deep below a root it goes.
var (
	gitSweepBudget = 1 << 20
	gitSweepDepth  = 256
)

// maxConfigSize is the largest config judged by content; a bigger one the
// run wrote is taken back whole.
const maxConfigSize = 1 << 20

// gitSweep is one run's look at the git directories below its roots.
type gitSweep struct {
	roots []string // swept (resolved, existing directories)
	reach []string // also writable by runs, not swept: the tool cache
	// skip are the git directories whose control plane the backend
	// protected; rootGit the roots whose .git it protected.
	skip    map[string]bool
	rootGit map[string]bool
	home    string
	since   time.Time
	fan     *fanWatch // nil: list the roots
	// fanWhy says why there is no watch, for tests and doctor.
	fanWhy string

	// Set while sweeping.
	w         io.Writer
	q         *quarantine
	taken     []string
	unchecked []string
	made      map[string]bool // fanotify: directories made or moved in
	seen      map[string]bool // ancestors looked at
	judged    map[string]int  // git directories: 1 judged, 2 judged whole
	configs   map[string]bool
	cands     map[string]bool
	worktrees map[string]bool
	hostCfg   *hostGitConfig
	git       string // the host's git, "-" when none may be used, "" not looked for yet
	budget    int
}

// newGitSweep plans the sweep of p's writable roots and starts watching
// them when it can. ctl is what the backend protects itself.
func newGitSweep(p *Policy, ctl *gitControl, since time.Time) *gitSweep {
	s := &gitSweep{skip: map[string]bool{}, rootGit: map[string]bool{}, since: since}
	s.home = homeDir()
	s.roots = sweptRoots(p)
	if p.CacheDir != "" {
		if real, err := filepath.EvalSymlinks(p.CacheDir); err == nil {
			s.reach = append(s.reach, real)
		}
	}
	if ctl != nil {
		for _, d := range ctl.Dirs {
			s.skip[d] = true
		}
		for _, r := range ctl.Roots {
			s.rootGit[r] = true
		}
	}
	if len(s.roots) > 0 {
		fw, err := newFanWatch(append(slices.Clone(s.roots), s.reach...))
		if err != nil {
			s.fanWhy = err.Error()
		}
		s.fan = fw
	}
	return s
}

// sweptRoots are p's writable roots as swept: resolved existing
// directories, the first only in strict mode, not / or the host's
// temporary directories (a private one replaces them).
func sweptRoots(p *Policy) []string {
	roots := p.WritableRoots
	if p.Mode == Strict && len(roots) > 1 {
		roots = roots[:1]
	}
	var out []string
	for _, r := range roots {
		real, err := filepath.EvalSymlinks(r)
		if err != nil || real == "/" || bwIsHostTemp(real) || real == os.TempDir() {
			continue
		}
		if fi, err := os.Stat(real); err == nil && fi.IsDir() && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// abort ends the watch of a run that did not start.
func (s *gitSweep) abort() {
	if s != nil && s.fan != nil {
		s.fan.stop()
		s.fan.close()
		s.fan = nil
	}
}

// finish sweeps once every process of the sandbox is gone, reporting on
// w and moving what it takes into q, and returns the paths it took away and what it could not check.
func (s *gitSweep) finish(q *quarantine, w io.Writer) (taken, unchecked []string) {
	if s == nil {
		return nil, nil
	}
	s.w, s.q = w, q
	s.seen, s.judged, s.configs = map[string]bool{}, map[string]int{}, map[string]bool{}
	s.cands, s.worktrees = map[string]bool{}, map[string]bool{}
	var changed map[string]*fanDir
	if s.fan != nil {
		s.fan.stop()
		var why string
		changed, why = s.fan.changed()
		s.fan.close()
		if changed == nil {
			s.fanWhy = why
			s.fan = nil
		}
	}
	if s.fan != nil {
		s.made = map[string]bool{}
		for d, fd := range changed {
			for n := range fd.made {
				s.made[filepath.Join(d, n)] = true
			}
		}
		dirs := make([]string, 0, len(changed))
		for d := range changed {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		for _, d := range dirs {
			if r := s.rootOf(d, true); r != "" {
				s.ancestors(d, r)
			}
		}
	} else {
		s.budget = gitSweepBudget
		for _, r := range s.roots {
			s.list(r)
		}
	}
	for _, g := range sortedKeys(s.cands) {
		s.judgeGitDir(g, false)
	}
	for _, wt := range sortedKeys(s.worktrees) {
		s.judgeWorktree(wt)
	}
	return s.taken, s.unchecked
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rootOf returns the swept root (or, with reach, the tool cache) holding
// p, the deepest one, or "".
func (s *gitSweep) rootOf(p string, reach bool) string {
	best := ""
	list := s.roots
	if reach {
		list = append(slices.Clone(s.roots), s.reach...)
	}
	for _, r := range list {
		if pathWithin(r, p) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

func (s *gitSweep) inReach(p string) bool {
	for _, r := range s.reach {
		if pathWithin(r, p) {
			return true
		}
	}
	return false
}

// ancestors looks at d and each directory above it up to root: a
// candidate git directory, a worktree.
func (s *gitSweep) ancestors(d, root string) {
	for a := d; ; a = filepath.Dir(a) {
		if s.seen[a] {
			return
		}
		s.seen[a] = true
		s.look(a, nil)
		if a == root || a == "/" {
			return
		}
	}
}

// look notes whether a is a candidate git directory or a worktree, from
// its entries' names when they are known (the listing sweep) or by lstat.
func (s *gitSweep) look(a string, names map[string]bool) {
	has := func(n string) bool {
		if names != nil {
			return names[n]
		}
		var st unix.Stat_t
		return unix.Lstat(filepath.Join(a, n), &st) == nil
	}
	if has("objects") && has("refs") || has("commondir") {
		s.cands[a] = true
	}
	if has(".git") {
		s.worktrees[a] = true
	}
}

// list walks root, noting candidates and worktrees, within the budget.
func (s *gitSweep) list(root string) {
	type item struct {
		fd    int
		path  string
		depth int
	}
	fd := openNoFollow(root)
	if fd < 0 {
		s.uncheck(root, "could not be opened")
		return
	}
	dfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	unix.Close(fd)
	if err != nil {
		s.uncheck(root, "could not be opened: "+err.Error())
		return
	}
	bp := getEventBuf()
	defer putEventBuf(bp)
	buf := *bp
	stack := []item{{dfd, root, 0}}
	stopped := false
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if stopped {
			unix.Close(it.fd)
			continue
		}
		names, dirs, err := readEntries(it.fd, buf)
		s.budget -= len(names)
		if err != nil {
			s.uncheck(it.path, "could not be listed: "+err.Error())
		}
		s.look(it.path, names)
		if s.budget < 0 {
			s.unchecked = append(s.unchecked, fmt.Sprintf("%s: the look for git directories stopped after %d entries", root, gitSweepBudget))
			s.say("safeexec: the look for git hooks and config the command may have planted stopped after %d entries below %s; check the git repositories there before running git in them\n", gitSweepBudget, root)
			stopped = true
		}
		for _, name := range dirs {
			if stopped {
				break
			}
			if it.depth+1 > gitSweepDepth {
				s.uncheck(filepath.Join(it.path, name), fmt.Sprintf("deeper than %d levels, not looked into", gitSweepDepth))
				continue
			}
			sub, err := unix.Openat(it.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				if err != unix.ENOTDIR && err != unix.ELOOP && err != unix.ENOENT {
					s.uncheck(filepath.Join(it.path, name), "could not be opened: "+err.Error())
				}
				continue
			}
			stack = append(stack, item{sub, filepath.Join(it.path, name), it.depth + 1})
		}
		unix.Close(it.fd)
	}
}

// uncheck records a directory the listing could not look into.
func (s *gitSweep) uncheck(p, why string) {
	s.unchecked = append(s.unchecked, p+": "+why)
	s.say("safeexec: %s %s; git hooks or config the command planted there would not be found: check it before running git there\n", p, why)
}

// readEntries lists dfd with raw getdents: every name, and those that are
// (or may be) directories.
func readEntries(dfd int, buf []byte) (map[string]bool, []string, error) {
	names := map[string]bool{}
	var dirs []string
	for {
		n, err := unix.ReadDirent(dfd, buf)
		if err != nil {
			return names, dirs, err
		}
		if n <= 0 {
			return names, dirs, nil
		}
		b := buf[:n]
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
			nm := string(name)
			if nm == "." || nm == ".." {
				continue
			}
			names[nm] = true
			if typ == unix.DT_DIR || typ == unix.DT_UNKNOWN {
				dirs = append(dirs, nm)
			}
		}
	}
}

// lstat returns the entry at p without following a link.
func lstatEntry(p string) (unix.Stat_t, bool) {
	var st unix.Stat_t
	err := unix.Lstat(p, &st)
	return st, err == nil
}

// fresh reports whether the run made or changed the entry at p: a
// directory made or moved in (a watch knows; without one, any change of
// its change time counts), anything else changed at or after the start.
func (s *gitSweep) fresh(p string, st *unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT == unix.S_IFDIR && s.made != nil {
		return s.made[p]
	}
	return !time.Unix(st.Ctim.Unix()).Before(s.since)
}

// freshBelow reports whether p, or a directory between anchor and p, was
// made or moved in by the run.
func (s *gitSweep) freshBelow(anchor, p string) bool {
	for q := p; q != anchor && pathWithin(anchor, q) && q != "/"; q = filepath.Dir(q) {
		if st, ok := lstatEntry(q); ok && s.fresh(q, &st) {
			return true
		}
	}
	return false
}

// judgeGitDir judges the candidate git directory g.
func (s *gitSweep) judgeGitDir(g string, whole bool) {
	if s.skip[g] {
		return
	}
	level := 1
	if whole {
		level = 2
	}
	if s.judged[g] >= level {
		return
	}
	s.judged[g] = level
	for _, n := range []string{"objects", "refs", "commondir"} {
		if st, ok := lstatEntry(filepath.Join(g, n)); ok && s.fresh(filepath.Join(g, n), &st) {
			whole = true
		}
	}
	var hooksPaths []string
	for _, n := range []string{"config", "config.worktree"} {
		for _, e := range s.judgeConfig(filepath.Join(g, n), whole, 0) {
			if e.Key == "core.hookspath" && e.HasValue && e.Value != "" {
				hooksPaths = append(hooksPaths, e.Value)
			}
		}
	}
	s.judgeHooks(filepath.Join(g, "hooks"), whole || s.freshBelow(g, filepath.Join(g, "hooks")))
	if !whole {
		for _, n := range []string{"objects/info/alternates", "objects/info/http-alternates"} {
			p := filepath.Join(g, n)
			if st, ok := lstatEntry(p); ok && s.fresh(p, &st) {
				s.take(p, "which makes git read objects from another repository")
			}
		}
	}
	// hooksPath values anchored here: absolute ones, and relative ones
	// of a bare repository (worktrees anchor theirs: judgeWorktree).
	for _, h := range hooksPaths {
		h = s.expandHome(h)
		switch {
		case filepath.IsAbs(h):
			s.judgeHooksAt(h, whole)
		case s.bare(g):
			s.judgeHooksAt(filepath.Join(g, h), whole || s.freshBelow(g, filepath.Join(g, h)))
		}
	}
	if c := gitPointer(filepath.Join(g, "commondir"), g, ""); c != "" {
		s.follow(c)
	}
}

// follow judges the git directory a pointer leads to, if runs can write
// there: inside the roots by its own changes (where it lies does not
// change what git reads from it), in the cache whole (nothing sweeps the
// cache, and a run may have filled it).
func (s *gitSweep) follow(target string) {
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return
	}
	switch {
	case s.rootOf(real, false) != "":
		s.judgeGitDir(real, false)
	case s.inReach(real):
		s.judgeGitDir(real, true)
	}
}

// bare reports whether g is a bare repository (no worktree to anchor a
// relative hooks path): its config says so, or it is not a .git.
func (s *gitSweep) bare(g string) bool {
	return filepath.Base(g) != ".git"
}

// judgeHooksAt judges a hooks directory named by a hooks path, when runs
// can write there.
func (s *gitSweep) judgeHooksAt(h string, whole bool) {
	h = filepath.Clean(h)
	switch {
	case s.rootOf(h, false) != "":
		s.judgeHooks(h, whole || s.freshBelow(s.rootOf(h, false), h))
	case s.inReach(h):
		s.judgeHooks(h, true)
	}
}

// judgeHooks takes away what git would run from the hooks directory h
// that the run made or changed (everything runnable when whole).
func (s *gitSweep) judgeHooks(h string, whole bool) {
	st, ok := lstatEntry(h)
	if !ok {
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if whole || s.fresh(h, &st) {
			s.take(h, "in place of a hooks directory")
		}
		return
	}
	ents, err := readDirNoFollow(h)
	if err != nil {
		s.uncheck(h, "could not be listed")
		return
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, ".sample") {
			continue
		}
		p := filepath.Join(h, name)
		est, ok := lstatEntry(p)
		if !ok || !hookRunnable(&est) {
			continue
		}
		if !whole && !s.fresh(p, &est) {
			continue
		}
		if whole && s.templateHook(name, p, &est) {
			continue
		}
		s.take(p, "a hook git would run on the host")
	}
}

// hookRunnable: git runs an executable file, or what a link names.
func hookRunnable(st *unix.Stat_t) bool {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return true
	case unix.S_IFREG:
		return st.Mode&0o111 != 0
	}
	return false
}

// judgeConfig judges a config file (and what it includes) and returns its
// entries when it stays. whole: judge it even if the run did not change it.
func (s *gitSweep) judgeConfig(p string, whole bool, depth int) []gitconf.Entry {
	if s.configs[p] || depth > 8 {
		return nil
	}
	s.configs[p] = true
	st, ok := lstatEntry(p)
	if !ok {
		return nil
	}
	judge := whole || s.fresh(p, &st)
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		if judge {
			s.take(p, "in place of a git config (git follows it)")
		}
		return nil
	}
	if st.Size > maxConfigSize {
		if judge {
			s.take(p, "a git config too large to judge")
		}
		return nil
	}
	data, err := readNoFollow(p, maxConfigSize)
	if err != nil {
		if judge {
			s.take(p, "a git config that could not be read ("+err.Error()+")")
		}
		return nil
	}
	entries, err := s.parseConfig(data)
	if judge {
		if err != nil {
			s.take(p, "a git config git cannot read ("+err.Error()+")")
			return nil
		}
		if keys := runKeys(entries); len(keys) > 0 {
			s.take(p, "a git config setting "+strings.Join(keys, ", ")+" (git on the host would run a program, or read hooks or config, from what it names)")
			return nil
		}
	}
	// Kept: what it includes is judged on its own.
	for _, e := range entries {
		section, _, name := gitconf.Split(e.Key)
		if name != "path" || !(e.Key == "include.path" || section == "includeif") || !e.HasValue || e.Value == "" {
			continue
		}
		inc := s.expandHome(e.Value)
		if !filepath.IsAbs(inc) {
			inc = filepath.Join(filepath.Dir(p), inc)
		}
		inc = filepath.Clean(inc)
		switch {
		case s.rootOf(inc, false) != "":
			s.judgeConfig(inc, judge, depth+1)
		case s.inReach(inc):
			s.judgeConfig(inc, true, depth+1)
		}
	}
	return entries
}

func (s *gitSweep) expandHome(v string) string { return expandHome(v, s.home) }

// parseConfig reads config text as git does (parseGitConfigData).
func (s *gitSweep) parseConfig(data []byte) ([]gitconf.Entry, error) {
	if s.git == "" {
		s.git = findHostGit(func(p string) bool { return s.rootOf(p, true) != "" })
	}
	return parseGitConfigData(s.git, data)
}

// parseGitConfigData reads config text as git does: by the host's git
// (git, "-" for none) when there is one, else by gitconf. A file that
// cannot hold a running key or an include (gitconf.Suspect) is not parsed
// at all.
func parseGitConfigData(git string, data []byte) ([]gitconf.Entry, error) {
	if !gitconf.Suspect(data) {
		return nil, nil
	}
	if git == "" || git == "-" {
		return gitconf.Parse(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, git, "config", "--no-includes", "--file", "-", "--list", "--null")
	c.Stdin = bytes.NewReader(data)
	c.Dir = "/"
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES=/", "LC_ALL=C"}
	var errb bytes.Buffer
	c.Stderr = &errb
	out, err := c.Output()
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s", strings.TrimPrefix(msg, "fatal: "))
	}
	return gitconf.ParseList(out), nil
}

// runKeys returns the keys of entries that make git run a program.
func runKeys(entries []gitconf.Entry) []string {
	var keys []string
	for _, e := range entries {
		if gitconf.Runs(e) && !slices.Contains(keys, e.Key) {
			keys = append(keys, e.Key)
		}
	}
	return keys
}

// gitLocations are where the host's git is looked for first.
var gitLocations = []string{"/usr/bin/git", "/bin/git", "/usr/local/bin/git"}

// findHostGit returns the host's git, the one that would read a config
// later: the first of gitLocations, else git in safeexec's PATH, never
// one in a directory runs can write to (writable says which): it would run
// what a command put there. "-" when there is none.
func findHostGit(writable func(string) bool) string {
	cands := slices.Clone(gitLocations)
	if p, err := exec.LookPath("git"); err == nil {
		cands = append(cands, p)
	}
	for _, c := range cands {
		real, err := filepath.EvalSymlinks(c)
		if err != nil || !filepath.IsAbs(real) {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		if writable(real) {
			continue
		}
		return real
	}
	return "-"
}

// judgeWorktree judges a directory holding a .git: the git directory it
// leads to, and the hooks directories relative hooks paths name in it.
func (s *gitSweep) judgeWorktree(w string) {
	if s.rootGit[w] {
		return // the backend protected this root's .git and hooks paths
	}
	dotgit := filepath.Join(w, ".git")
	st, ok := lstatEntry(dotgit)
	if !ok {
		return
	}
	fresh := s.fresh(dotgit, &st)
	var g string
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		g = dotgit
	case unix.S_IFLNK:
		g = dotgit
	case unix.S_IFREG:
		g = gitPointer(dotgit, w, "gitdir:")
	}
	if g == "" {
		return
	}
	real, err := filepath.EvalSymlinks(g)
	if err != nil {
		return
	}
	s.follow(real)
	// The hooks paths git would use here, relative to the worktree: all
	// of their hooks are judged when the .git that ties them to a git
	// directory is new (or, listing, may be).
	var rels []string
	cfgs := []string{filepath.Join(real, "config"), filepath.Join(real, "config.worktree")}
	if c := gitPointer(filepath.Join(real, "commondir"), real, ""); c != "" {
		cfgs = append(cfgs, filepath.Join(c, "config"))
	}
	for _, c := range cfgs {
		for _, e := range s.readConfigEntries(c) {
			if e.Key == "core.hookspath" && e.HasValue {
				rels = append(rels, e.Value)
			}
		}
	}
	rels = append(rels, s.hostConfig().hooksPaths...)
	for _, h := range rels {
		h = s.expandHome(h)
		if h == "" || filepath.IsAbs(h) {
			continue // absolute: judged with the git directory, or the host's own
		}
		p := filepath.Join(w, h)
		s.judgeHooksAt(p, fresh || s.freshBelow(w, p))
	}
}

// readConfigEntries reads a config file that stays (judged or the
// host's) for what it says, with gitconf's parser, never through a link.
func (s *gitSweep) readConfigEntries(p string) []gitconf.Entry {
	data, err := readNoFollow(p, maxConfigSize)
	if err != nil {
		return nil
	}
	es, _ := gitconf.Parse(data)
	return es
}

// take moves p into the quarantine and reports it.
func (s *gitSweep) take(p, what string) {
	if slices.Contains(s.taken, p) {
		return
	}
	dfd := openNoFollow(filepath.Dir(p))
	if dfd < 0 {
		s.unchecked = append(s.unchecked, p+": could not be taken away")
		s.say("safeexec: the command left %s, %s, and it could not be moved away: check it before running git there\n", p, what)
		return
	}
	defer unix.Close(dfd)
	dst, err := s.q.take(dfd, filepath.Base(p), p)
	s.taken = append(s.taken, p)
	switch {
	case err != nil:
		s.unchecked = append(s.unchecked, p+": could not be taken away: "+err.Error())
		s.say("safeexec: the command left %s, %s, and it could not be moved away (%v): check it before running git there\n", p, what, err)
	case dst == "":
		s.say("safeexec: the command left %s, %s; removed it\n", p, what)
	default:
		s.say("safeexec: the command left %s, %s; moved it to %s\n", p, what, dst)
	}
}

func (s *gitSweep) say(format string, args ...any) {
	if s.w != nil {
		fmt.Fprintf(s.w, format, args...)
	}
}

// readNoFollow reads a regular file of at most limit bytes, refusing a
// link and never blocking on a FIFO.
func readNoFollow(p string, limit int64) ([]byte, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
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

// templateHook reports whether the hook p (named name) is what git init
// copied from one of the host's template directories: the same mode and
// content. A new repository made during the run gets the user's template
// hooks, which are the user's own.
func (s *gitSweep) templateHook(name, p string, st *unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	var data []byte
	for _, t := range s.hostConfig().templates {
		tp := filepath.Join(t, "hooks", name)
		tst, ok := lstatEntry(tp)
		if !ok || tst.Mode&unix.S_IFMT != unix.S_IFREG || tst.Mode&0o111 != st.Mode&0o111 || tst.Size != st.Size {
			continue
		}
		if data == nil {
			var err error
			if data, err = readNoFollow(p, maxConfigSize); err != nil {
				return false
			}
		}
		if tdata, err := os.ReadFile(tp); err == nil && bytes.Equal(tdata, data) {
			return true
		}
	}
	return false
}

// hostConfig reads the host's git configuration once per sweep.
func (s *gitSweep) hostConfig() *hostGitConfig {
	if s.hostCfg == nil {
		s.hostCfg = readHostGitConfig(s.home, func(p string) bool { return s.rootOf(p, true) == "" })
	}
	return s.hostCfg
}

func init() {
	// doctor says how the look after a run works here, for both Linux
	// backends (this file's init runs after bwrap_linux.go's, which
	// registers bwrap's own deep check).
	for _, name := range []string{"bwrap", "landlock"} {
		prev := deepChecks[name]
		deepChecks[name] = func(b Backend, r *Report) {
			if prev != nil {
				prev(b, r)
			}
			r.Checks = append(r.Checks, gitSweepCheck())
		}
	}
}

// gitSweepCheck says whether the sweep can learn what changed from
// fanotify here, or lists the roots.
func gitSweepCheck() Check {
	dir, err := os.Getwd()
	if err != nil {
		dir = os.TempDir()
	}
	fw, err := newFanWatch([]string{dir})
	if err == nil {
		fw.stop()
		fw.close()
		return Check{Name: "git sweep", OK: true,
			Detail: "after a run, git directories are found from what changed (fanotify), whatever the project's size"}
	}
	return Check{Name: "git sweep", OK: false,
		Detail: fmt.Sprintf("no fanotify filesystem marks here (%v): after a run the writable roots are listed, up to %d entries, so the cost grows with the project, and a hooks directory whose change time moved is judged whole", err, gitSweepBudget),
		Fix:    "run safeexec as root on Linux ≥ 5.9 (filesystem marks need CAP_SYS_ADMIN) for a look whose cost follows what changed"}
}
