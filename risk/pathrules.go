package risk

import (
	"path"
	"slices"
	"strings"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// noPathArgs are commands whose arguments are never opened as files.
// Listing and inspecting a file or directory is opening it (ls ~/.ssh,
// stat, du, file), and so is entering it (cd ~/.ssh): naming a credential
// location is enough.
var noPathArgs = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, "basename": true, "dirname": true,
	"realpath": true, "readlink": true, "which": true, "type": true, "command": true, "true": true, "false": true, ":": true,
	"export": true, "declare": true, "local": true, "alias": true, "hash": true, "man": true, "whatis": true, "apropos": true,
	"info": true, "write-output": true, "write-host": true, "echo.": true, "set": true, "unset": true,
	"whereis": true, "exit": true, "return": true}

// paths judges the files a command reads and writes.
func (j *judge) paths(c *shell.Command) {
	for _, r := range c.Redirs {
		if r.Writes() {
			j.write(c, r.Target, "writes output to")
		} else if r.Reads() {
			j.read(c, r.Target)
		}
	}
	if len(c.Args) == 0 {
		return
	}
	name := c.Name()
	if ts := catalog.Targets(c); len(ts) > 0 {
		verb := name + " writes"
		for _, w := range ts {
			j.write(c, w, verb)
		}
	}
	if j.env.home != "" {
		for _, rel := range catalog.HomeWrites(c) {
			j.writePath(c, path.Join(j.env.home, rel), name+" writes")
		}
	}
	for _, w := range catalog.Reads(c) {
		j.read(c, w)
	}
	if c.Dialect == shell.Sh && noPathArgs[name] || c.Dialect != shell.Sh && slices.Contains([]string{"echo", "write-output", "write-host", "echo."}, strings.ToLower(name)) {
		return
	}
	for _, a := range c.Args[1:] {
		j.read(c, a)
	}
	j.recursiveRead(c)
}

// recursiveRead flags commands that read whole directory trees (tar,
// zip -r, cp -r, rsync -r, grep -r, rg) given a directory that holds a
// credential path (a home directory, /).
func (j *judge) recursiveRead(c *shell.Command) {
	for _, o := range catalog.TreeReads(c) {
		if o.Dynamic {
			if o.Taint&shell.Home != 0 {
				j.hitAt(c, ruleCredentialPath, NeedsConfirmation, "%s reads the tree %s, a directory only known at run time that may be a home directory", c.Name(), o.Value)
				return
			}
			continue
		}
		if o.Glob {
			continue
		}
		p, ok := j.env.resolve(c, o)
		if !ok {
			continue
		}
		if s, ok := j.env.holdsSensitive(c, p); ok {
			j.hit(c, ruleCredentialPath, "%s reads %s, which holds the credential path %s", c.Name(), p, s)
			return
		}
	}
}

// read flags arguments and input redirections that name credential
// paths.
func (j *judge) read(c *shell.Command, w shell.Word) {
	if w.Proc {
		return
	}
	if w.Dynamic {
		j.dynamicRead(c, w)
		return
	}
	var buf [4]string
	for _, cand := range pathCandidates(w.Value, buf[:0]) {
		if w.Glob && strings.ContainsAny(cand, "*?[") {
			if s, ok := j.env.globRead(c, cand); ok {
				j.hit(c, ruleCredentialPath, "the pattern %s can match %s, a credential path", cand, s)
				return
			}
			continue
		}
		if s, ok := j.env.readsSensitive(c, cand); ok {
			j.hit(c, ruleCredentialPath, "reads %s, a credential path", s)
			return
		}
	}
}

// dynamicRead judges reading a path only partly known.
func (j *judge) dynamicRead(c *shell.Command, w shell.Word) {
	if s, ok := j.env.dynamicSensitive(c, w); ok {
		j.hit(c, ruleCredentialPath, "reads %s, a credential path", s)
		return
	}
	if why, ok := j.env.dynamicHome(c, w); ok {
		j.hitAt(c, ruleCredentialPath, NeedsConfirmation, "reads %s, %s: it may be a credential path", w.Value, why)
	}
}

// spacedPath reports whether a word with spaces still reads as a path:
// absolute, under ~, or a Windows drive path ("~/.config/Bitwarden CLI",
// "C:\Users\me\AppData\Roaming\GitHub CLI\hosts.yml"), not a message.
func spacedPath(v string) bool {
	return !strings.Contains(v, "\n") && (strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || isWinAbs(v))
}

// pathCandidates splits an argument into the parts that may be paths:
// the whole word, and pieces after = : , in option values and mounts. It
// appends them to out.
func pathCandidates(v string, out []string) []string {
	if v == "" || strings.Contains(v, "://") || len(v) > 4096 {
		return out
	}
	// (Each byte looked for on its own: these are ASCII, and
	// strings.ContainsAny costs more for short sets.)
	sep := strings.IndexByte(v, '=') >= 0 || strings.IndexByte(v, ':') >= 0
	if strings.HasPrefix(v, "-") && !sep {
		return out
	}
	if !strings.HasPrefix(v, "-") && (strings.IndexByte(v, ' ') < 0 && strings.IndexByte(v, '\n') < 0 || spacedPath(v)) {
		out = append(out, v)
	}
	if sep || strings.IndexByte(v, ',') >= 0 {
		// The non-empty pieces between the separators (all ASCII).
		for start, i := 0, 0; i <= len(v); i++ {
			if i < len(v) && v[i] != '=' && v[i] != ':' && v[i] != ',' {
				continue
			}
			piece := v[start:i]
			start = i + 1
			if piece != "" && piece != v && (strings.HasPrefix(piece, "/") || strings.HasPrefix(piece, "~") || strings.HasPrefix(piece, ".")) && !strings.ContainsAny(piece, " \n") {
				out = append(out, piece)
			}
		}
	}
	return out
}

// write judges one write target of a command.
func (j *judge) write(c *shell.Command, w shell.Word, verb string) {
	e := j.env
	if w.Proc {
		return
	}
	if c.Dialect != shell.Sh && j.registryWrite(c, w) {
		return
	}
	if w.Dynamic {
		if pre, ok := e.dynamicPrefixPath(c, w); ok {
			if j.dynamicWrite(c, w, pre, verb) {
				return
			}
		}
		j.hit(c, ruleDynamicTarget, "%s %s, a path only known at run time", verb, w.Value)
		return
	}
	if w.Glob && strings.ContainsAny(w.Value, "*?[") {
		j.globWrite(c, w, verb)
		return
	}
	p, ok := e.resolve(c, w)
	if !ok {
		j.hit(c, ruleDynamicTarget, "%s %s in a directory only known at run time", verb, w.Value)
		return
	}
	j.writePath(c, p, verb)
}

func (j *judge) writePath(c *shell.Command, p, verb string) {
	name := ""
	if len(c.Args) > 0 {
		name = c.Name()
	}
	for l, target := range j.links {
		if name == "ln" || p == l && slices.Contains([]string{"rm", "unlink", "mv"}, name) {
			break
		}
		if under(p, l) && l != target {
			// A link the script made: the write lands at its target.
			real := target + p[len(l):]
			if kind, _ := j.env.writeKind(real); kind != pathFine {
				delete(j.links, l) // no loops
				j.writePath(c, real, verb+" (through the link "+l+")")
				j.links[l] = target
				return
			}
		}
	}
	kind, what := j.env.writeKind(p)
	if kind == pathFine {
		if real, ok := j.env.throughLinks(p, !linkItself(c)); ok {
			// A link on disk: the write lands where it leads.
			if k, _ := j.env.writeKind(real); k != pathFine {
				j.writePath(c, real, verb+" (through the symbolic link "+p+")")
				return
			}
		}
	}
	switch kind {
	case pathDevice:
		j.hit(c, ruleDeviceWrite, "%s the device %s", verb, what)
	case pathSensitive:
		j.hit(c, ruleCredentialPath, "%s %s, a credential path", verb, what)
	case pathSystem:
		j.hit(c, ruleSystemWrite, "%s %s, a system directory", verb, p)
	case pathProtected:
		j.hit(c, ruleProtectedWrite, "%s %s, which is write-protected (%s)", verb, p, what)
	case pathOutside:
		j.hit(c, ruleWriteOutsideRoots, "%s %s, outside the writable roots", verb, p)
	}
}

// dynamicWrite judges a write to a path whose beginning is known; it
// reports whether it found something.
func (j *judge) dynamicWrite(c *shell.Command, w shell.Word, pre, verb string) bool {
	e := j.env
	if s, ok := e.dynamicSensitive(c, w); ok {
		j.hit(c, ruleCredentialPath, "%s %s, which may be the credential path %s", verb, w.Value, s)
		return true
	}
	if strings.HasPrefix(pre, "/dev/") && !strings.HasPrefix(pre, "/dev/fd/") {
		j.hit(c, ruleDeviceWrite, "%s %s, a device", verb, w.Value)
		return true
	}
	dir := pre[:strings.LastIndexByte(pre, '/')+1]
	if dir == "/" {
		j.hit(c, ruleSystemWrite, "%s %s, which may be any top-level system directory", verb, w.Value)
		return true
	}
	d := strings.TrimSuffix(dir, "/")
	if _, in := e.inRoot(d); in {
		return false
	}
	if s, ok := e.isSystem(d); ok {
		j.hit(c, ruleSystemWrite, "%s %s, under the system directory %s", verb, w.Value, s)
		return true
	}
	for _, s := range e.system {
		if prefixHits(pre, s) {
			j.hit(c, ruleSystemWrite, "%s %s, which may be the system directory %s", verb, w.Value, s)
			return true
		}
	}
	if len(e.roots) > 0 {
		for _, r := range e.roots {
			if under(r, d) {
				return false // the value may still lead into a root
			}
		}
		j.hit(c, ruleWriteOutsideRoots, "%s %s, outside the writable roots", verb, w.Value)
		return true
	}
	return false
}

// globWrite judges a write to a pattern: risky when it can match a
// system or credential path, or anything outside the roots.
func (j *judge) globWrite(c *shell.Command, w shell.Word, verb string) {
	e := j.env
	pat := w.Value
	if strings.HasPrefix(pat, "~/") && e.home != "" {
		pat = e.home + pat[1:]
	}
	if !path.IsAbs(pat) {
		if !c.DirKnown {
			j.hit(c, ruleDynamicTarget, "%s %s in a directory only known at run time", verb, w.Value)
			return
		}
		pat = path.Join(c.Dir, pat)
	}
	if s, ok := e.globSensitive(pat); ok {
		j.hit(c, ruleCredentialPath, "%s %s, which can match the credential path %s", verb, w.Value, s)
		return
	}
	// The static directory before the first pattern character: what the
	// pattern matches lies in it, unless a .. or .* component leads out.
	static := pat[:strings.IndexAny(pat, "*?[")]
	dir := static[:strings.LastIndexByte(static, '/')+1]
	leaves := strings.Contains(pat[len(dir):], "/..") || strings.Contains(pat[len(dir):], ".*/")
	if _, inRoot := e.inRoot(strings.TrimSuffix(dir, "/")); !inRoot || leaves || dir == "/" {
		// A pattern in a writable root matches only there, wherever the
		// root lies (a project under /srv or /opt is a project).
		for _, s := range e.system {
			if globHits(pat, s) {
				j.hit(c, ruleSystemWrite, "%s %s, which can match the system directory %s", verb, w.Value, s)
				return
			}
		}
	}
	if leaves {
		j.hit(c, ruleDynamicTarget, "%s %s, a pattern that may leave its directory", verb, w.Value)
		return
	}
	j.writePath(c, strings.TrimSuffix(dir, "/")+"/x", verb)
}

// isCleanRel reports whether v is not empty and has no . or ..
// component and no // (a leading or trailing / is allowed): one pass
// over its components.
func isCleanRel(v string) bool {
	if v == "" {
		return false
	}
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] != '/' {
			continue
		}
		switch comp := v[start:i]; comp {
		case ".", "..":
			return false
		case "":
			if start > 0 && i < len(v) {
				return false // an empty component between two /
			}
		}
		start = i + 1
	}
	return true
}
