package risk

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/safeexec/safeexec/shell"
)

// How credential paths are matched. The list is the caller's
// (Context.SensitivePaths: configs' deny_read) plus the system's own
// secrets (builtinSecrets); what this file adds is every spelling of a
// path that reaches one of them:
//
//   - every home counts: an entry under the user's home directory is a
//     credential in every home (/root, /home/*, /Users/*, ~user), since
//     another user's ~/.ssh is as secret as one's own;
//   - aliases of / and of working directories (/proc/self/root,
//     /proc/<pid>/root, /proc/<pid>/cwd, /proc/self/fd/N/…, /dev/fd/N/…)
//     are seen through;
//   - a path whose beginning is only known at run time (a relative path
//     after cd "$X", "$D/.ssh/id_rsa", /proc/$PID/root/…) is judged by its
//     known end: the unknown part may be a home, or /;
//   - name patterns (**/.env) match the last components of any path,
//     except examples of them (.env.example, example.env);
//   - symbolic links inside the writable roots are followed when the
//     caller lets the classifier read them (Context.Readlink).

// homeRoots are where home directories live, per platform: an entry
// ending in /* means every directory in it is a home. Windows paths are
// compared after winNorm (lower case, forward slashes); the Windows
// spellings of a home (%USERPROFILE%, $env:USERPROFILE) become such paths
// before they get here.
var homeRoots = map[string][]string{
	"linux":   {"/root", "/home/*", "/Users/*"},
	"darwin":  {"/Users/*", "/var/root", "/private/var/root", "/root", "/home/*"},
	"windows": {"c:/users/*"},
}

// exampleWords mark a file as an example of a credential file rather
// than one (.env.example, example.env, .env.local.sample): a name pattern
// never matches a name with one of them as a part.
var exampleWords = []string{"example", "examples", "sample", "samples", "template", "templates", "tmpl", "tpl", "dist"}

// credentials is the credential list prepared for matching.
type credentials struct {
	// abs are the entries outside the user's home directory, and the
	// system's own secrets, matched as they are.
	abs []string
	// rel are the entries under the user's home directory by their path
	// relative to it (lower case where names fold), each mapped to that
	// path as configured; relDepth is the most components one has.
	rel      map[string]string
	relDepth int
	// relList are the same in the configured order (for findings that
	// name one of several).
	relList []string
	// holdsRel maps each entry of relList (lower case where names fold)
	// and each directory above one to the index of the first entry it
	// is or holds.
	holdsRel map[string]int
	// names are the name patterns; multiName says one has more than one
	// component (**/secrets/*.json).
	names     []namePattern
	multiName bool
	fold      bool
	// holds remembers dirHolds' answers (directory → bool), which depend
	// only on what the list was prepared from (credKey); holdsN counts
	// its entries, to bound it.
	holds  sync.Map
	holdsN atomic.Int32
}

// maxHoldsCache bounds the directories credentials.holds remembers.
const maxHoldsCache = 256

type namePattern struct {
	entry string   // as configured: **/.env
	comps []string // the components after **/
	lit   string   // a literal run every match contains
}

// credKey is what a prepared list was built from.
type credKey struct {
	list           []string
	home, platform string
}

type credEntry struct {
	key  credKey
	cred *credentials
}

// credCache keeps the last prepared list: a caller classifies many
// commands with one Context.
var credCache atomic.Pointer[credEntry]

func (k credKey) same(o credKey) bool {
	return k.home == o.home && k.platform == o.platform && sameStrings(k.list, o.list)
}

// sameStrings reports whether two lists hold the same strings. A key
// keeps a copy of the caller's list, whose strings share their bytes with
// the caller's: when the two lists' string headers (address and length of
// each string) are the same memory contents, so are the strings, and
// that is one block comparison. Otherwise the strings are compared.
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	n := len(a) * int(unsafe.Sizeof(""))
	ha := unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(a))), n)
	hb := unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(b))), n)
	if ha == hb {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// credentialsFor prepares the context's credential list (cached).
func (e *env) credentialsFor(list []string) *credentials {
	key := credKey{list: list, home: e.home, platform: e.platformKey()}
	if ce := credCache.Load(); ce != nil && ce.key.same(key) {
		return ce.cred
	}
	cr := &credentials{fold: e.fold || e.platformKey() == "windows"}
	add := func(s string) {
		if e.home != "" && e.home != "/" && e.within(s, e.home) && s != e.home {
			rel := strings.TrimPrefix(s[len(e.home):], "/")
			k := rel
			if cr.fold {
				k = strings.ToLower(k)
			}
			if cr.rel == nil {
				cr.rel = make(map[string]string, len(list)+len(builtinSecrets[e.platformKey()]))
			}
			if _, dup := cr.rel[k]; !dup {
				cr.relList = append(cr.relList, rel)
			}
			cr.rel[k] = rel
			cr.relDepth = max(cr.relDepth, strings.Count(rel, "/")+1)
			return
		}
		cr.abs = append(cr.abs, s)
	}
	for _, s := range list {
		if rest, ok := strings.CutPrefix(s, "**/"); ok {
			cr.names = append(cr.names, newNamePattern(s, rest, cr.fold))
			cr.multiName = cr.multiName || strings.Contains(rest, "/")
			continue
		}
		if s == "" || s[0] != '/' || !isClean(s) {
			if s = e.expand(s); s == "" {
				continue
			}
		}
		add(s)
	}
	for _, s := range builtinSecrets[e.platformKey()] {
		add(s)
	}
	cr.holdsRel = make(map[string]int, 2*len(cr.relList))
	for i, orig := range cr.relList {
		k := orig
		if cr.fold {
			k = strings.ToLower(k)
		}
		for j := 0; j <= len(k); j++ {
			if j == len(k) || k[j] == '/' {
				if _, seen := cr.holdsRel[k[:j]]; !seen {
					cr.holdsRel[k[:j]] = i
				}
			}
		}
	}
	credCache.Store(&credEntry{key: credKey{list: append([]string(nil), list...), home: key.home, platform: key.platform}, cred: cr})
	return cr
}

func newNamePattern(entry, rest string, fold bool) namePattern {
	if fold {
		rest = strings.ToLower(rest)
	}
	np := namePattern{entry: entry, comps: strings.Split(rest, "/")}
	// The longest run of characters that are not pattern syntax.
	run := ""
	for _, piece := range strings.FieldsFunc(rest, func(r rune) bool { return strings.ContainsRune("*?[]\\", r) }) {
		if len(piece) > len(run) {
			run = piece
		}
	}
	np.lit = run
	return np
}

// match reports whether the last components of the path p (lower case
// where names fold) match the pattern, and its last one is not an
// example.
func (np *namePattern) match(p string) bool {
	if np.lit != "" && !strings.Contains(p, np.lit) {
		return false
	}
	end := len(p)
	for i := len(np.comps) - 1; i >= 0; i-- {
		start := strings.LastIndexByte(p[:end], '/') + 1
		comp := p[start:end]
		if comp == "" || !globMatchName(np.comps[i], comp) {
			return false
		}
		if i == len(np.comps)-1 && isExample(comp) {
			return false
		}
		if i > 0 {
			if start == 0 {
				return false
			}
			end = start - 1
		}
	}
	return true
}

// globMatchName matches one path component (* and ? never cross a /,
// which a component does not hold).
func globMatchName(pat, s string) bool {
	if !strings.ContainsAny(pat, "*?[\\") {
		return pat == s
	}
	ok, err := path.Match(pat, s)
	return err == nil && ok
}

// isExample reports whether a file name has an example word as a part
// (split at . - _).
func isExample(name string) bool {
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
		for _, w := range exampleWords {
			if strings.EqualFold(part, w) {
				return true
			}
		}
	}
	return false
}

// nameHit reports whether a path (absolute or relative) matches a name
// pattern.
func (cr *credentials) nameHit(p string) (string, bool) {
	if len(cr.names) == 0 {
		return "", false
	}
	q := p
	if cr.fold {
		q = strings.ToLower(p)
	}
	for i := range cr.names {
		if cr.names[i].match(q) {
			return p, true
		}
	}
	return "", false
}

// relHit reports whether a path relative to a home directory is, or lies
// under, a credential entry of the home; it returns the entry's relative
// path.
func (cr *credentials) relHit(rest string) (string, bool) {
	if rest == "" || cr.rel == nil {
		return "", false
	}
	if cr.fold {
		rest = strings.ToLower(rest)
	}
	n := 0
	for i := 0; i <= len(rest); i++ {
		if i == len(rest) || rest[i] == '/' {
			if k, ok := cr.rel[rest[:i]]; ok {
				return k, true
			}
			if n++; n >= cr.relDepth {
				break
			}
		}
	}
	return "", false
}

// homeSplit finds the home directory a clean absolute path lies in: the
// user's own, or one of the platform's homes. It returns the home and the
// rest of the path relative to it ("" for the home itself).
func (e *env) homeSplit(p string) (home, rest string) {
	if e.home != "" && e.home != "/" && e.within(p, e.home) {
		return p[:len(e.home)], strings.TrimPrefix(p[len(e.home):], "/")
	}
	roots := homeRoots[e.platformKey()]
	if isWinAbs(p) && e.platformKey() != "windows" {
		// A path on a Windows drive names a Windows home wherever the
		// script is judged (check --shell powershell on Linux).
		roots = homeRoots["windows"]
		p = winNorm(p)
	}
	for _, r := range roots {
		if dir, ok := strings.CutSuffix(r, "/*"); ok {
			if len(p) > len(dir)+1 && p[len(dir)] == '/' && e.within(p[:len(dir)], dir) {
				name, rest, _ := strings.Cut(p[len(dir)+1:], "/")
				if name != "" {
					return p[:len(dir)+1+len(name)], rest
				}
			}
		} else if e.within(p, r) {
			return p[:len(r)], strings.TrimPrefix(p[len(r):], "/")
		}
	}
	return "", ""
}

// homeContainer reports whether a path prefix ends where a home's name
// would follow or partly spells it (/home/, /home/bo, /Users/): the home
// is only known at run time.
func (e *env) homeContainer(pre string) bool {
	for _, r := range homeRoots[e.platformKey()] {
		dir, ok := strings.CutSuffix(r, "/*")
		if !ok {
			continue
		}
		if len(pre) > len(dir) && pre[len(dir)] == '/' && e.within(pre[:len(dir)], dir) && !strings.Contains(pre[len(dir)+1:], "/") {
			return true
		}
	}
	return false
}

// isSensitive reports whether the absolute path p is a credential path or
// lies under one, in any spelling; it returns the credential path.
func (e *env) isSensitive(p string) (string, bool) {
	return e.sensitiveIn("", false, p)
}

// sensitiveIn is isSensitive for a command whose working directory is dir
// (when known): /proc/self/cwd is that directory.
func (e *env) sensitiveIn(dir string, dirKnown bool, p string) (string, bool) {
	if e.platform == "windows" {
		p = msysPath(p)
	}
	if isWinAbs(p) {
		p = winNorm(p)
	}
	p, rel, unknown := unalias(p, dir, dirKnown)
	if unknown {
		return e.tailSensitive(rel)
	}
	if procEnviron(p) {
		return p, true
	}
	cr := e.cred
	if s, ok := cr.nameHit(p); ok {
		return s, true
	}
	for _, s := range cr.abs {
		if e.within(p, s) || isWinAbs(s) && e.within(strings.ToLower(p), s) {
			return s, true
		}
	}
	if home, rest := e.homeSplit(p); home != "" {
		if k, ok := cr.relHit(rest); ok {
			return home + "/" + k, true
		}
	}
	return "", false
}

// tailSensitive judges a path relative to a directory only known at run
// time: that directory may be a home (.ssh/id_rsa), or / (or an alias of
// it), so that a home or a credential path may follow later in the path
// (home/bob/.ssh, etc/shadow).
func (e *env) tailSensitive(rel string) (string, bool) {
	rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	if rel == "" {
		return "", false
	}
	cr := e.cred
	if s, ok := cr.nameHit(rel); ok {
		return s, true
	}
	if k, ok := cr.relHit(rel); ok {
		return "~/" + k + " (in a directory only known at run time)", true
	}
	for i := 0; i < len(rel); i++ {
		if i == 0 || rel[i-1] == '/' {
			if s, ok := e.sensitiveIn("", false, "/"+rel[i:]); ok {
				return s + " (below a directory only known at run time)", true
			}
		}
	}
	return "", false
}

// unalias sees through the /proc and /dev/fd names of / and of working
// directories: it returns the path they stand for, or with unknown set,
// the rest of the path relative to a directory only known at run time
// (another process's working directory, an open directory).
func unalias(p, dir string, dirKnown bool) (string, string, bool) {
	for range 8 {
		switch {
		case strings.HasPrefix(p, "/proc/"):
			pid, rest, _ := strings.Cut(p[len("/proc/"):], "/")
			self := pid == "self" || pid == "thread-self"
			if !self && !digits(pid) {
				return p, "", false
			}
			if t, ok := strings.CutPrefix(rest, "task/"); ok {
				tid, r, _ := strings.Cut(t, "/")
				if !digits(tid) {
					return p, "", false
				}
				rest = r
			}
			what, after, _ := strings.Cut(rest, "/")
			switch what {
			case "root":
				p = "/" + after
				continue
			case "cwd":
				if self && dirKnown {
					p = path.Join(dir, after)
					continue
				}
				return "", after, true
			case "fd", "map_files":
				if _, more, ok := strings.Cut(after, "/"); ok && more != "" {
					return "", more, true
				}
			}
			return p, "", false
		case strings.HasPrefix(p, "/dev/fd/"):
			if _, more, ok := strings.Cut(p[len("/dev/fd/"):], "/"); ok && more != "" {
				return "", more, true
			}
			return p, "", false
		}
		return p, "", false
	}
	return p, "", false
}

// procEnviron reports whether p is the environment of another process
// (/proc/PID/environ, /proc/PID/task/TID/environ): its secrets are the
// ones safeexec strips.
func procEnviron(p string) bool {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok || !strings.HasSuffix(rest, "/environ") {
		return false
	}
	pid, rest, _ := strings.Cut(rest, "/")
	if !digits(pid) {
		return false
	}
	if t, ok := strings.CutPrefix(rest, "task/"); ok {
		tid, r, _ := strings.Cut(t, "/")
		if !digits(tid) {
			return false
		}
		rest = r
	}
	return rest == "environ"
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// holdsSensitive reports whether the directory p holds a credential path
// somewhere below it (or is one): a home, a directory above homes, a
// directory above an entry. Name patterns are not looked for: any
// directory may hold a .env.
func (e *env) holdsSensitive(c *shell.Command, p string) (string, bool) {
	p, _, unknown := unalias(p, c.Dir, c.DirKnown)
	if unknown {
		return "a directory only known at run time (it may be a home directory)", true
	}
	if s, ok := e.isSensitive(p); ok {
		return s, true
	}
	cr := e.cred
	if s, ok := e.holdsHome(p); ok {
		return s, true
	}
	for _, s := range cr.abs {
		if e.within(s, p) {
			return s, true
		}
	}
	return "", false
}

// holdsHome reports whether the directory p is or holds a home directory,
// or holds a home's credential entry.
func (e *env) holdsHome(p string) (string, bool) {
	cr := e.cred
	if cr.rel == nil {
		return "", false
	}
	if home, rest := e.homeSplit(p); home != "" {
		if rest == "" {
			return home + "/" + cr.relList[0], true
		}
		r := rest
		if cr.fold {
			r = strings.ToLower(r)
		}
		// The first entry that is r or lies under it.
		if i, ok := cr.holdsRel[r]; ok {
			return home + "/" + cr.relList[i], true
		}
		return "", false
	}
	if e.home != "" && e.home != "/" && e.within(e.home, p) {
		return e.home + "/" + cr.relList[0], true
	}
	for _, r := range homeRoots[e.platformKey()] {
		dir := strings.TrimSuffix(r, "/*")
		if e.within(dir, p) {
			return r + "/" + cr.relList[0], true
		}
	}
	return "", false
}

// globSensitive reports whether an absolute pattern can match a
// credential path or something under one.
func (e *env) globSensitive(pat string) (string, bool) {
	cr := e.cred
	for _, s := range cr.abs {
		if globHits(pat, s) {
			return s, true
		}
	}
	pc := strings.Split(strings.Trim(pat, "/"), "/")
	if cr.rel != nil {
		// The components of the pattern that a home's relative paths
		// would be matched by.
		var rests [][]string
		if e.home != "" && e.home != "/" {
			hc := strings.Split(strings.Trim(e.home, "/"), "/")
			if len(pc) > len(hc) && globHits("/"+strings.Join(pc[:len(hc)], "/"), e.home) {
				rests = append(rests, pc[len(hc):])
			}
		}
		for _, r := range homeRoots[e.platformKey()] {
			dir, any := strings.CutSuffix(r, "/*")
			dc := strings.Split(strings.Trim(dir, "/"), "/")
			n := len(dc)
			if any {
				n++
			}
			if len(pc) > n && globHits("/"+strings.Join(pc[:len(dc)], "/"), dir) {
				rests = append(rests, pc[n:])
			}
		}
		for _, rest := range rests {
			rp := "/" + strings.Join(rest, "/")
			for _, orig := range cr.relList {
				if globHits(rp, "/"+orig) {
					return "~/" + orig, true
				}
			}
		}
	}
	if s, ok := e.globNames(pc); ok {
		return s, true
	}
	return "", false
}

// globNames reports whether the last components of a pattern can match a
// name pattern. A last component of pattern characters alone (*) is not
// counted: it matches every name.
func (e *env) globNames(pc []string) (string, bool) {
	cr := e.cred
	if len(cr.names) == 0 || len(pc) == 0 {
		return "", false
	}
	last := pc[len(pc)-1]
	if strings.Trim(last, "*?") == "" {
		return "", false
	}
	for i := range cr.names {
		np := &cr.names[i]
		if len(np.comps) > len(pc) {
			continue
		}
		ok := true
		for k := range np.comps {
			g := pc[len(pc)-len(np.comps)+k]
			if cr.fold {
				g = strings.ToLower(g)
			}
			// The shell's * and ? never match a leading dot.
			if strings.HasPrefix(np.comps[k], ".") && !strings.HasPrefix(g, ".") && !strings.HasPrefix(g, "[") {
				ok = false
				break
			}
			if !globsMeet(g, np.comps[k]) {
				ok = false
				break
			}
		}
		if ok {
			return np.entry, true
		}
	}
	return "", false
}

// globsMeet reports whether some string matches both patterns (* ? and
// bracket expressions, which count as any one character).
func globsMeet(a, b string) bool {
	ta, tb := globTokens(a), globTokens(b)
	if len(ta) > 64 || len(tb) > 64 {
		return true
	}
	var memo [65][65]int8
	var meet func(i, j int) bool
	meet = func(i, j int) bool {
		if m := memo[i][j]; m != 0 {
			return m > 0
		}
		r := false
		switch {
		case i == len(ta) && j == len(tb):
			r = true
		case i < len(ta) && ta[i] == "*":
			r = meet(i+1, j) || j < len(tb) && meet(i, j+1)
		case j < len(tb) && tb[j] == "*":
			r = meet(i, j+1) || i < len(ta) && meet(i+1, j)
		case i < len(ta) && j < len(tb):
			x, y := ta[i], tb[j]
			r = (x == "?" || y == "?" || x == y) && meet(i+1, j+1)
		}
		if r {
			memo[i][j] = 1
		} else {
			memo[i][j] = -1
		}
		return r
	}
	return meet(0, 0)
}

// globTokens splits a pattern into single characters, "?" (any one,
// bracket expressions too) and "*".
func globTokens(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if len(out) == 0 || out[len(out)-1] != "*" {
				out = append(out, "*")
			}
		case '?':
			out = append(out, "?")
		case '[':
			if end := strings.IndexByte(p[i+1:], ']'); end >= 0 {
				out = append(out, "?")
				i += end + 1
				continue
			}
			out = append(out, "[")
		case '\\':
			if i+1 < len(p) {
				i++
			}
			out = append(out, p[i:i+1])
		default:
			out = append(out, p[i:i+1])
		}
	}
	return out
}

// readsSensitive judges one static path a command reads: relative to the
// command's directory, or to a directory only known at run time (after
// cd "$X"), and through symbolic links inside the writable roots.
func (e *env) readsSensitive(c *shell.Command, cand string) (string, bool) {
	if len(cand) > 1 {
		cand = strings.TrimRight(cand, "/")
		if cand == "" {
			cand = "/"
		}
	}
	cr := e.cred
	if c.DirKnown && c.Dialect == shell.Sh && e.platform != "windows" && cand[0] != '/' && cand[0] != '~' && !isWinAbs(cand) && !strings.Contains(cand, `\`) &&
		isCleanRel(cand) && !cr.multiName && e.c.Readlink == nil && !e.dirHolds(c.Dir) {
		// The common case: a plain name in a directory that holds no
		// credential path (the project); only name patterns can match.
		// (Not on Windows, where the directory may be spelt in any case
		// or as /c/…: there it is resolved to one normal form below.)
		return cr.nameHit(cand)
	}
	p, ok := e.resolve(c, shell.Static(cand))
	if !ok {
		if cand[0] != '~' && !path.IsAbs(cand) && !isWinAbs(cand) {
			if c.Dialect != shell.Sh || e.platform == "windows" {
				// cmd.exe and PowerShell separate with \ too.
				cand = strings.ReplaceAll(cand, `\`, "/")
			}
			return e.tailSensitive(cand)
		}
		return "", false
	}
	if s, ok := e.sensitiveIn(c.Dir, c.DirKnown, p); ok {
		return s, true
	}
	if real, ok := e.throughLinks(p, !linkItself(c)); ok {
		if s, ok := e.sensitiveIn(c.Dir, c.DirKnown, real); ok {
			return s + " (through a symbolic link: " + p + ")", true
		}
	}
	return "", false
}

// dirHolds reports, remembering the last answer, whether a command's
// directory is or holds a credential path, or is an alias.
func (e *env) dirHolds(dir string) bool {
	if e.lastDirSet && e.lastDir == dir {
		return e.lastDirHolds
	}
	holds := strings.HasPrefix(dir, "/proc/") || strings.HasPrefix(dir, "/dev/fd/")
	if !holds {
		// The answer depends only on the prepared credential list (its
		// entries, the home, the platform): it is kept with the list.
		cr := e.cred
		if v, ok := cr.holds.Load(dir); ok {
			holds = v.(bool)
		} else {
			_, holds = e.holdsSensitive(&shell.Command{}, dir)
			if cr.holdsN.Add(1) <= maxHoldsCache {
				cr.holds.Store(dir, holds)
			}
		}
	}
	e.lastDir, e.lastDirHolds, e.lastDirSet = dir, holds, true
	return holds
}

// globRead judges a file name pattern a command reads.
func (e *env) globRead(c *shell.Command, pat string) (string, bool) {
	if strings.HasPrefix(pat, "~/") && e.home != "" {
		pat = e.home + pat[1:]
	} else if !path.IsAbs(pat) && c.DirKnown {
		pat = path.Join(c.Dir, pat)
	}
	if path.IsAbs(pat) {
		if p, rel, unknown := unalias(pat, c.Dir, c.DirKnown); unknown {
			return e.globNames(strings.Split(rel, "/"))
		} else {
			pat = p
		}
		return e.globSensitive(pat)
	}
	// Relative to a directory only known at run time.
	if s, ok := e.globNames(strings.Split(pat, "/")); ok {
		return s, true
	}
	if e.cred.rel != nil {
		for _, orig := range e.cred.relList {
			if globHits("/"+pat, "/"+orig) {
				return "~/" + orig + " (in a directory only known at run time)", true
			}
		}
	}
	return "", false
}

// dynamicSensitive reports whether a word only partly known can be a
// credential path: by its known end (a name pattern, a home's entry after
// a part that may be a home, a credential path after a part that may be
// /) or by its known beginning (a path inside a credential directory, or
// partly spelling one: ~/.s$X).
func (e *env) dynamicSensitive(c *shell.Command, w shell.Word) (string, bool) {
	pre, suf := w.Prefix, w.Suffix
	if strings.HasPrefix(pre, "~/") && e.home != "" {
		pre = e.home + pre[1:]
	}
	abs, absOK := e.dynamicPrefixPath(c, w)
	// Where the unknown part starts: nothing known before it, or a
	// place whose next part is a home or a directory only known at run
	// time.
	unknownBase := pre == "" || !absOK && !c.DirKnown || absOK && (e.homeContainer(abs) || unaliasUnknown(abs)) ||
		strings.HasPrefix(pre, "~") && !strings.Contains(pre, "/")
	if i := strings.IndexByte(suf, '/'); i >= 0 {
		tail := strings.TrimLeft(suf[i:], "/")
		if unknownBase && i == 0 {
			if s, ok := e.tailSensitive(tail); ok {
				return s, true
			}
		} else if tail != "" {
			if s, ok := e.cred.nameHit(tail); ok {
				return s, true
			}
			for k := 0; k < len(tail); k++ {
				if k == 0 || tail[k-1] == '/' {
					if s, ok := e.sensitiveIn("", false, "/"+tail[k:]); ok {
						return s + " (below a directory only known at run time)", true
					}
				}
			}
		}
	} else if suf != "" {
		// The last name ends in known text: ${NAME}.env.
		g := "*" + suf
		if e.cred.fold {
			g = strings.ToLower(g)
		}
		for i := range e.cred.names {
			np := &e.cred.names[i]
			// The known end must hold the pattern's own text (.env), not
			// merely be matchable by its wildcards.
			if len(np.comps) == 1 && strings.Contains(strings.ToLower(suf), np.lit) && globsMeet(g, np.comps[0]) && !isExample(suf) {
				return np.entry, true
			}
		}
	}
	if strings.HasPrefix(pre, "/proc/") && !strings.Contains(pre[len("/proc/"):], "/") && (suf == "/environ" || strings.HasPrefix(suf, "/task/") && strings.HasSuffix(suf, "/environ")) {
		return "/proc/PID/environ (the environment of another process)", true
	}
	if absOK {
		return e.prefixSensitive(abs)
	}
	return "", false
}

// unaliasUnknown reports whether a path prefix starts with a /proc or
// /dev/fd name of a directory only known at run time.
func unaliasUnknown(p string) bool {
	if !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/fd/") {
		return false
	}
	_, _, unknown := unalias(p, "", false)
	return unknown || strings.HasPrefix(p, "/proc/") && !strings.Contains(p[len("/proc/"):], "/")
}

// prefixSensitive reports whether every path starting with pre, or the
// one pre partly spells, is a credential path.
func (e *env) prefixSensitive(pre string) (string, bool) {
	dir := pre[:strings.LastIndexByte(pre, '/')+1]
	if d, rel, unknown := unalias(dir, "", false); unknown {
		rel += pre[len(dir):]
		for _, orig := range e.cred.relList {
			if prefixHits("/"+rel, "/"+orig) {
				return "~/" + orig + " (in a directory only known at run time)", true
			}
		}
		return "", false
	} else if d != dir {
		pre = d + "/" + pre[len(dir):]
		pre = strings.Replace(pre, "//", "/", 1)
	}
	if s, ok := e.sensitiveIn("", false, strings.TrimSuffix(pre[:strings.LastIndexByte(pre, '/')+1], "/")); ok && len(pre) > 1 {
		return s, true
	}
	for _, s := range e.cred.abs {
		if prefixHits(pre, s) {
			return s, true
		}
	}
	if home, rest := e.homeSplit(pre); home != "" && rest != "" {
		for _, orig := range e.cred.relList {
			if prefixHits("/"+rest, "/"+orig) {
				return home + "/" + orig, true
			}
		}
	}
	return "", false
}

// dynamicHome says why a path only partly known may be a credential path
// without naming one: it lies directly in a home directory, or in a home
// known only at run time (/home/$U/…, $(getent passwd x | cut -d: -f6)/…,
// ${!name}/…).
func (e *env) dynamicHome(c *shell.Command, w shell.Word) (string, bool) {
	if abs, ok := e.dynamicPrefixPath(c, w); ok {
		if e.homeContainer(abs) {
			return "a path in a home directory only known at run time", true
		}
		if home, rest := e.homeSplit(abs); home != "" && rest == "" && e.cred.rel != nil {
			return "a file directly in the home directory " + home + " whose name is only known at run time", true
		}
	}
	if w.Taint&shell.Home != 0 && (strings.Contains(w.Prefix, "/") || strings.Contains(w.Suffix, "/") || strings.HasPrefix(w.Prefix, "~") || c.Name() == "cd" || c.Name() == "pushd") {
		return "a path built from a home directory or user name only known at run time", true
	}
	return "", false
}

// throughLinks follows the symbolic links on the way to p inside the
// writable roots (and the working directory), when the context can read
// them; last says whether p itself is followed when it is a link (not
// for rm, mv, ln of the link). It returns where p leads.
func (e *env) throughLinks(p string, last bool) (string, bool) {
	if e.c.Readlink == nil {
		return "", false
	}
	real, changed := p, false
	for hops := 0; hops < 16; {
		base := ""
		if r, ok := e.inRoot(real); ok {
			base = r
		} else if e.cwd != "" && under(real, e.cwd) {
			base = e.cwd
		} else {
			break
		}
		moved := false
		for i := len(base) + 1; i <= len(real); i++ {
			if i < len(real) && real[i] != '/' {
				continue
			}
			if i == len(real) && !last {
				break
			}
			t, err := e.c.Readlink(real[:i])
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					// Nothing exists further down.
					break
				}
				continue
			}
			if !path.IsAbs(t) && !isWinAbs(t) {
				t = path.Join(path.Dir(real[:i]), t)
			} else {
				t = cleanAbs(t)
			}
			real = path.Join(t, real[i:])
			changed, moved = true, true
			hops++
			break
		}
		if !moved {
			break
		}
	}
	return real, changed && real != p
}

// linkItself reports whether a command acts on a symbolic link named as
// its operand rather than on what it leads to (rm, mv, ln, unlink).
func linkItself(c *shell.Command) bool {
	switch c.Name() {
	case "rm", "unlink", "mv", "ln":
		return true
	}
	return false
}
