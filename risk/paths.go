package risk

import (
	"path"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/safeexec/safeexec/shell"
)

// pathKind is what a path is, for the classifier.
type pathKind int

const (
	pathFine pathKind = iota
	pathSensitive
	pathSystem
	pathDevice
	pathProtected
	pathOutside
	pathUnknown
)

// systemDirs are directories that belong to the operating system, per
// platform. Writing anything under them is risky.
var systemDirs = map[string][]string{
	"linux": {"/etc", "/usr", "/bin", "/sbin", "/boot", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/var",
		"/sys", "/proc", "/root", "/snap", "/srv", "/efi", "/nix", "/run", "/lost+found", "/selinux"},
	"darwin": {"/System", "/Library", "/usr", "/bin", "/sbin", "/etc", "/private/etc", "/private/var/db",
		"/private/var/root", "/var", "/Applications", "/opt", "/cores", "/dev", "/Volumes", "/nix", "/private/var/log"},
	"windows": {"c:/windows", "c:/program files", "c:/program files (x86)", "c:/programdata", "c:/system volume information",
		"c:/$recycle.bin", "c:/boot", "c:/recovery", "c:/bootmgr", "c:/pagefile.sys", "c:/hiberfil.sys"},
}

// builtinSecrets are credential files of the system itself, always
// sensitive whatever the configuration says.
var builtinSecrets = map[string][]string{
	"linux":   {"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key", "/root/.ssh", "/var/run/docker.sock", "/run/docker.sock", "/proc/1/environ", "/etc/security/opasswd"},
	"darwin":  {"/etc/sudoers", "/private/etc/sudoers", "/var/run/docker.sock", "/Library/Keychains", "/private/var/db/dslocal"},
	"windows": {"c:/windows/system32/config/sam", "c:/windows/system32/config/system", "c:/windows/system32/config/security", "c:/windows/ntds"},
}

// devOK are device paths that are always fine to write to.
var devOK = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
	"/dev/zero": true, "/dev/stdin": true, "/dev/random": true, "/dev/urandom": true, "/dev/full": true, "/dev/ptmx": true}

// env is the prepared form of a Context.
type env struct {
	c        *Context
	platform string
	home     string
	cwd      string
	roots    []string
	cred     *credentials
	protAbs  []string
	protRel  []string
	// protRelIdx maps each entry of protRel (in lower case where names
	// fold) to its indexes there, in order.
	protRelIdx map[string][]int
	system     []string
	// fold is set where file names are case-insensitive (macOS):
	// /ETC/hosts is /etc/hosts there.
	fold bool
	// lastDir remembers whether the last command directory asked about
	// holds a credential path (dirHolds).
	lastDir                  string
	lastDirHolds, lastDirSet bool
	// readScriptFn and writableFn are e.readScript and e.writable, made
	// once for the shell options (a pooled run keeps them: they are
	// bound to the env, not to a context).
	readScriptFn func(string) ([]byte, error)
	writableFn   func(string) bool
}

func newEnv(c *Context) *env {
	e := new(env)
	e.init(c)
	return e
}

// init prepares e, a zero env, for c.
func (e *env) init(c *Context) {
	e.c, e.platform = c, c.Platform
	if e.platform == "" {
		e.platform = runtime.GOOS
	}
	e.home = cleanAbs(c.Home)
	e.cwd = cleanAbs(c.Cwd)
	if allClean(c.WritableRoots) {
		e.roots = c.WritableRoots
	} else {
		for _, r := range c.WritableRoots {
			if r = cleanAbs(r); r != "" {
				e.roots = append(e.roots, r)
			}
		}
	}
	e.fold = e.platformKey() == "darwin"
	// The credential list is the caller's (configs' deny_read): the
	// classifier has none of its own, so it can never disagree with what
	// the sandbox masks (credpaths.go matches it).
	e.cred = e.credentialsFor(c.SensitivePaths)
	e.protAbs, e.protRel, e.protRelIdx = e.protectedFor(c.ProtectedPaths)
	e.system = systemDirs[e.platformKey()]
}

// protEntry is a prepared deny_write list: absolute entries expanded,
// relative ones (names under each writable root) cleaned.
type protEntry struct {
	key              credKey
	protAbs, protRel []string
	relIdx           map[string][]int
}

// protCache keeps the last prepared list, as credCache does.
var protCache atomic.Pointer[protEntry]

func (e *env) protectedFor(list []string) (abs, rel []string, relIdx map[string][]int) {
	key := credKey{list: list, home: e.home, platform: e.platformKey()}
	if pe := protCache.Load(); pe != nil && pe.key.same(key) {
		return pe.protAbs[:len(pe.protAbs):len(pe.protAbs)], pe.protRel[:len(pe.protRel):len(pe.protRel)], pe.relIdx
	}
	for _, p := range list {
		if strings.HasPrefix(p, "~") || path.IsAbs(p) || isWinAbs(p) {
			if a := e.expand(p); a != "" {
				abs = append(abs, a)
			}
		} else if p != "" {
			rel = append(rel, path.Clean(p))
		}
	}
	relIdx = make(map[string][]int, len(rel))
	for i, r := range rel {
		k := r
		if e.fold {
			k = strings.ToLower(k)
		}
		relIdx[k] = append(relIdx[k], i)
	}
	key.list = append([]string(nil), list...)
	protCache.Store(&protEntry{key: key, protAbs: abs, protRel: rel, relIdx: relIdx})
	return abs, rel, relIdx
}

// within is under, case-insensitively where file names are.
func (e *env) within(p, base string) bool {
	if under(p, base) {
		return true
	}
	return e.fold && len(p) >= len(base) && under(strings.ToLower(p), strings.ToLower(base))
}

// allClean reports whether every entry is an absolute path in clean form,
// so the slice can be used as it is.
func allClean(ps []string) bool {
	for _, p := range ps {
		if p == "" || p[0] != '/' || !isClean(p) {
			return false
		}
	}
	return true
}

func (e *env) platformKey() string {
	switch e.platform {
	case "darwin", "windows":
		return e.platform
	}
	return "linux"
}

func cleanAbs(p string) string {
	if p == "" {
		return ""
	}
	if p[0] == '/' && isClean(p) {
		return p
	}
	if isWinAbs(p) {
		return winNorm(p)
	}
	if !path.IsAbs(p) {
		return ""
	}
	return path.Clean(p)
}

// expand turns ~ and relative-to-home forms into absolute paths.
func (e *env) expand(p string) string {
	if p == "~" {
		return e.home
	}
	if strings.HasPrefix(p, "~/") {
		if e.home == "" {
			return ""
		}
		return path.Join(e.home, p[2:])
	}
	return cleanAbs(p)
}

// msysPath turns the drive paths of MSYS2 and Cygwin programs (Git for
// Windows' bash: /c/Users/me, /cygdrive/c/Users/me) into Windows ones.
func msysPath(p string) string {
	rest := p
	if strings.HasPrefix(rest, "/cygdrive/") {
		rest = rest[len("/cygdrive"):]
	}
	if len(rest) >= 2 && rest[0] == '/' && (rest[1] >= 'a' && rest[1] <= 'z' || rest[1] >= 'A' && rest[1] <= 'Z') && (len(rest) == 2 || rest[2] == '/') {
		return rest[1:2] + ":/" + strings.TrimPrefix(rest[2:], "/")
	}
	return p
}

func isWinAbs(p string) bool {
	return len(p) >= 3 && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// winNorm lower-cases a Windows path and uses forward slashes.
func winNorm(p string) string {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	c := path.Clean(p)
	return c
}

// under reports whether p is base or inside it.
func under(p, base string) bool {
	if base == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == base || (strings.HasPrefix(p, base) && len(p) > len(base) && p[len(base)] == '/')
}

func (e *env) inRoot(p string) (string, bool) {
	for _, r := range e.roots {
		if e.within(p, r) {
			return r, true
		}
	}
	return "", false
}

func (e *env) isSystem(p string) (string, bool) {
	if p == "/" {
		return "/", true
	}
	if isWinAbs(p) || strings.HasPrefix(p, "c:/") {
		w := winNorm(p)
		if len(w) <= 3 {
			return w, true // a drive root
		}
		for _, s := range systemDirs["windows"] {
			if e.within(w, s) {
				return s, true
			}
		}
		return "", false
	}
	for _, s := range e.system {
		if e.within(p, s) {
			return s, true
		}
	}
	return "", false
}

func (e *env) isProtected(p string) (string, bool) {
	for _, a := range e.protAbs {
		if e.within(p, a) {
			return a, true
		}
	}
	if len(e.protRel) == 0 {
		return "", false
	}
	check := func(r string) (string, bool) {
		if !e.within(p, r) || len(p) <= len(r) || (p[len(r)] != '/' && r != "/") {
			return "", false
		}
		rest := strings.TrimPrefix(p[len(r):], "/")
		return e.protectedRel(rest)
	}
	for _, r := range e.roots {
		if rel, ok := check(r); ok {
			return rel, true
		}
	}
	if e.cwd != "" {
		return check(e.cwd)
	}
	return "", false
}

// protectedRel returns the first entry of protRel (in its order) that rest,
// a path relative to a writable root, is or lies under (e.within): the
// entries rest can be are its leading components, looked up.
func (e *env) protectedRel(rest string) (string, bool) {
	q := rest
	if e.fold {
		q = strings.ToLower(rest)
	}
	best := -1
	for i := 0; i <= len(q); i++ {
		if i < len(q) && q[i] != '/' {
			continue
		}
		for _, k := range e.protRelIdx[q[:i]] {
			// Folded, within also asks that rest be no shorter than the
			// entry as written.
			if rel := e.protRel[k]; (best < 0 || k < best) && (under(rest, rel) || e.fold && len(rest) >= len(rel)) {
				best = k
				break
			}
		}
	}
	if best < 0 {
		return "", false
	}
	return e.protRel[best], true
}

// writeKind classifies an absolute path that a command writes to.
func (e *env) writeKind(p string) (pathKind, string) {
	if isWinAbs(p) {
		p = winNorm(p)
	}
	if strings.HasPrefix(p, "/dev/") || p == "/dev" {
		if devOK[p] || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/shm/") {
			return pathFine, ""
		}
		return pathDevice, p
	}
	if strings.HasPrefix(p, "/proc/self/fd/") || strings.HasPrefix(p, "/proc/self/fd") && p == "/proc/self/fd" {
		return pathFine, ""
	}
	if s, ok := e.isSensitive(p); ok {
		return pathSensitive, s
	}
	if s, ok := e.isProtected(p); ok {
		return pathProtected, s
	}
	root, inRoot := e.inRoot(p)
	if s, ok := e.isSystem(p); ok {
		// A writable root inside a system directory (say /var/tmp/x) is
		// still writable; the directory itself is not.
		if !inRoot || root == "/" || under(s, root) {
			return pathSystem, s
		}
	}
	if len(e.roots) > 0 && !inRoot {
		return pathOutside, p
	}
	return pathFine, ""
}

// resolve turns a word into an absolute path for a command, expanding a
// leading ~ the way tools that take paths in option values do.
func (e *env) resolve(c *shell.Command, w shell.Word) (string, bool) {
	if w.Dynamic || w.Value == "" {
		return "", false
	}
	v := w.Value
	if strings.HasPrefix(v, "~/") || v == "~" {
		v = e.expand(v)
		if v == "" {
			return "", false
		}
	}
	if isWinAbs(v) {
		return winNorm(v), true
	}
	if c.Dialect != shell.Sh || e.platformKey() == "windows" && strings.Contains(v, `\`) && !strings.Contains(v, "/") {
		// PowerShell takes \ as a directory separator on every platform;
		// cmd.exe runs only on Windows.
		v = strings.ReplaceAll(v, `\`, "/")
	}
	p, ok := c.Abs(shell.Word{Value: v, Prefix: v})
	if ok && isWinAbs(p) {
		p = winNorm(p)
	}
	return p, ok
}

// dynamicPrefixPath returns the absolute static beginning of a dynamic
// word, when it is an absolute path.
func (e *env) dynamicPrefixPath(c *shell.Command, w shell.Word) (string, bool) {
	pre := w.Prefix
	if strings.HasPrefix(pre, "~/") {
		pre = e.expand("~/") + "/" + pre[2:]
	}
	if !path.IsAbs(pre) {
		if c.DirKnown && pre != "" && !strings.HasPrefix(pre, "-") {
			return path.Join(c.Dir, pre) + suffixSlash(pre), true
		}
		return "", false
	}
	return pre, true
}

func suffixSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return "/"
	}
	return ""
}

// prefixUnder reports whether every path starting with the string prefix
// pre lies under base, or pre partly spells base's last component (so a
// run-time value could complete it: ~/.s$X).
func prefixHits(pre, base string) bool {
	if pre == "" || base == "" {
		return false
	}
	if strings.HasPrefix(pre, base) && (len(pre) == len(base) || pre[len(base)] == '/') {
		return true
	}
	// ~/.s$X could be ~/.ssh: the prefix ends inside base's last element.
	if strings.HasPrefix(base, pre) {
		rest := pre[strings.LastIndexByte(pre, '/')+1:]
		return rest != "" && strings.LastIndexByte(pre, '/') == strings.LastIndexByte(base[:len(pre)], '/')
	}
	return false
}

// globHits reports whether a glob pattern (absolute) could match base or
// something under it.
func globHits(pattern, base string) bool {
	pc := strings.Split(strings.Trim(pattern, "/"), "/")
	bc := strings.Split(strings.Trim(base, "/"), "/")
	if base == "/" {
		return true
	}
	if len(pc) < len(bc) {
		return false
	}
	for i := range bc {
		p := strings.ReplaceAll(pc[i], "**", "*")
		if !shell.GlobMatch(p, bc[i]) {
			return false
		}
		// * and ? do not match a leading dot in a file name.
		if strings.HasPrefix(bc[i], ".") && !strings.HasPrefix(p, ".") && !strings.HasPrefix(p, "[") {
			return false
		}
	}
	return true
}

// isClean reports whether an absolute slash path is already in the form
// path.Clean would return, without allocating.
func isClean(p string) bool {
	if len(p) > 1 && p[len(p)-1] == '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		rest := p[i+1:]
		if strings.HasPrefix(rest, "/") || rest == "." || rest == ".." || strings.HasPrefix(rest, "./") || strings.HasPrefix(rest, "../") {
			return false
		}
	}
	return true
}
