package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// This file turns a Policy into a bwrap argument list. It is portable on
// purpose: it touches the host only through bwrapHost, so the golden tests
// run on every OS against a fake file system.

// bwInsideID is the uid and gid a command runs as when safeexec itself runs as
// root: an unprivileged id inside a user namespace.
const bwInsideID = 1000

// bwrapHost is what bwrapArgs needs to know about the host.
type bwrapHost struct {
	UID, GID int
	// FS answers Lstat and Readlink for host paths.
	FS hostFS
}

// hostFS is the part of the host file system bwrapArgs looks at.
type hostFS interface {
	// Lstat returns the type bits of path, not following a final symlink.
	Lstat(path string) (fs.FileMode, error)
	// Readlink returns a symlink's target.
	Readlink(path string) (string, error)
}

// dirLister is a hostFS that can also list a directory with the type of
// each entry (not following links, as Lstat): one listing answers for every
// name in it when the deny lists ask about many names in one directory
// (the home directory, ~/.config, the working directory).
type dirLister interface {
	ListDir(dir string) (map[string]fs.FileMode, error)
}

// listAfter is how many names of one directory are looked up one by one
// before the directory is listed instead.
const listAfter = 4

// bwrapFDs are the descriptor numbers bwrap reads and writes, as seen by
// bwrap (3 + the position in its ExtraFiles). Zero means not used.
type bwrapFDs struct {
	Status  int // --json-status-fd
	Seccomp int // --seccomp
	Sync    int // --sync-fd
	Block   int // --block-fd
}

// watchPath is a protected or masked path that did not exist when the run
// was planned and lies inside a writable root: nothing is mounted there
// (a mount needs something to sit on, and a placeholder on the host would
// show up in every "git status"), so the command can create it, and
// whatever it created is taken away once the sandbox is gone.
type watchPath struct {
	// Root is the writable root (resolved) that holds the path.
	Root string
	// Rel is the path below Root, slash-separated. Every component but
	// the last may be missing too (~/.config for ~/.config/gh).
	Rel string
}

// Path is the host path.
func (w watchPath) Path() string { return path.Join(w.Root, w.Rel) }

// bwStrictSystem are the read-only system directories strict mode shows.
var bwStrictSystem = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// agentSocketVars name sockets of agents and session buses on the host. They are
// removed from the command's environment unless the socket lies in a
// writable root (which is how a config names one on purpose).
var agentSocketVars = []string{
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
	"XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "DISPLAY", "XAUTHORITY",
	"TMUX", "TMUX_PANE", "STY", "KITTY_LISTEN_ON", "KITTY_WINDOW_ID",
	"DOCKER_HOST", "CONTAINER_HOST", "PODMAN_HOST",
	"SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE",
}

// bwPrivateTmp is where the command's private, writable $TMPDIR lives.
const bwPrivateTmp = "/tmp"

// bwHostTempDirs are host directories that the private tmpfs replaces: a
// writable root naming one of them means "the command's $TMPDIR".
var bwHostTempDirs = []string{"/tmp", "/var/tmp"}

// bwrapPlan is bwrapArgs' result.
type bwrapPlan struct {
	// Args are bwrap's arguments, the command included.
	Args []string
	// Watch are the missing protected and masked paths inside writable
	// roots, to be checked once the sandbox is gone.
	Watch []watchPath
	// Protected are the protected files inside writable roots (bound
	// read-only onto themselves), whose directories are watched for a
	// command trying to replace them.
	Protected []string
	// Env is the command's environment.
	Env []string
}

// bwrapArgs plans bwrap's arguments for running argv confined by p. It
// fails when the policy cannot be expressed, never by weakening it.
func bwrapArgs(p *Policy, h *bwrapHost, fds bwrapFDs, argv, env []string) (*bwrapPlan, error) {
	if p == nil {
		return nil, errors.New("bwrap: no policy")
	}
	if len(argv) == 0 {
		return nil, errors.New("bwrap: empty command")
	}
	mode := p.Mode
	switch mode {
	case "":
		mode = Compat
	case Strict, Compat, Permissive:
	default:
		return nil, fmt.Errorf("bwrap: unknown mode %q", p.Mode)
	}
	if !path.IsAbs(p.Cwd) {
		return nil, fmt.Errorf("bwrap: working directory %q is not absolute", p.Cwd)
	}
	for _, list := range [][]string{p.WritableRoots, p.DenyRead, p.ReadOnlyRoots} {
		for _, e := range list {
			if !path.IsAbs(e) {
				return nil, fmt.Errorf("bwrap: policy path %q is not absolute", e)
			}
		}
	}
	for _, d := range []struct{ what, p string }{{"cache directory", p.CacheDir}, {"temporary directory", p.TempDir}, {"private directory", p.Private}} {
		if d.p != "" && !path.IsAbs(d.p) {
			return nil, fmt.Errorf("bwrap: %s %q is not absolute", d.what, d.p)
		}
	}
	b := &bwBuilder{h: h, mode: mode}

	args := []string{
		"--die-with-parent", "--new-session",
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
	}
	if !p.Network.ownNetns {
		// Otherwise bwrap already runs in the network namespace made for
		// this sandbox, where the proxy listens.
		args = append(args, "--unshare-net")
	}
	args = append(args, "--unshare-cgroup-try", "--disable-userns")
	if h.UID == 0 {
		args = append(args, "--uid", strconv.Itoa(bwInsideID), "--gid", strconv.Itoa(bwInsideID))
	}
	args = append(args, "--cap-drop", "ALL")

	// The system view.
	switch mode {
	case Compat:
		args = append(args, "--ro-bind", "/", "/")
	case Permissive:
		args = append(args, "--bind", "/", "/")
	case Strict:
		for _, d := range bwStrictSystem {
			args = append(args, b.systemBind(d)...)
		}
	}
	args = append(args, "--proc", "/proc", "--dev", "/dev")
	// The project's own /tmp (or a private one for this run only), no
	// host runtime sockets.
	hidden := []string{bwPrivateTmp}
	if p.TempDir != "" {
		if b.kind(p.TempDir) != fs.ModeDir {
			return nil, fmt.Errorf("bwrap: temporary directory %s does not exist", p.TempDir)
		}
		args = append(args, "--bind", p.TempDir, bwPrivateTmp)
	} else {
		args = append(args, "--perms", "1777", "--tmpfs", bwPrivateTmp)
	}
	if mode != Strict {
		for _, d := range []string{"/var/tmp", "/run", "/var/run"} {
			if b.kind(d) == fs.ModeDir {
				args = append(args, "--tmpfs", d)
				hidden = append(hidden, d)
			}
		}
		// What the user's shell finds in those places must still be
		// there: a home directory or tools under the host's /tmp (CI
		// checkouts, test harnesses).
		args = append(args, b.reshow(env, hidden, p)...)
	}
	if h.UID == 0 {
		// The command's uid is host root without capabilities: /proc/sys
		// and /proc/sysrq-trigger, owned by root, would be writable
		// (kernel.core_pattern, a reboot). bwrap covers only /proc/irq and
		// /proc/bus itself.
		args = append(args, "--ro-bind", "/proc/sys", "/proc/sys",
			"--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger")
		home, _ := envValue(env, "HOME")
		dirs := append([]string{p.Cwd, p.CacheDir}, p.WritableRoots...)
		for _, s := range rootSecretsFor(home, dirs...) {
			args = append(args, b.mask(s)...)
		}
	}

	// Writable roots, and read-only ones shown even where the mode's view
	// (the private /tmp, strict's minimal system) hides them.
	roots := b.writableRoots(p)
	var roRoots []string
	for _, r := range p.ReadOnlyRoots {
		if rr, ok := b.resolve(r); ok && b.kind(rr) == fs.ModeDir && rr != "/" {
			roRoots = append(roRoots, rr)
		}
	}
	if cwd, ok := b.resolve(p.Cwd); !ok || b.kind(cwd) != fs.ModeDir {
		return nil, fmt.Errorf("bwrap: working directory %s does not exist", p.Cwd)
	} else if mode == Strict && !bwVisibleInStrict(cwd, append(roots, roRoots...), p.CacheDir) {
		return nil, fmt.Errorf("bwrap: strict mode shows only the first writable root, and the working directory %s is not inside it", p.Cwd)
	}
	for _, r := range roRoots {
		args = append(args, "--ro-bind", r, r)
	}
	for _, r := range roots {
		if mode != Permissive {
			args = append(args, "--bind", r, r)
		}
	}
	if p.Private != "" && b.kind(p.Private) == fs.ModeDir {
		// Every project's caches and temporary files: only this run's
		// own are shown again below.
		args = append(args, "--perms", "0555", "--tmpfs", p.Private)
	}
	if p.CacheDir != "" {
		if b.kind(p.CacheDir) != fs.ModeDir {
			return nil, fmt.Errorf("bwrap: cache directory %s does not exist", p.CacheDir)
		}
		if mode != Permissive || p.Private != "" {
			args = append(args, "--bind", p.CacheDir, p.CacheDir)
		}
	}
	if p.Network.Enabled && !p.Network.ownNetns && !p.Network.joinNetns {
		if p.Network.ProxyDir == "" || !path.IsAbs(p.Network.ProxyDir) {
			return nil, fmt.Errorf("bwrap: network enabled but proxy directory %q is not an absolute path", p.Network.ProxyDir)
		}
		if len(p.Network.Bridge) == 0 {
			return nil, errors.New("bwrap: network enabled but no bridge command")
		}
		if b.kind(p.Network.ProxyDir) != fs.ModeDir {
			return nil, fmt.Errorf("bwrap: proxy directory %s does not exist", p.Network.ProxyDir)
		}
		args = append(args, "--ro-bind", p.Network.ProxyDir, p.Network.ProxyDir)
	}
	// The bridge and the tools' cache helper (GOCACHEPROG) are safeexec
	// itself, which may live where the sandbox shows something else (the
	// project's /tmp, a masked directory): bind the binary itself so that
	// it runs whatever is mounted.
	var exes []string
	if len(p.Network.Bridge) > 0 && path.IsAbs(p.Network.Bridge[0]) {
		exes = append(exes, p.Network.Bridge[0])
	}
	if p.SafeexecPath != "" && path.IsAbs(p.SafeexecPath) && b.kind(p.SafeexecPath) == 0 && !slices.Contains(exes, p.SafeexecPath) {
		exes = append(exes, p.SafeexecPath)
	}
	for _, exe := range exes {
		args = append(args, "--ro-bind", exe, exe)
	}

	// Protected paths inside the writable (or, when permissive, all) roots.
	var protectRoots []string
	for _, r := range roots {
		if b.kind(r) == fs.ModeDir {
			protectRoots = append(protectRoots, r)
		}
	}
	if mode == Permissive {
		protectRoots = append([]string{"/"}, protectRoots...)
	}
	dw := b.denyWrite(p, protectRoots, mode == Permissive)
	args = append(args, dw...)

	// Masks come last so that nothing bound above can uncover them. A
	// missing masked path is watched where the command could create it.
	b.writable = protectRoots
	if p.CacheDir != "" {
		b.writable = append(b.writable, p.CacheDir)
	}
	for _, d := range p.DenyRead {
		args = append(args, b.denyRead(d)...)
	}

	sockRoots := roots
	if p.CacheDir != "" {
		sockRoots = append(sockRoots, p.CacheDir)
	}
	args = append(args, "--chdir", p.Cwd)
	if fds.Status > 0 {
		args = append(args, "--json-status-fd", strconv.Itoa(fds.Status))
	}
	if fds.Sync > 0 {
		args = append(args, "--sync-fd", strconv.Itoa(fds.Sync))
	}
	if fds.Block > 0 {
		args = append(args, "--block-fd", strconv.Itoa(fds.Block))
	}
	if fds.Seccomp > 0 {
		args = append(args, "--seccomp", strconv.Itoa(fds.Seccomp))
	}
	args = append(args, "--")
	if len(p.Network.Bridge) > 0 {
		args = append(args, p.Network.Bridge...)
		args = append(args, "--")
	}
	protected := b.protectedFiles(args, protectRoots, mode == Permissive)
	args = append(args, argv...)
	return &bwrapPlan{Args: args, Watch: b.watch, Protected: protected, Env: bwrapEnv(env, sockRoots)}, nil
}

// protectedFiles lists the files that args bind read-only onto themselves
// inside a writable root.
func (b *bwBuilder) protectedFiles(args, roots []string, permissive bool) []string {
	var out []string
	for i := 0; i+2 < len(args) && args[i] != "--"; i++ {
		if args[i] != "--ro-bind" || args[i+1] != args[i+2] {
			continue
		}
		p := args[i+1]
		if k := b.kind(p); k == fs.ModeDir || k == fs.ModeIrregular {
			continue
		}
		for _, r := range roots {
			if r == "/" && !permissive {
				continue
			}
			if pathWithin(r, p) && r != p {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

type bwBuilder struct {
	h        *bwrapHost
	mode     Mode
	writable []string // where a missing masked path is watched
	watch    []watchPath
	watched  map[string]bool        // by host path
	stats    map[string]fs.FileMode // lstat results, ModeIrregular: missing
	// asked counts lookups per directory; listed holds the listings made
	// (nil for a directory that could not be listed).
	asked  map[string]int
	listed map[string]map[string]fs.FileMode
}

// lstat asks the host once per path and plan: resolving the deny lists
// walks the same prefixes (the home directory, ~/.config) many times.
func (b *bwBuilder) lstat(p string) (fs.FileMode, bool) {
	if b.stats == nil {
		b.stats = make(map[string]fs.FileMode, 256)
	}
	if m, ok := b.stats[p]; ok {
		return m, m != fs.ModeIrregular
	}
	if m, ok, known := b.fromListing(p); known {
		if !ok {
			m = fs.ModeIrregular
		}
		b.stats[p] = m
		return m, ok
	}
	m, err := b.h.FS.Lstat(p)
	if err != nil {
		b.stats[p] = fs.ModeIrregular
		return 0, false
	}
	b.stats[p] = m.Type()
	return m.Type(), true
}

// fromListing answers an lstat of p from a listing of its directory, made
// once that directory has been asked about listAfter times. known is false
// when there is no listing to answer from.
func (b *bwBuilder) fromListing(p string) (m fs.FileMode, ok, known bool) {
	l, can := b.h.FS.(dirLister)
	if !can || p == "/" {
		return 0, false, false
	}
	dir, name := path.Split(p)
	dir = path.Clean(dir)
	ents, listed := b.listed[dir]
	if !listed {
		if b.asked == nil {
			b.asked, b.listed = map[string]int{}, map[string]map[string]fs.FileMode{}
		}
		b.asked[dir]++
		if b.asked[dir] < listAfter {
			return 0, false, false
		}
		ents, _ = l.ListDir(dir) // nil when it cannot be listed: lstat then
		b.listed[dir] = ents
	}
	if ents == nil {
		return 0, false, false
	}
	m, ok = ents[name]
	return m, ok, true
}

func (b *bwBuilder) kind(p string) fs.FileMode {
	m, ok := b.lstat(p)
	if !ok {
		return fs.ModeIrregular // "missing" for our purposes
	}
	return m
}

// systemBind shows one strict-mode system directory, keeping symlinks
// (/bin -> usr/bin) as symlinks.
func (b *bwBuilder) systemBind(d string) []string {
	switch b.kind(d) {
	case fs.ModeDir:
		return []string{"--ro-bind", d, d}
	case fs.ModeSymlink:
		t, err := b.h.FS.Readlink(d)
		if err != nil {
			return nil
		}
		return []string{"--symlink", t, d}
	}
	return nil
}

// resolve follows every symlink in p (which must be absolute). It returns
// the resolved path and whether it exists; when it does not, the result is
// the resolved existing prefix joined with the rest.
func (b *bwBuilder) resolve(p string) (string, bool) {
	p = path.Clean("/" + p)
	for range 40 {
		// Each prefix of the clean path p, component by component:
		// p[:end] for every end at a slash or at the end of p.
		restart := false
		for end := 1; end <= len(p) && p != "/"; end++ {
			if end < len(p) && p[end] != '/' {
				continue
			}
			next := p[:end]
			m, ok := b.lstat(next)
			if !ok {
				return p, false
			}
			if m == fs.ModeSymlink {
				t, err := b.h.FS.Readlink(next)
				if err != nil {
					return p, false
				}
				if !path.IsAbs(t) {
					t = path.Join(path.Dir(next), t)
				}
				p = path.Join(t, p[end:])
				restart = true
				break
			}
		}
		if !restart {
			return p, true
		}
	}
	return p, false // a symlink loop: treat as missing
}

// within reports whether p is root or below it.
func pathWithin(root, p string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

func bwIsHostTemp(p string) bool {
	for _, t := range bwHostTempDirs {
		if p == t {
			return true
		}
	}
	return false
}

// writableRoots returns the resolved, existing, de-duplicated roots that are
// bound writable. A root naming the host's temporary directory is served by
// the private tmpfs instead.
func (b *bwBuilder) writableRoots(p *Policy) []string {
	var out []string
	in := p.WritableRoots
	if b.mode == Strict && len(in) > 1 {
		in = in[:1]
	}
	for _, r := range in {
		// A root may also be a single existing file (an agent's state
		// file in the host's /tmp, say): it is bound on its own.
		rr, ok := b.resolve(r)
		if k := b.kind(rr); !ok || (k != fs.ModeDir && k != 0) || bwIsHostTemp(rr) || rr == "/" {
			continue
		}
		dup := false
		for _, o := range out {
			if o == rr {
				dup = true
			}
		}
		if !dup {
			out = append(out, rr)
		}
	}
	// Parents before children, so a nested root is bound on top.
	sort.SliceStable(out, func(i, j int) bool { return pathDepth(out[i]) < pathDepth(out[j]) })
	return out
}

// bwVisibleInStrict reports whether strict mode shows p.
func bwVisibleInStrict(p string, roots []string, cache string) bool {
	for _, r := range append(append([]string{bwPrivateTmp}, bwStrictSystem...), roots...) {
		if pathWithin(r, p) {
			return true
		}
	}
	return cache != "" && pathWithin(cache, p)
}

func pathDepth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// mask hides an existing path: a directory behind an empty tmpfs, anything
// else behind /dev/null.
func (b *bwBuilder) mask(p string) []string {
	switch k := b.kind(p); {
	case k == fs.ModeDir:
		return []string{"--perms", "0555", "--tmpfs", p}
	case k == fs.ModeIrregular, k == fs.ModeSymlink:
		return nil
	default:
		return []string{"--ro-bind", "/dev/null", p}
	}
}

// denyRead masks one deny_read entry: the path its symlinks lead to, so a
// credential path that is a link hides its target too. A missing entry is
// not mounted on: outside the writable roots the command cannot create it
// (the file system is read-only there); inside one it is watched.
func (b *bwBuilder) denyRead(d string) []string {
	real, ok := b.resolve(d)
	if ok {
		return b.mask(real)
	}
	b.watchIn(b.writable, real)
	return nil
}

// watchIn watches the missing path p if it lies below one of roots (the
// deepest one).
func (b *bwBuilder) watchIn(roots []string, p string) {
	best := ""
	for _, r := range roots {
		if pathWithin(r, p) && p != r && (best == "" || len(r) > len(best)) {
			best = r
		}
	}
	if best != "" {
		b.addWatch(best, strings.TrimPrefix(strings.TrimPrefix(p, best), "/"))
	}
}

func (b *bwBuilder) addWatch(root, rel string) {
	w := watchPath{Root: root, Rel: rel}
	if b.watched == nil {
		b.watched = map[string]bool{}
	}
	if b.watched[w.Path()] {
		return
	}
	b.watched[w.Path()] = true
	b.watch = append(b.watch, w)
}

// denyWrite makes the protected paths read-only inside the writable roots.
// An existing path is bound read-only onto itself; each directory on the way
// to it (".git" for ".git/hooks") is bound onto itself too, which makes it a
// mount point: it can be neither renamed nor removed, so "mv .git .g" and a
// rebuilt .git/hooks cannot plant a hook. A missing last component is
// watched: what the command creates there does not survive the run.
func (b *bwBuilder) denyWrite(p *Policy, roots []string, everywhere bool) []string {
	type op struct {
		path string
		args []string
	}
	ops := map[string]op{}
	add := func(pth string, args ...string) {
		if prev, ok := ops[pth]; ok && prev.args[0] == "--ro-bind" {
			return // read-only wins over a self-bind
		}
		ops[pth] = op{pth, args}
	}
	var protect func(root, rel string, hops int)
	protect = func(root, rel string, hops int) {
		if hops > 8 {
			return
		}
		parts := strings.Split(rel, "/")
		cur := root
		for i, c := range parts {
			if c == "" || c == "." {
				continue
			}
			if c == ".." {
				return
			}
			next := path.Join(cur, c)
			last := i == len(parts)-1
			switch k := b.kind(next); k {
			case fs.ModeDir:
				if last {
					add(next, "--ro-bind", next, next)
					return
				}
				if !everywhere && !slices.Contains(roots, next) {
					add(next, "--bind", next, next)
				}
				cur = next
			case fs.ModeSymlink:
				// The name itself is a link: protect what it points to
				// when that is writable.
				real, _ := b.resolve(next)
				rest := strings.Join(parts[i+1:], "/")
				for _, r := range roots {
					if pathWithin(r, real) {
						if rest == "" {
							rel2 := strings.TrimPrefix(strings.TrimPrefix(real, r), "/")
							if rel2 == "" {
								return
							}
							protect(r, rel2, hops+1)
						} else {
							rel2 := strings.TrimPrefix(strings.TrimPrefix(path.Join(real, rest), r), "/")
							protect(r, rel2, hops+1)
						}
						return
					}
				}
				return
			case fs.ModeIrregular: // missing
				// Without .git there is nothing to protect yet: a
				// repository the command creates is checked by the git
				// sweep after the run (gitsweep_linux.go). Anything
				// else (a new .claude/settings.json) is watched whole.
				if last || c != ".git" {
					b.addWatch(root, strings.TrimPrefix(strings.TrimPrefix(path.Join(root, rel), root), "/"))
				}
				return
			default:
				// A file: the protected path itself, or a ".git" file
				// pointing at a git directory, which must not be
				// redirected.
				add(next, "--ro-bind", next, next)
				return
			}
		}
	}
	entries := p.DenyWrite
	if p.git != nil {
		entries = append(slices.Clone(entries), p.git.Paths...)
	}
	for _, e := range entries {
		if e == "" {
			continue
		}
		if path.IsAbs(e) {
			real, _ := b.resolve(e)
			for _, r := range roots {
				if pathWithin(r, real) && real != r {
					protect(r, strings.TrimPrefix(strings.TrimPrefix(real, r), "/"), 0)
					break
				}
			}
			continue
		}
		for _, r := range roots {
			if r == "/" {
				continue // relative entries apply under writable roots only
			}
			protect(r, path.Clean(e), 0)
		}
	}
	// Parents first: a protected path must be mounted after the self-bind
	// of its directory, or the self-bind would cover it.
	list := make([]op, 0, len(ops))
	for _, o := range ops {
		list = append(list, o)
	}
	sort.Slice(list, func(i, j int) bool {
		if di, dj := pathDepth(list[i].path), pathDepth(list[j].path); di != dj {
			return di < dj
		}
		return list[i].path < list[j].path
	})
	var out []string
	for _, o := range list {
		out = append(out, o.args...)
	}
	return out
}

// reshow binds back, read-only, the home directory and the directories of
// $PATH when they lie in a directory the sandbox replaces (hidden: /tmp,
// /var/tmp, /run): the command must find the user's tools where the
// user's shell finds them. A $PATH entry named "bin" brings its parent
// (a toolchain such as /tmp/go/bin needs /tmp/go). Writable roots are
// bound anyway; the hidden directories themselves are never shown.
func (b *bwBuilder) reshow(env, hidden []string, p *Policy) []string {
	var want []string
	if h, ok := envValue(env, "HOME"); ok {
		want = append(want, h)
	}
	if v, ok := envValue(env, "PATH"); ok {
		for _, d := range strings.Split(v, ":") {
			if path.Base(d) == "bin" {
				d = path.Dir(d)
			}
			want = append(want, d)
		}
	}
	var args, shown []string
	for _, d := range want {
		if !path.IsAbs(d) {
			continue
		}
		real, ok := b.resolve(d)
		if !ok || b.kind(real) != fs.ModeDir {
			continue
		}
		in := false
		for _, h := range hidden {
			if pathWithin(h, real) && real != h {
				in = true
			}
		}
		for _, r := range append(b.writableRoots(p), shown...) {
			if pathWithin(r, real) {
				in = false
			}
		}
		if !in {
			continue
		}
		shown = append(shown, real)
		args = append(args, "--ro-bind", real, real)
	}
	return args
}

// bwrapEnv returns env as the command sees it inside the sandbox:
// $TMPDIR points at the private tmpfs, and agent sockets outside the
// writable roots are gone. A name given twice keeps its last value only,
// as os/exec does: getenv(3) inside would find the first, safeexec's own
// lookups (the command's path) the last.
func bwrapEnv(env []string, roots []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	out := make([]string, 0, len(env)+1)
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if last[k] != i {
			continue
		}
		switch k {
		case "TMPDIR", "TMP", "TEMP", "TEMPDIR":
			continue
		}
		if bwIsAgentVar(k) && !bwSocketInRoots(v, roots) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TMPDIR="+bwPrivateTmp)
}

func bwIsAgentVar(k string) bool {
	for _, a := range agentSocketVars {
		if a == k {
			return true
		}
	}
	return false
}

func bwSocketInRoots(v string, roots []string) bool {
	v = strings.TrimPrefix(v, "unix://")
	v = strings.TrimPrefix(v, "unix:path=")
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = v[:i]
	}
	if !path.IsAbs(v) {
		return false
	}
	v = path.Clean(v)
	for _, r := range roots {
		if pathWithin(r, v) {
			return true
		}
	}
	return false
}
