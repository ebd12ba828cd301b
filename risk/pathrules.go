package risk

import (
	"path"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// noPathArgs are commands whose arguments are never opened as files.
var noPathArgs = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, "basename": true, "dirname": true,
	"realpath": true, "readlink": true, "which": true, "type": true, "command": true, "true": true, "false": true, ":": true,
	"export": true, "declare": true, "local": true, "alias": true, "hash": true, "man": true, "whatis": true, "apropos": true,
	"info": true, "write-output": true, "write-host": true, "echo.": true, "set": true, "unset": true, "cd": true,
	"pushd": true, "whereis": true, "stat": true, "ls": true, "file": true, "du": true, "exit": true, "return": true}

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
	for _, w := range writeTargets(c) {
		j.write(c, w, c.Name()+" writes")
	}
	name := c.Name()
	if c.Dialect == shell.Sh && j.env.home != "" {
		for _, rel := range implicitWrites(c) {
			j.writePath(c, path.Join(j.env.home, rel), name+" writes")
		}
	}
	if name == "curl" && c.Dialect == shell.Sh {
		for _, w := range curlReads(c.Args) {
			j.read(c, w)
		}
	}
	if c.Dialect == shell.Sh && noPathArgs[name] || c.Dialect != shell.Sh && oneOf(strings.ToLower(name), "echo", "write-output", "write-host", "echo.") {
		return
	}
	for _, a := range c.Args[1:] {
		j.read(c, a)
	}
	j.recursiveRead(c)
}

// recursiveRead flags commands that read whole directory trees (tar,
// zip -r, cp -r, rsync -r, grep -r, rg) given a directory that holds a
// credential path (the home directory, /).
func (j *judge) recursiveRead(c *shell.Command) {
	if c.Dialect != shell.Sh {
		return
	}
	args := c.Args
	name := c.Name()
	var ops []shell.Word
	base := ""
	switch name {
	case "tar", "bsdtar", "gtar":
		if !tarCreates(args) {
			return
		}
		ops = (&shell.ArgSpec{Short: "fCTXbHgKLNVIF", Long: []string{"file", "directory", "files-from", "exclude-from", "exclude", "transform", "format", "owner", "group", "mode", "mtime", "use-compress-program"}}).Operands(args)
		if len(args) > 1 && !strings.HasPrefix(args[1].Value, "-") && len(ops) > 0 {
			ops = ops[1:] // the old-style flags word
		}
		if d, ok := anyArgs.Value(args, "C", "directory"); ok && !d.Dynamic {
			base = d.Value
		}
	case "zip":
		if !anyArgs.Has(args, "r", "recurse-paths") {
			return
		}
		ops = (&shell.ArgSpec{Short: "bnPtTxi", Long: []string{"temp-path", "suffixes", "password", "exclude", "include"}}).Operands(args)
		if len(ops) > 0 {
			ops = ops[1:]
		}
	case "cp", "scp", "rsync", "ditto":
		if name != "ditto" && !anyArgs.Has(args, "rRa", "recursive", "archive") {
			return
		}
		ops = (&shell.ArgSpec{Short: "tSbmogfeBTM", Long: []string{"target-directory", "suffix", "exclude", "include", "filter", "rsh"}}).Operands(args)
		if len(ops) > 1 {
			ops = ops[:len(ops)-1]
		}
	case "find":
		// find DIR … -exec cat {} ;: every file found is read.
		reads := false
		for i, a := range args {
			if oneOf(a.Value, "-exec", "-execdir", "-ok", "-okdir") && i+1 < len(args) {
				reads = reads || oneOf(shell.CommandName(args[i+1].Value), "cat", "head", "tail", "less", "more", "grep", "egrep", "rg", "cp", "base64", "xxd", "od", "hexdump", "strings", "tar", "zip", "curl", "nc", "scp", "rsync", "sh", "bash", "python", "python3", "perl", "awk", "sed", "tee", "dd", "openssl", "gpg")
			}
		}
		if !reads {
			return
		}
		for _, a := range args[1:] {
			if strings.HasPrefix(a.Value, "-") || a.Value == "!" || a.Value == "(" {
				break
			}
			ops = append(ops, a)
		}
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "git-grep":
		if (name == "grep" || name == "egrep" || name == "fgrep") && !anyArgs.Has(args, "rR", "recursive", "dereference-recursive") {
			return
		}
		ops = (&shell.ArgSpec{Short: "efABCmgtTM", Long: []string{"regexp", "file", "after-context", "before-context", "context", "max-count", "glob", "type", "type-not", "max-depth", "include", "exclude"}}).Operands(args)
		if _, ok := anyArgs.Value(args, "e", "regexp"); !ok && len(ops) > 0 {
			if _, ok := anyArgs.Value(args, "f", "file"); !ok {
				ops = ops[1:] // the pattern
			}
		}
	default:
		return
	}
	for _, o := range ops {
		if o.Dynamic || o.Glob {
			continue
		}
		v := o.Value
		if base != "" && !path.IsAbs(v) && !strings.HasPrefix(v, "~") {
			v = path.Join(base, v)
		}
		p, ok := j.env.resolve(c, shell.Static(v))
		if !ok {
			continue
		}
		for s := range j.env.allSensitive {
			if under(s, p) {
				j.hit(c, ruleCredentialPath, "%s reads %s, which holds the credential path %s", name, p, s)
				return
			}
		}
	}
}

// tarCreates reports whether tar writes an archive (and so reads the
// files named).
func tarCreates(args []shell.Word) bool {
	for i, a := range args[1:] {
		v := a.Value
		if strings.HasPrefix(v, "--") {
			if oneOf(v, "--create", "--append", "--update") {
				return true
			}
			continue
		}
		if (strings.HasPrefix(v, "-") || i == 0) && strings.ContainsAny(v, "cru") && !strings.ContainsAny(v, "x") {
			return true
		}
	}
	return false
}

// read flags arguments and input redirections that name credential
// paths.
func (j *judge) read(c *shell.Command, w shell.Word) {
	e := j.env
	if w.Proc {
		return
	}
	if w.Dynamic {
		if pre, ok := e.dynamicPrefixPath(c, w); ok {
			for s := range e.allSensitive {
				if prefixHits(pre, s) {
					j.hit(c, ruleCredentialPath, "reads %s, a credential path", s)
					return
				}
			}
		}
		return
	}
	for _, cand := range pathCandidates(w.Value) {
		if w.Glob && strings.ContainsAny(cand, "*?[") {
			pat := cand
			if strings.HasPrefix(pat, "~/") && e.home != "" {
				pat = e.home + pat[1:]
			} else if !path.IsAbs(pat) && c.DirKnown {
				pat = path.Join(c.Dir, pat)
			}
			for s := range e.allSensitive {
				if path.IsAbs(pat) && globHits(pat, s) {
					j.hit(c, ruleCredentialPath, "the pattern %s can match %s, a credential path", cand, s)
					return
				}
			}
			continue
		}
		if s, ok := e.sensitiveRel(c, cand); ok {
			j.hit(c, ruleCredentialPath, "reads %s, a credential path", s)
			return
		}
		if !needsResolve(cand) {
			continue
		}
		p, ok := e.resolve(c, shell.Static(cand))
		if !ok {
			continue
		}
		if s, ok := e.isSensitive(p); ok {
			j.hit(c, ruleCredentialPath, "reads %s, a credential path", s)
			return
		}
	}
}

// pathCandidates splits an argument into the parts that may be paths:
// the whole word, and pieces after = : , in option values and mounts.
func pathCandidates(v string) []string {
	if v == "" || strings.Contains(v, "://") || len(v) > 4096 {
		return nil
	}
	if strings.HasPrefix(v, "-") && !strings.ContainsAny(v, "=:") {
		return nil
	}
	var out []string
	if !strings.HasPrefix(v, "-") && !strings.ContainsAny(v, " \n") {
		out = append(out, v)
	}
	if strings.ContainsAny(v, "=:,") {
		for _, piece := range strings.FieldsFunc(v, func(r rune) bool { return r == '=' || r == ':' || r == ',' }) {
			if piece != v && (strings.HasPrefix(piece, "/") || strings.HasPrefix(piece, "~") || strings.HasPrefix(piece, ".")) && !strings.ContainsAny(piece, " \n") {
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
		if name == "ln" || p == l && oneOf(name, "rm", "unlink", "mv") {
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
	for s := range e.allSensitive {
		if prefixHits(pre, s) {
			j.hit(c, ruleCredentialPath, "%s %s, under the credential path %s", verb, w.Value, s)
			return true
		}
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
	for s := range e.allSensitive {
		if globHits(pat, s) {
			j.hit(c, ruleCredentialPath, "%s %s, which can match the credential path %s", verb, w.Value, s)
			return
		}
	}
	for _, s := range e.system {
		if globHits(pat, s) {
			j.hit(c, ruleSystemWrite, "%s %s, which can match the system directory %s", verb, w.Value, s)
			return
		}
	}
	// The static directory before the first pattern character.
	static := pat[:strings.IndexAny(pat, "*?[")]
	dir := static[:strings.LastIndexByte(static, '/')+1]
	if strings.Contains(pat[len(dir):], "/..") || strings.Contains(pat[len(dir):], ".*/") {
		j.hit(c, ruleDynamicTarget, "%s %s, a pattern that may leave its directory", verb, w.Value)
		return
	}
	j.writePath(c, strings.TrimSuffix(dir, "/")+"/x", verb)
}

// writeTargets lists the files a command writes to or deletes, by name.
func writeTargets(c *shell.Command) []shell.Word {
	if c.Dialect != shell.Sh {
		return psTargets(c)
	}
	out := namedTargets(c)
	return append(out, outputOptions(c)...)
}

// outputLong are long options that name a file or directory a command
// writes, whatever the command ("--output json" names a format: a
// relative name is harmless anyway).
var outputLong = []string{"output", "output-file", "out-file", "outfile", "log-file", "logfile",
	"output-dir", "out-dir", "outdir", "output-directory", "pack-destination", "dump-dir",
	"log", "target-directory", "keyout", "save-to"}

// outputShort are the commands whose -o FILE is the file they write.
var outputShort = map[string]bool{"gcc": true, "g++": true, "cc": true, "c++": true, "clang": true, "clang++": true,
	"rustc": true, "ld": true, "as": true, "nvcc": true, "zig": true, "tinygo": true, "swiftc": true, "ghc": true,
	"gfortran": true, "pandoc": true, "gpg": true, "gpg2": true, "patch": true, "iconv": true, "uudecode": true,
	"strace": true, "ltrace": true, "time": true, "gtime": true, "valgrind": true, "perf": true, "wasm-ld": true,
	"protoc": true, "javac": true, "kotlinc": true, "objcopy": true, "strip": true, "dot": true, "mmdc": true,
	"msgfmt": true, "flex": true, "bison": true, "yacc": true, "esbuild": true, "xz": true, "zstd": true}

// outputOptions are the output files named by options of commands the
// table of namedTargets does not know: --output FILE and its kin for any
// command, -o FILE for the commands of outputShort, -out/-keyout for
// openssl, and the installation targets of package managers.
func outputOptions(c *shell.Command) []shell.Word {
	args := c.Args
	name := c.Name()
	var out []shell.Word
	longs := false
	for _, a := range args[1:] {
		if strings.HasPrefix(a.Prefix, "--") || a.Dynamic && strings.HasPrefix(a.Value, "--") {
			longs = true
			break
		}
	}
	for _, l := range outputLong {
		if !longs {
			break
		}
		for _, w := range anyArgs.Values(args, "", l, 4) {
			if w.Dynamic || w.Value != "-" {
				out = append(out, w)
			}
		}
	}
	switch {
	case outputShort[name] || name == "go" && len(args) > 1 && oneOf(args[1].Value, "build", "test") || name == "docker" && hasWord(args, "save", "export") || name == "git" && hasWord(args, "archive", "format-patch"):
		for _, w := range anyArgs.Values(args, "o", "", 4) {
			if !w.Dynamic && strings.HasPrefix(w.Value, "=") {
				w.Value, w.Prefix = w.Value[1:], w.Value[1:]
			}
			if w.Dynamic || w.Value != "-" {
				out = append(out, w)
			}
		}
	case name == "ssh" || name == "scp" || name == "sftp":
		out = append(out, anyArgs.Values(args, "E", "", 2)...)
	case name == "git" && hasWord(args, "bundle") && hasWord(args, "create"):
		for i := 1; i+1 < len(args); i++ {
			if args[i].Value == "create" {
				out = append(out, args[i+1])
				break
			}
		}
	case name == "openssl":
		for i := 1; i+1 < len(args); i++ {
			if oneOf(args[i].Value, "-out", "-keyout", "-certout") {
				out = append(out, args[i+1])
			}
		}
	case name == "pip" || name == "pip3" || name == "uv" && hasWord(args, "pip"):
		for _, o := range [][2]string{{"t", "target"}, {"", "prefix"}, {"", "root"}, {"", "src"}} {
			out = append(out, anyArgs.Values(args, o[0], o[1], 2)...)
		}
	case name == "npm" || name == "pnpm" || name == "yarn":
		out = append(out, anyArgs.Values(args, "", "prefix", 2)...)
		out = append(out, anyArgs.Values(args, "", "cwd", 2)...)
	case name == "cargo":
		out = append(out, anyArgs.Values(args, "", "root", 2)...)
		out = append(out, anyArgs.Values(args, "", "target-dir", 2)...)
	}
	// Installers told where to install by the environment.
	for _, a := range c.Assigns {
		switch a.Name {
		case "GOBIN", "CARGO_HOME", "CARGO_INSTALL_ROOT", "PIP_TARGET", "PIP_PREFIX", "npm_config_prefix", "NPM_CONFIG_PREFIX", "PREFIX", "DESTDIR":
			if installs(c) {
				out = append(out, a.Value)
			}
		}
	}
	return out
}

// installs reports whether a command installs programs or packages.
func installs(c *shell.Command) bool {
	args := c.Args
	switch c.Name() {
	case "go", "cargo", "pip", "pip3", "npm", "pnpm", "yarn", "gem":
		return hasWord(args, "install", "i", "add", "get")
	case "make", "gmake", "cmake", "ninja", "meson":
		return hasWord(args, "install")
	}
	return false
}

// namedTargets lists the files a command writes to or deletes, by name.
func namedTargets(c *shell.Command) []shell.Word {
	args := c.Args
	name := c.Name()
	switch name {
	case "rm", "rmdir", "unlink", "shred", "touch", "mkfifo", "wipe", "srm", "chattr", "setfacl", "rename", "fallocate":
		return (&shell.ArgSpec{Short: "mdtrnsl", Long: []string{"reference", "iterations", "size", "mode", "date", "context"}}).Operands(args)
	case "mkdir":
		return (&shell.ArgSpec{Short: "m", Long: []string{"mode", "context"}}).Operands(args)
	case "mknod":
		if ops := (&shell.ArgSpec{Short: "m", Long: []string{"mode"}}).Operands(args); len(ops) > 0 {
			return ops[:1]
		}
	case "truncate":
		return (&shell.ArgSpec{Short: "sr", Long: []string{"size", "reference"}}).Operands(args)
	case "chmod", "chown", "chgrp":
		ops := anyArgs.Operands(args)
		if anyArgs.Has(args, "", "reference") {
			return ops
		}
		if len(ops) > 1 {
			return ops[1:]
		}
	case "cp", "mv", "install", "ln", "rsync", "scp", "ditto":
		return copyTargets(c)
	case "tee":
		return anyArgs.Operands(args)
	case "dd":
		for _, a := range args[1:] {
			if strings.HasPrefix(a.Value, "of=") {
				w := a
				w.Value = a.Value[3:]
				if w.Dynamic {
					w.Prefix = strings.TrimPrefix(a.Prefix, "of=")
				} else {
					w.Prefix = w.Value
				}
				return []shell.Word{w}
			}
		}
	case "sed", "gsed":
		if !inPlace(args) {
			return nil
		}
		ops := (&shell.ArgSpec{Short: "efl", Long: []string{"expression", "file", "line-length"}}).Operands(args)
		if _, ok := anyArgs.Value(args, "e", "expression"); !ok {
			if _, ok := anyArgs.Value(args, "f", "file"); !ok && len(ops) > 0 {
				ops = ops[1:]
			}
		}
		return ops
	case "perl", "ruby":
		if !inPlace(args) {
			return nil
		}
		ops := (&shell.ArgSpec{Short: "eEIMm"}).Operands(args)
		if _, ok := anyArgs.Value(args, "e", ""); !ok && len(ops) > 0 {
			ops = ops[1:]
		}
		return ops
	case "curl":
		return curlTargets(args)
	case "wget":
		var out []shell.Word
		for _, o := range [][2]string{{"O", "output-document"}, {"P", "directory-prefix"}, {"o", "output-file"}, {"a", "append-output"}, {"", "save-cookies"}} {
			for _, w := range anyArgs.Values(args, o[0], o[1], 0) {
				if w.Dynamic || w.Value != "-" {
					out = append(out, w)
				}
			}
		}
		return out
	case "7z", "7za", "7zr", "7zz":
		for _, a := range args[1:] {
			if strings.HasPrefix(a.Prefix, "-o") {
				w := a
				w.Value, w.Prefix = a.Value[2:], a.Prefix[2:]
				return []shell.Word{w}
			}
		}
	case "cpio":
		if anyArgs.Has(args, "i", "extract") {
			if w, ok := anyArgs.Value(args, "D", "directory"); ok {
				return []shell.Word{w}
			}
		}
	case "find":
		var out []shell.Word
		for i := 1; i+1 < len(args); i++ {
			if oneOf(args[i].Value, "-fprint", "-fprint0", "-fprintf", "-fls") {
				out = append(out, args[i+1])
			}
		}
		return out
	case "tar", "bsdtar", "gtar":
		return tarTargets(args)
	case "unzip":
		if w, ok := anyArgs.Value(args, "d", "exdir"); ok {
			return []shell.Word{w}
		}
	case "sort", "uniq":
		if w, ok := anyArgs.Value(args, "o", "output"); ok {
			return []shell.Word{w}
		}
	case "zip":
		// zip ARCHIVE FILES…: the archive is written.
		if ops := (&shell.ArgSpec{Short: "bnPtTxi", Long: []string{"temp-path", "suffixes", "password", "exclude", "include"}}).Operands(args); len(ops) > 0 {
			return ops[:1]
		}
	case "sqlite3", "duckdb":
		if ops := (&shell.ArgSpec{Long: []string{"init", "cmd", "separator", "newline", "nullvalue"}}).Operands(args); len(ops) > 0 {
			return ops[:1]
		}
	case "split", "csplit":
		ops := (&shell.ArgSpec{Short: "abCdlnft", Long: []string{"prefix", "suffix-length", "bytes", "line-bytes", "lines", "number", "additional-suffix", "digits", "suffix-format"}}).Operands(args)
		if name == "csplit" {
			if w, ok := anyArgs.Value(args, "f", "prefix"); ok {
				return []shell.Word{w}
			}
			return []shell.Word{shell.Static("xx")}
		}
		if len(ops) > 1 {
			return ops[1:2]
		}
	case "xxd":
		if anyArgs.Has(args, "r", "revert") {
			if ops := (&shell.ArgSpec{Short: "cglosn"}).Operands(args); len(ops) > 1 {
				return ops[1:2]
			}
		}
	case "patch":
		ops := (&shell.ArgSpec{Short: "pbBdDiFgoVrYzZ", Long: []string{"strip", "directory", "input", "output", "reject-file", "prefix", "suffix", "backup-if-mismatch", "version-control", "fuzz"}}).Operands(args)
		if len(ops) > 0 {
			return ops[:1]
		}
	case "yq":
		if anyArgs.Has(args, "i", "inplace") {
			ops := (&shell.ArgSpec{Short: "eIops", Long: []string{"expression", "output-format", "input-format", "indent", "split-exp"}}).Operands(args)
			if len(ops) > 1 {
				return ops[1:]
			}
		}
	case "convert", "magick", "ffmpeg":
		// The last operand is the output.
		if ops := anyArgs.Operands(args); len(ops) > 1 {
			return ops[len(ops)-1:]
		}
	case "docker", "podman", "kubectl":
		if len(args) > 3 && (args[1].Value == "cp") {
			if ops := anyArgs.Operands(args[1:]); len(ops) >= 2 && !remote(ops[len(ops)-1]) {
				return ops[len(ops)-1:]
			}
		}
	case "sftp":
		if ops := (&shell.ArgSpec{Short: "BbcDFiloPRsS"}).Operands(args); len(ops) == 2 {
			return ops[1:]
		}
	case "ssh-keygen":
		if w, ok := anyArgs.Value(args, "f", ""); ok && !anyArgs.Has(args, "lyFRB") {
			return []shell.Word{w}
		}
	case "git":
		return gitTargets(c)
	case "vi", "vim", "nvim", "nano", "emacs", "ed", "pico", "joe", "micro", "hx", "kak", "mcedit", "gedit", "code", "subl":
		return (&shell.ArgSpec{Short: "cST", Long: []string{"cmd"}}).Operands(args)
	case "script":
		ops := (&shell.ArgSpec{Short: "cETIOBm", Long: []string{"command", "echo", "log-timing", "log-in", "log-out", "log-io", "logging-format"}}).Operands(args)
		if len(ops) > 0 {
			return ops[:1]
		}
	case "useradd", "adduser", "userdel", "deluser", "usermod", "groupadd", "addgroup", "groupdel", "delgroup", "groupmod", "gpasswd", "newusers", "vipw", "vigr", "chsh", "chfn":
		// Accounts live in /etc/passwd and /etc/group.
		return []shell.Word{shell.Static("/etc/passwd")}
	case "passwd", "chpasswd", "chage":
		return []shell.Word{shell.Static("/etc/shadow")}
	case "visudo":
		return []shell.Word{shell.Static("/etc/sudoers")}
	case "takeown":
		for i := 1; i < len(args)-1; i++ {
			if strings.EqualFold(args[i].Value, "/f") {
				return []shell.Word{args[i+1]}
			}
		}
	}
	return nil
}

func inPlace(args []shell.Word) bool {
	for _, a := range args[1:] {
		v := a.Value
		if v == "--" {
			return false
		}
		if strings.HasPrefix(v, "--in-place") {
			return true
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.Contains(v, "i") {
			// -i, -i.bak, -pi, -Ei; -e'…' scripts do not count.
			if k := strings.IndexAny(v[1:], "ef"); k >= 0 && k < strings.Index(v[1:], "i") {
				continue
			}
			return true
		}
	}
	return false
}

// copySpecs are the options of the copying tools that take a value.
var copySpecs = map[string]*shell.ArgSpec{
	"cp":      {Short: "St", Long: []string{"suffix", "target-directory", "sparse", "no-preserve"}},
	"mv":      {Short: "St", Long: []string{"suffix", "target-directory"}},
	"ln":      {Short: "St", Long: []string{"suffix", "target-directory"}},
	"install": {Short: "gmoSt", Long: []string{"group", "mode", "owner", "suffix", "target-directory", "strip-program"}},
	"rsync": {Short: "eBfTM@", Long: []string{"rsh", "exclude", "include", "filter", "files-from", "exclude-from", "include-from",
		"temp-dir", "partial-dir", "backup-dir", "compare-dest", "copy-dest", "link-dest", "rsync-path", "chown", "chmod",
		"log-file", "password-file", "port", "suffix", "block-size", "max-size", "min-size", "bwlimit", "timeout", "contimeout",
		"modify-window", "remote-option", "usermap", "groupmap", "log-file-format", "out-format", "sockopts", "address",
		"iconv", "max-delete", "max-alloc", "stop-after", "stop-at", "write-batch", "only-write-batch", "read-batch",
		"protocol", "checksum-choice", "compress-choice", "compress-level", "skip-compress", "debug", "info"}},
	"scp":   {Short: "cDFiJloPSX"},
	"ditto": {},
}

// copyTargets is the destination of cp/mv/install/ln/rsync/scp, and for
// mv (and rsync --remove-source-files) the sources too.
func copyTargets(c *shell.Command) []shell.Word {
	args := c.Args
	name := c.Name()
	if w, ok := anyArgs.Value(args, "t", "target-directory"); ok {
		out := []shell.Word{w}
		if name == "mv" {
			out = append(out, copySpecs[name].Operands(args)...)
		}
		return out
	}
	ops := copySpecs[name].Operands(args)
	if name == "install" && anyArgs.Has(args, "d", "directory") {
		return ops
	}
	if len(ops) == 0 {
		return nil
	}
	if len(ops) == 1 {
		if name == "ln" {
			return []shell.Word{shell.Static(path.Base(ops[0].Value))}
		}
		return nil
	}
	dst := ops[len(ops)-1]
	var out []shell.Word
	if !remote(dst) {
		out = append(out, dst)
	}
	if name == "mv" || (name == "rsync" && anyArgs.Has(args, "", "remove-source-files", "remove-sent-files")) {
		for _, s := range ops[:len(ops)-1] {
			if !remote(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// remote reports whether an rsync/scp operand names another host.
func remote(w shell.Word) bool {
	if w.Dynamic {
		return false
	}
	i := strings.IndexByte(w.Value, ':')
	if i <= 0 {
		return false
	}
	s := strings.IndexByte(w.Value, '/')
	return s < 0 || i < s
}

func tarTargets(args []shell.Word) []shell.Word {
	extract, create := false, false
	for i, a := range args[1:] {
		v := a.Value
		if strings.HasPrefix(v, "--") {
			switch v {
			case "--extract", "--get":
				extract = true
			case "--create", "--append", "--update":
				create = true
			}
			continue
		}
		if strings.HasPrefix(v, "-") || i == 0 {
			if strings.ContainsAny(v, "x") {
				extract = true
			}
			if strings.ContainsAny(v, "cru") {
				create = true
			}
		}
	}
	var out []shell.Word
	if extract {
		if w, ok := anyArgs.Value(args, "C", "directory"); ok {
			out = append(out, w)
		}
		if anyArgs.Has(args, "", "absolute-names") || tarOldFlag(args, 'P') || anyArgs.Has(args, "P") {
			// Absolute names in the archive are kept: it may write
			// anywhere.
			out = append(out, shell.Word{Value: "the absolute paths the archive holds", Dynamic: true})
		}
	}
	if create {
		if w, ok := anyArgs.Value(args, "f", "file"); ok && w.Value != "-" {
			out = append(out, w)
		}
	}
	return out
}

// needsResolve reports whether a candidate path has parts (~, .., ., //,
// a Windows drive) that sensitiveRel does not handle.
func needsResolve(v string) bool {
	if strings.HasPrefix(v, "~") || isWinAbs(v) {
		return true
	}
	return !isCleanRel(v)
}

func isCleanRel(v string) bool {
	if v == "" || v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasSuffix(v, "/.") || strings.HasSuffix(v, "/..") || strings.Contains(v, "//") || strings.Contains(v, "/./") || strings.Contains(v, "/../") {
		return false
	}
	return true
}

// sensitiveRel checks a clean absolute path, or a clean relative path
// against the command's directory, without building the joined path.
func (e *env) sensitiveRel(c *shell.Command, v string) (string, bool) {
	if len(v) > 1 {
		v = strings.TrimRight(v, "/")
		if v == "" {
			v = "/"
		}
	}
	if !isCleanRel(v) || strings.HasPrefix(v, "~") {
		return "", false
	}
	if v[0] == '/' {
		if isClean(v) {
			return e.isSensitive(v)
		}
		return "", false
	}
	if !c.DirKnown {
		return "", false
	}
	dir := c.Dir
	v = strings.TrimSuffix(v, "/")
	var hit string
	for s := range e.allSensitive {
		// dir/v is under s when dir is under s, or when s lies below dir
		// and v starts with the rest of s.
		if under(dir, s) {
			hit = s
			break
		}
		if strings.HasPrefix(s, dir) && len(s) > len(dir) && (s[len(dir)] == '/' || dir == "/") {
			rest := strings.TrimPrefix(s[len(dir):], "/")
			if under(v, rest) {
				hit = s
				break
			}
		}
	}
	return hit, hit != ""
}

// curlTargets are the files curl writes: -o (each of them, under
// --output-dir when given), -O names under --output-dir, the header,
// cookie and trace files.
func curlTargets(args []shell.Word) []shell.Word {
	var out []shell.Word
	dir, hasDir := anyArgs.Value(args, "", "output-dir")
	if hasDir {
		out = append(out, dir)
	}
	for _, w := range anyArgs.Values(args, "o", "output", 0) {
		if !w.Dynamic && w.Value == "-" {
			continue
		}
		if hasDir && !w.Dynamic && !dir.Dynamic && !path.IsAbs(w.Value) {
			j := path.Join(dir.Value, w.Value)
			w = shell.Word{Value: j, Prefix: j}
		}
		out = append(out, w)
	}
	for _, o := range [][2]string{{"D", "dump-header"}, {"c", "cookie-jar"}, {"", "trace"}, {"", "trace-ascii"}, {"", "stderr"}, {"", "libcurl"}, {"", "etag-save"}, {"", "hsts"}, {"", "alt-svc"}} {
		for _, w := range anyArgs.Values(args, o[0], o[1], 0) {
			if w.Dynamic || w.Value != "-" && w.Value != "%" {
				out = append(out, w)
			}
		}
	}
	return out
}

// curlReads are the files curl sends or reads: @file and <file values
// of the data, form and header options, cookie files, the config.
func curlReads(args []shell.Word) []shell.Word {
	var out []shell.Word
	for _, o := range [][2]string{{"d", "data"}, {"", "data-binary"}, {"", "data-ascii"}, {"", "data-urlencode"}, {"", "json"},
		{"F", "form"}, {"H", "header"}, {"", "proxy-header"}, {"b", "cookie"}, {"w", "write-out"}, {"", "variable"}} {
		for _, w := range anyArgs.Values(args, o[0], o[1], 0) {
			v := w.Value
			if w.Dynamic {
				v = w.Prefix
			}
			k := strings.IndexAny(v, "@<")
			if k < 0 {
				if o[0] == "-b" && !strings.ContainsAny(v, "=;") && v != "" {
					out = append(out, w)
				}
				continue
			}
			f := v[k+1:]
			if i := strings.IndexByte(f, ';'); i >= 0 {
				f = f[:i]
			}
			if f == "" || f == "-" {
				continue
			}
			out = append(out, shell.Word{Value: f, Prefix: f, Dynamic: w.Dynamic})
		}
	}
	return out
}

// tarOldFlag reports whether tar's first argument, in the old style
// without a dash (tar xPf a.tar), holds the letter.
func tarOldFlag(args []shell.Word, c byte) bool {
	return len(args) > 1 && !args[1].Dynamic && !strings.HasPrefix(args[1].Value, "-") && strings.IndexByte(args[1].Value, c) >= 0
}

// implicitWrites are the files in the home directory that a command
// changes without naming them: the configuration and credential stores
// of package managers, cloud tools and ssh (home-relative).
func implicitWrites(c *shell.Command) []string {
	args := c.Args
	switch c.Name() {
	case "npm", "pnpm", "yarn", "pip", "pip3", "docker", "podman", "nerdctl", "helm", "gh", "gcloud", "aws", "az", "kubectl", "oc", "ssh-keygen", "cargo", "heroku", "gpg", "gpg2":
	default:
		return nil
	}
	var words []string
	for _, a := range args[1:] {
		if a.Dynamic {
			break
		}
		if !strings.HasPrefix(a.Value, "-") {
			words = append(words, a.Value)
			if len(words) == 3 {
				break
			}
		}
	}
	w := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	switch c.Name() {
	case "npm", "pnpm":
		if loc, ok := anyArgs.Value(args, "L", "location"); ok && loc.Value == "project" || anyArgs.Has(args, "", "userconfig") {
			return nil
		}
		if oneOf(w(0), "login", "adduser", "add-user", "logout") || (oneOf(w(0), "config", "c") && oneOf(w(1), "set", "delete", "edit", "fix")) || w(0) == "set" {
			return []string{".npmrc"}
		}
	case "yarn":
		if (w(0) == "config" && oneOf(w(1), "set", "delete", "unset")) || (w(0) == "npm" && oneOf(w(1), "login", "logout")) || w(0) == "login" {
			return []string{".yarnrc", ".yarnrc.yml"}
		}
	case "pip", "pip3":
		if w(0) == "config" && oneOf(w(1), "set", "unset", "edit") && !anyArgs.Has(args, "", "site") {
			return []string{".config/pip/pip.conf"}
		}
	case "docker", "podman", "nerdctl", "helm":
		if oneOf(w(0), "login", "logout") || c.Name() == "helm" && w(0) == "registry" && oneOf(w(1), "login", "logout") {
			return []string{".docker/config.json"}
		}
	case "gh":
		if w(0) == "auth" && oneOf(w(1), "login", "logout", "refresh", "setup-git", "switch") {
			return []string{".config/gh/hosts.yml"}
		}
	case "gcloud":
		if (w(0) == "auth" && oneOf(w(1), "login", "activate-service-account", "revoke", "application-default")) || (w(0) == "config" && oneOf(w(1), "set", "unset")) {
			return []string{".config/gcloud"}
		}
	case "aws":
		if w(0) == "configure" && (len(words) == 1 || oneOf(w(1), "set", "import", "sso")) || w(0) == "sso" && w(1) == "login" {
			return []string{".aws/config"}
		}
	case "az":
		if oneOf(w(0), "login", "logout") {
			return []string{".azure"}
		}
	case "kubectl", "oc":
		if w(0) == "config" && oneOf(w(1), "set", "set-context", "set-cluster", "set-credentials", "use-context", "use", "delete-context", "delete-cluster", "delete-user", "rename-context", "unset") && !anyArgs.Has(args, "", "kubeconfig") {
			return []string{".kube/config"}
		}
	case "ssh-keygen":
		if _, ok := anyArgs.Value(args, "f", ""); !ok && !anyArgs.Has(args, "lyFBeiDQYkh") {
			return []string{".ssh"}
		}
	case "cargo":
		if oneOf(w(0), "login", "logout") {
			return []string{".cargo/credentials.toml"}
		}
	case "heroku":
		if oneOf(w(0), "login", "logout", "auth:login", "auth:logout") {
			return []string{".netrc"}
		}
	case "gpg", "gpg2":
		if anyArgs.Has(args, "", "import", "gen-key", "generate-key", "full-generate-key", "full-gen-key", "quick-generate-key", "quick-gen-key", "delete-key", "delete-keys", "delete-secret-key", "delete-secret-keys", "delete-secret-and-public-key", "edit-key", "import-ownertrust", "recv-keys", "refresh-keys", "sign-key", "lsign-key") && !anyArgs.Has(args, "", "homedir") {
			return []string{".gnupg"}
		}
	}
	return nil
}

// gitWrites are the git subcommands that change the repository or its
// working tree.
var gitWrites = map[string]bool{"checkout": true, "switch": true, "reset": true, "restore": true, "clean": true,
	"pull": true, "merge": true, "rebase": true, "cherry-pick": true, "revert": true, "am": true, "apply": true,
	"stash": true, "mv": true, "rm": true, "commit": true, "add": true, "worktree": true, "submodule": true,
	"fetch": true, "gc": true, "init": true, "tag": true, "branch": true, "notes": true, "prune": true, "lfs": true}

// gitTargets are the places a git command writes: the new repository of
// clone and init, and the repository (-C DIR, --git-dir, --work-tree or
// the working directory, when known) of a command that changes it.
func gitTargets(c *shell.Command) []shell.Word {
	args := c.Args
	si := gitSub(args)
	if si <= 0 {
		return nil
	}
	globals := args[:si]
	base, dynamic := "", false
	for _, d := range anyArgs.Values(globals, "C", "", 0) {
		if d.Dynamic {
			dynamic = true
			break
		}
		base = path.Join(base, d.Value)
		if path.IsAbs(d.Value) {
			base = d.Value
		}
	}
	at := func(w shell.Word) shell.Word {
		switch {
		case dynamic:
			return shell.Word{Value: "-C " + w.Value, Dynamic: true}
		case base == "" || w.Dynamic || path.IsAbs(w.Value) || strings.HasPrefix(w.Value, "~"):
			return w
		}
		j := path.Join(base, w.Value)
		return shell.Word{Value: j, Prefix: j}
	}
	var out []shell.Word
	sub := args[si].Value
	rest := append([]shell.Word{args[si]}, args[si+1:]...)
	for _, o := range [][2]string{{"", "git-dir"}, {"", "work-tree"}} {
		if w, ok := anyArgs.Value(globals, o[0], o[1]); ok && gitWrites[sub] {
			out = append(out, at(w))
		}
	}
	switch {
	case sub == "clone" || sub == "init":
		ops := (&shell.ArgSpec{Short: "obcju", Long: []string{"origin", "branch", "config", "jobs", "upload-pack", "reference", "separate-git-dir", "depth", "template", "filter", "object-format", "ref-format", "initial-branch", "shared"}}).Operands(rest)
		switch {
		case sub == "clone" && len(ops) >= 2:
			out = append(out, at(ops[len(ops)-1]))
		case sub == "init" && len(ops) >= 1:
			out = append(out, at(ops[len(ops)-1]))
		case sub == "init":
			out = append(out, at(shell.Static(".")))
		}
		if w, ok := anyArgs.Value(rest, "", "separate-git-dir"); ok {
			out = append(out, at(w))
		}
	case gitWrites[sub] && (base != "" || dynamic || c.DirKnown):
		out = append(out, at(shell.Static(".")))
	}
	return out
}
