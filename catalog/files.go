package catalog

import (
	"path"
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Programs that create, change and delete files, and the options of any
// program that name a file it writes.

// gnu are GNU coreutils-style options: unambiguous prefixes of long
// options are accepted.
func gnu(spec shell.ArgSpec) *shell.ArgSpec {
	spec.Abbrev = true
	return &spec
}

var (
	rmArgs       = gnu(shell.ArgSpec{Flags: []string{"force", "interactive", "one-file-system", "no-preserve-root", "preserve-root", "recursive", "dir", "verbose"}})
	rmdirArgs    = gnu(shell.ArgSpec{Flags: []string{"ignore-fail-on-non-empty", "parents", "verbose"}})
	shredArgs    = gnu(shell.ArgSpec{Short: "ns", Long: []string{"iterations", "size", "random-source"}, Flags: []string{"exact", "force", "remove", "verbose", "zero"}})
	touchArgs    = gnu(shell.ArgSpec{Short: "dtr", Long: []string{"date", "reference", "time"}, Flags: []string{"no-create", "no-dereference"}})
	mkdirArgs    = gnu(shell.ArgSpec{Short: "m", Long: []string{"mode"}, Flags: []string{"parents", "verbose", "context"}})
	mknodArgs    = gnu(shell.ArgSpec{Short: "m", Long: []string{"mode"}, Flags: []string{"context"}})
	truncateArgs = gnu(shell.ArgSpec{Short: "sr", Long: []string{"size", "reference"}, Flags: []string{"no-create", "io-blocks"}})
	chmodArgs    = gnu(shell.ArgSpec{Long: []string{"reference"}, Flags: []string{"changes", "silent", "quiet", "verbose", "no-preserve-root", "preserve-root", "recursive"}})
	chownArgs    = gnu(shell.ArgSpec{Long: []string{"reference", "from"}, Flags: []string{"changes", "silent", "quiet", "verbose", "dereference", "no-dereference", "no-preserve-root", "preserve-root", "recursive"}})
	cpArgs       = gnu(shell.ArgSpec{Short: "St", Long: []string{"suffix", "target-directory", "sparse", "no-preserve"}, Flags: []string{"archive", "attributes-only", "backup", "copy-contents", "dereference", "force", "interactive", "link", "no-dereference", "preserve", "parents", "recursive", "reflink", "remove-destination", "strip-trailing-slashes", "symbolic-link", "no-target-directory", "update", "verbose", "one-file-system", "context", "debug", "keep-directory-symlink", "no-clobber"}})
	mvArgs       = gnu(shell.ArgSpec{Short: "St", Long: []string{"suffix", "target-directory"}, Flags: []string{"backup", "force", "interactive", "no-clobber", "strip-trailing-slashes", "no-target-directory", "update", "verbose", "context", "exchange", "no-copy", "debug"}})
	lnArgs       = gnu(shell.ArgSpec{Short: "St", Long: []string{"suffix", "target-directory"}, Flags: []string{"backup", "directory", "force", "interactive", "logical", "no-dereference", "physical", "relative", "symbolic", "no-target-directory", "verbose"}})
	installArgs  = gnu(shell.ArgSpec{Short: "gmoSt", Long: []string{"group", "mode", "owner", "suffix", "target-directory", "strip-program"}, Flags: []string{"backup", "compare", "directory", "preserve-timestamps", "strip", "no-target-directory", "verbose", "preserve-context", "context"}})
	teeArgs      = gnu(shell.ArgSpec{Flags: []string{"append", "ignore-interrupts", "output-error"}})
	sortArgs     = gnu(shell.ArgSpec{Short: "kotST", Long: []string{"key", "output", "field-separator", "buffer-size", "temporary-directory", "files0-from", "batch-size", "parallel", "compress-program", "random-source"}})
	splitArgs    = gnu(shell.ArgSpec{Short: "abCdlnft", Long: []string{"prefix", "suffix-length", "bytes", "line-bytes", "lines", "number", "additional-suffix", "digits", "suffix-format", "separator", "filter"}})
)

func targetsOf(spec *shell.ArgSpec, files bool) *Tool {
	t := &Tool{Tool: shell.Tool{Args: spec}}
	if files {
		t.Writes = func(c *shell.Command) shell.Writes { return shell.Writes{Files: spec.Operands(c.Args)} }
	} else {
		t.Targets = func(c *shell.Command) []shell.Word { return spec.Operands(c.Args) }
	}
	return t
}

var fileTools = map[string]*Tool{
	"rm":        targetsOf(rmArgs, false),
	"rmdir":     targetsOf(rmdirArgs, false),
	"unlink":    targetsOf(&shell.ArgSpec{}, false),
	"shred":     targetsOf(shredArgs, true),
	"wipe":      targetsOf(&shell.ArgSpec{Short: "lSqQTxX"}, true),
	"srm":       targetsOf(&shell.ArgSpec{}, true),
	"touch":     targetsOf(touchArgs, false),
	"mkfifo":    targetsOf(mknodArgs, false),
	"chattr":    {Tool: shell.Tool{Args: &shell.ArgSpec{Short: "vp"}}, Targets: chattrTargets},
	"setfacl":   targetsOf(&shell.ArgSpec{Short: "mMxX", Long: []string{"modify", "modify-file", "remove", "remove-file", "set", "set-file", "restore"}}, false),
	"rename":    targetsOf(&shell.ArgSpec{}, false),
	"fallocate": targetsOf(&shell.ArgSpec{Short: "lo", Long: []string{"length", "offset"}}, true),
	"mkdir":     targetsOf(mkdirArgs, false),
	"mknod":     {Tool: shell.Tool{Args: mknodArgs}, Targets: firstOperand},
	"truncate":  targetsOf(truncateArgs, true),
	"chmod":     {Tool: shell.Tool{Args: chmodArgs}, Targets: modeTargets},
	"chown":     {Tool: shell.Tool{Args: chownArgs}, Targets: modeTargets},
	"chgrp":     {Tool: shell.Tool{Args: chownArgs}, Targets: modeTargets},
	"cp":        {Tool: shell.Tool{Args: cpArgs, Writes: copyWrites}, TreeReads: copyReads},
	"mv":        {Tool: shell.Tool{Args: mvArgs, Writes: copyWrites}},
	"install":   {Tool: shell.Tool{Args: installArgs, Writes: copyWrites}},
	"ln":        {Tool: shell.Tool{Args: lnArgs, Writes: copyWrites}},
	"ditto":     {Tool: shell.Tool{Args: &shell.ArgSpec{}, Writes: copyWrites}, TreeReads: copyReads},
	"grep":      search(grepArgs, true), "egrep": search(grepArgs, true), "fgrep": search(grepArgs, true),
	"rg": search(grepArgs, false), "ag": search(grepArgs, false), "ack": search(grepArgs, false), "git-grep": search(grepArgs, false),
	"tee":     {Tool: shell.Tool{Args: teeArgs, Writes: operandWrites}},
	"sponge":  {Tool: shell.Tool{Args: &shell.ArgSpec{}, Writes: operandWrites}},
	"dd":      {Tool: shell.Tool{Writes: ddWrites}},
	"find":    {Tool: shell.Tool{Follow: followFind}, Targets: findTargets, TreeReads: findReads},
	"sort":    {Tool: shell.Tool{Args: sortArgs, Writes: outputOption}},
	"uniq":    {Tool: shell.Tool{Writes: outputOption}},
	"split":   {Tool: shell.Tool{Args: splitArgs, Writes: splitWrites}},
	"csplit":  {Tool: shell.Tool{Args: splitArgs, Writes: splitWrites}},
	"patch":   {Tool: shell.Tool{Args: patchArgs, Writes: patchWrites}},
	"yq":      {Tool: shell.Tool{Writes: yqWrites}},
	"convert": {Tool: shell.Tool{Writes: lastOperand}},
	"magick":  {Tool: shell.Tool{Writes: lastOperand}},
	"ffmpeg":  {Tool: shell.Tool{Writes: lastOperand}},
	"sqlite3": {Tool: shell.Tool{Args: sqliteArgs, Writes: firstOperandWrites}},
	"duckdb":  {Tool: shell.Tool{Args: sqliteArgs, Writes: firstOperandWrites}},
	// Accounts live in /etc/passwd and /etc/group, passwords in /etc/shadow.
	"useradd": fixedTarget("/etc/passwd"), "adduser": fixedTarget("/etc/passwd"), "userdel": fixedTarget("/etc/passwd"),
	"deluser": fixedTarget("/etc/passwd"), "usermod": fixedTarget("/etc/passwd"), "groupadd": fixedTarget("/etc/passwd"),
	"addgroup": fixedTarget("/etc/passwd"), "groupdel": fixedTarget("/etc/passwd"), "delgroup": fixedTarget("/etc/passwd"),
	"groupmod": fixedTarget("/etc/passwd"), "gpasswd": fixedTarget("/etc/passwd"), "newusers": fixedTarget("/etc/passwd"),
	"vipw": fixedTarget("/etc/passwd"), "vigr": fixedTarget("/etc/passwd"), "chsh": fixedTarget("/etc/passwd"),
	"chfn": fixedTarget("/etc/passwd"), "passwd": fixedTarget("/etc/shadow"), "chpasswd": fixedTarget("/etc/shadow"),
	"chage": fixedTarget("/etc/shadow"), "visudo": fixedTarget("/etc/sudoers"),
	// Tools whose -o FILE is the file they write.
	"pandoc": outputs, "iconv": outputs,
	"perf": {Tool: shell.Tool{Writes: outputOption, Unwrap: subcommandRunner(map[string]*shell.ArgSpec{
		"record": {Short: "oeFcpt", Long: []string{"output", "event", "freq", "count", "pid", "tid", "call-graph", "cpu"}},
		"stat":   {Short: "oeIrpt", Long: []string{"output", "event", "interval-print", "repeat", "pid", "tid", "cpu"}},
		"trace":  {Short: "oept", Long: []string{"output", "event", "pid", "tid"}}})}}, "wasm-ld": outputs, "protoc": outputs, "javac": outputs,
	"kotlinc": outputs, "objcopy": outputs, "strip": outputs, "dot": outputs, "mmdc": outputs, "msgfmt": outputs,
	"flex": outputs, "bison": outputs, "yacc": outputs, "esbuild": outputs, "gtime": outputs,
}

var outputs = &Tool{Tool: shell.Tool{Writes: outputOption}}

func fixedTarget(p string) *Tool {
	return &Tool{Targets: func(*shell.Command) []shell.Word { return []shell.Word{shell.Static(p)} }}
}

// outputOption: -o FILE (or -oFILE) names the file the command writes.
func outputOption(c *shell.Command) shell.Writes {
	var out []shell.Word
	for _, w := range Args(c.Name()).Values(c.Args, "o", "", 4) {
		if !w.Dynamic && strings.HasPrefix(w.Value, "=") {
			w.Value, w.Prefix = w.Value[1:], w.Value[1:]
		}
		if w.Dynamic || w.Value != "-" {
			out = append(out, w)
		}
	}
	return shell.Writes{Files: out}
}

func operandWrites(c *shell.Command) shell.Writes {
	return shell.Writes{Files: operands(c)}
}

func firstOperand(c *shell.Command) []shell.Word {
	if ops := operands(c); len(ops) > 0 {
		return ops[:1]
	}
	return nil
}

func firstOperandWrites(c *shell.Command) shell.Writes {
	return shell.Writes{Files: firstOperand(c)}
}

func lastOperand(c *shell.Command) shell.Writes {
	if ops := anyArgs.Operands(c.Args); len(ops) > 1 {
		return shell.Writes{Files: ops[len(ops)-1:]}
	}
	return shell.Writes{}
}

// chattrTargets: chattr [-RVf] [-v V] [-p P] MODE FILE…: the mode (+i,
// =a) is not a file (a mode -i reads as an option).
func chattrTargets(c *shell.Command) []shell.Word {
	var out []shell.Word
	for _, o := range Args("chattr").Operands(c.Args) {
		if o.Dynamic || !strings.HasPrefix(o.Value, "+") && !strings.HasPrefix(o.Value, "=") {
			out = append(out, o)
		}
	}
	return out
}

// modeTargets are the files of chmod MODE FILE… and chown OWNER FILE…
// (all operands with --reference).
func modeTargets(c *shell.Command) []shell.Word {
	spec := Args(c.Name())
	ops := spec.Operands(c.Args)
	if spec.Has(c.Args, "", "reference") {
		return ops
	}
	if len(ops) > 1 {
		return ops[1:]
	}
	return nil
}

// copyWrites are what cp, mv, install, ln and ditto write: the
// destination (written), for mv the sources too (gone), and symbolic
// links made by ln -s and cp -s.
func copyWrites(c *shell.Command) shell.Writes {
	var w shell.Writes
	w.Files = CopyTargets(c)
	name := c.Name()
	spec := Args(name)
	ops := spec.Operands(c.Args)
	if len(ops) > 0 && name != "mv" {
		w.Dirs = append(w.Dirs, ops[len(ops)-1])
	}
	if t, ok := spec.Value(c.Args, "t", "target-directory"); ok {
		w.Dirs = append(w.Dirs, t)
	}
	switch {
	case name == "cp" && len(ops) == 2 && spec.Has(c.Args, "s", "symbolic-link"):
		// cp -s makes symbolic links (cp -rs a tree of them).
		w.Links = append(w.Links, [2]shell.Word{ops[0], ops[1]})
	case name == "ln" && len(ops) >= 2 && spec.Has(c.Args, "s", "symbolic"):
		w.Links = append(w.Links, [2]shell.Word{ops[len(ops)-2], ops[len(ops)-1]})
	}
	return w
}

// CopyTargets is the destination of cp/mv/install/ln/rsync/scp, and for
// mv (and rsync --remove-source-files) the sources too.
func CopyTargets(c *shell.Command) []shell.Word {
	args := c.Args
	name := c.Name()
	spec := Args(name)
	if w, ok := spec.Value(args, "t", "target-directory"); ok && name != "rsync" && name != "scp" {
		out := []shell.Word{w}
		if name == "mv" {
			out = append(out, spec.Operands(args)...)
		}
		return out
	}
	ops := spec.Operands(args)
	if name == "install" && spec.Has(args, "d", "directory") {
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
	if !Remote(dst) {
		out = append(out, dst)
	}
	if name == "mv" || (name == "rsync" && spec.Has(args, "", "remove-source-files", "remove-sent-files")) {
		for _, s := range ops[:len(ops)-1] {
			if !Remote(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Remote reports whether an rsync/scp operand names another host.
func Remote(w shell.Word) bool {
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

// ddWrites: dd of=FILE.
func ddWrites(c *shell.Command) shell.Writes {
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a.Value, "of=") {
			w := a
			w.Value = a.Value[3:]
			if w.Dynamic {
				w.Prefix = strings.TrimPrefix(a.Prefix, "of=")
			} else {
				w.Prefix = w.Value
			}
			return shell.Writes{Files: []shell.Word{w}}
		}
	}
	return shell.Writes{}
}

// findTargets: the files find -fprint and its kin write, and the starting
// points of a find that deletes or changes what it finds.
func findTargets(c *shell.Command) []shell.Word {
	args := c.Args
	var out []shell.Word
	for i := 1; i+1 < len(args); i++ {
		if slices.Contains([]string{"-fprint", "-fprint0", "-fprintf", "-fls"}, args[i].Value) {
			out = append(out, args[i+1])
		}
	}
	return out
}

// FindDeletes reports whether find deletes or changes the files it
// finds (-delete, -exec rm …), and names the program.
func FindDeletes(c *shell.Command) (deletes bool, what []string) {
	for i, a := range c.Args {
		switch a.Value {
		case "-delete":
			deletes = true
			what = append(what, "-delete")
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(c.Args) {
				n := shell.CommandName(c.Args[i+1].Value)
				if slices.Contains([]string{"rm", "rmdir", "unlink", "shred", "srm", "truncate", "chmod", "chown", "mv"}, n) {
					deletes = true
					if n != "chmod" && n != "chown" && n != "mv" {
						what = append(what, a.Value+" "+n)
					}
				}
			}
		}
	}
	return deletes, what
}

// FindStarts are find's starting points.
func FindStarts(c *shell.Command) []shell.Word {
	var out []shell.Word
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a.Value, "-") || a.Value == "!" || a.Value == "(" {
			break
		}
		out = append(out, a)
	}
	return out
}

// findReaders are programs that, run by find -exec on every file found,
// read them.
var findReaders = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true, "grep": true, "egrep": true,
	"rg": true, "cp": true, "base64": true, "xxd": true, "od": true, "hexdump": true, "strings": true, "tar": true, "zip": true,
	"curl": true, "nc": true, "scp": true, "rsync": true, "sh": true, "bash": true, "python": true, "python3": true, "perl": true,
	"awk": true, "sed": true, "tee": true, "dd": true, "openssl": true, "gpg": true}

// findReads: find DIR … -exec cat {} ;: every file found is read.
func findReads(c *shell.Command) []shell.Word {
	args := c.Args
	for i, a := range args {
		if slices.Contains([]string{"-exec", "-execdir", "-ok", "-okdir"}, a.Value) && i+1 < len(args) && findReaders[shell.CommandName(args[i+1].Value)] {
			return FindStarts(c)
		}
	}
	return nil
}

// followFind follows find … -exec CMD … ; and -execdir/-ok/-okdir.
func followFind(f *shell.Follower) {
	cmd := f.Cmd()
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		if v != "-exec" && v != "-execdir" && v != "-ok" && v != "-okdir" {
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].Value == ";" || args[j].Value == "+") {
			j++
		}
		inner := make([]shell.Word, 0, j-i)
		for _, w := range args[i+1 : j] {
			if !w.Dynamic && strings.Contains(w.Value, "{}") {
				w = shell.Word{Value: w.Value, Dynamic: true, Prefix: w.Value[:strings.Index(w.Value, "{}")]}
			}
			inner = append(inner, w)
		}
		if len(inner) > 0 {
			dir := strings.HasSuffix(v, "dir")
			f.Run(&shell.Command{Args: inner, Dir: cmd.Dir, DirKnown: cmd.DirKnown && !dir, Parent: cmd,
				ExtraArgs: j < len(args) && args[j].Value == "+", Stdin: shell.Input{Kind: shell.InputText, TextKnown: true}}, shell.Wrapped)
		}
		i = j
	}
}

// splitWrites: split FILE PREFIX writes PREFIXaa…, csplit writes xx00…
// (or -f PREFIX).
func splitWrites(c *shell.Command) shell.Writes {
	args := c.Args
	if c.Name() == "csplit" {
		if w, ok := splitArgs.Value(args, "f", "prefix"); ok {
			return shell.Writes{Files: []shell.Word{w}}
		}
		return shell.Writes{Files: []shell.Word{shell.Static("xx")}}
	}
	if ops := splitArgs.Operands(args); len(ops) > 1 {
		return shell.Writes{Files: ops[1:2]}
	}
	return shell.Writes{}
}

var patchArgs = &shell.ArgSpec{Short: "pBdDiFgoVrYzZ", Long: []string{"strip", "directory", "input", "output", "reject-file", "prefix", "suffix", "backup-if-mismatch", "version-control", "fuzz", "basename-prefix", "define", "get", "quoting-style", "reject-format"}, Abbrev: true}

// patchWrites: patch FILE changes FILE; -o names its output; -d DIR and
// the working directory may change anywhere.
func patchWrites(c *shell.Command) shell.Writes {
	w := outputOption(c)
	if ops := patchArgs.Operands(c.Args); len(ops) > 0 {
		w.Files = append(w.Files, ops[0])
	}
	w.Here = true
	if d, ok := patchArgs.Value(c.Args, "d", "directory"); ok {
		w.Dirs = append(w.Dirs, d)
	}
	return w
}

var yqArgs = &shell.ArgSpec{Short: "eIops", Long: []string{"expression", "output-format", "input-format", "indent", "split-exp"}}

// yqWrites: yq -i EXPR FILE… changes the files.
func yqWrites(c *shell.Command) shell.Writes {
	if yqArgs.Has(c.Args, "i", "inplace") {
		if ops := yqArgs.Operands(c.Args); len(ops) > 1 {
			return shell.Writes{Files: ops[1:]}
		}
	}
	return shell.Writes{}
}

var sqliteArgs = &shell.ArgSpec{Long: []string{"init", "cmd", "separator", "newline", "nullvalue"}}

// outputLong are long options that name a file or directory a command
// writes, whatever the command ("--output json" names a format: a
// relative name is harmless anyway).
var outputLong = []string{"output", "output-file", "out-file", "outfile", "log-file", "logfile",
	"output-dir", "out-dir", "outdir", "output-directory", "pack-destination", "dump-dir",
	"log", "target-directory", "keyout", "save-to"}

// OutputOptions are the files any command's --output FILE and its kin
// name, whatever the command.
func OutputOptions(c *shell.Command) []shell.Word {
	args := c.Args
	longs := false
	for _, a := range args[1:] {
		if strings.HasPrefix(a.Prefix, "--") || a.Dynamic && strings.HasPrefix(a.Value, "--") {
			longs = true
			break
		}
	}
	if !longs {
		return nil
	}
	var out []shell.Word
	spec := Args(c.Name())
	for _, l := range outputLong {
		if !mayName(args, l) {
			continue
		}
		for _, w := range spec.Values(args, "", l, 4) {
			if w.Dynamic || w.Value != "-" {
				out = append(out, w)
			}
		}
	}
	return out
}

// mayName reports whether a word of args could be the long option l as a
// program reads it: --NAME or --NAME=… where NAME is l, an abbreviation
// of it, or --no- before one of those. Where none is, ArgSpec.Values finds
// no value of l whatever the spec, and need not be asked.
func mayName(args []shell.Word, l string) bool {
	for _, a := range args[1:] {
		known := a.Value
		if a.Dynamic {
			known = a.Prefix
		}
		name, ok := strings.CutPrefix(known, "--")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if strings.HasPrefix(l, name) || strings.HasPrefix(name, "no-") && strings.HasPrefix(l, name[3:]) {
			return true
		}
	}
	return false
}

// Targets lists what a command writes, creates, deletes or changes by
// name: its own table's files and targets, and the output options any
// command may take.
func Targets(c *shell.Command) []shell.Word {
	if c.Dialect != shell.Sh {
		return winTargets(c)
	}
	if len(c.Args) == 0 || c.Args[0].Dynamic {
		return nil
	}
	var out []shell.Word
	if t := find(c.Name()); t != nil {
		if t.Writes != nil {
			out = join(out, t.Writes(c).Files)
		}
		if t.Targets != nil {
			out = join(out, t.Targets(c))
		}
	}
	out = join(out, OutputOptions(c))
	return join(out, installTargets(c))
}

// join appends more to out; an empty out is more itself, clipped so that
// appending to the result never writes into more's array.
func join(out, more []shell.Word) []shell.Word {
	if len(out) == 0 {
		return slices.Clip(more)
	}
	return append(out, more...)
}

// HomeWrites are the files under the home directory a command changes
// without naming them (relative to the home directory).
func HomeWrites(c *shell.Command) []string {
	if t := find(c.Name()); t != nil && t.HomeWrites != nil && c.Dialect == shell.Sh {
		return t.HomeWrites(c)
	}
	return nil
}

// Reads are the files a command reads or sends that are not among its
// operands.
func Reads(c *shell.Command) []shell.Word {
	if t := find(c.Name()); t != nil && t.Reads != nil {
		return t.Reads(c)
	}
	return nil
}

// TreeReads are the directories whose whole tree a command reads.
func TreeReads(c *shell.Command) []shell.Word {
	if c.Dialect == shell.Cmd {
		return cmdTreeReads(c)
	}
	if t := find(c.Name()); t != nil && t.TreeReads != nil && c.Dialect == shell.Sh {
		return t.TreeReads(c)
	}
	return nil
}

// copyReads: a recursive copy reads the whole tree of its sources.
func copyReads(c *shell.Command) []shell.Word {
	name := c.Name()
	spec := Args(name)
	if name != "ditto" && !spec.Has(c.Args, "rRa", "recursive", "archive") {
		return nil
	}
	ops := spec.Operands(c.Args)
	if len(ops) > 1 {
		return ops[:len(ops)-1]
	}
	return ops
}

var grepArgs = &shell.ArgSpec{Short: "efABCmgtTM", Long: []string{"regexp", "file", "after-context", "before-context", "context", "max-count", "glob", "type", "type-not", "max-depth", "include", "exclude"}}

// search is a program searching files; recursive says it reads a tree
// only with -r.
func search(spec *shell.ArgSpec, recursive bool) *Tool {
	return &Tool{Tool: shell.Tool{Args: spec}, TreeReads: func(c *shell.Command) []shell.Word {
		if recursive && !spec.Has(c.Args, "rR", "recursive", "dereference-recursive") {
			return nil
		}
		ops := spec.Operands(c.Args)
		if _, ok := spec.Value(c.Args, "e", "regexp"); !ok && len(ops) > 0 {
			if _, ok := spec.Value(c.Args, "f", "file"); !ok {
				ops = ops[1:] // the pattern
			}
		}
		return ops
	}}
}
