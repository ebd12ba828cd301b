package shell

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// finish unwraps a command, records it, and follows what it runs.
func (p *parser) finish(cmd *Command, sc *scope, fr *frame) {
	if !p.step() {
		return
	}
	p.markDownloaded(cmd, sc)
	if cmd.Stdin.Kind == InputInherited && fr.stdin != nil {
		cmd.Stdin = *fr.stdin
	}
	if cmd.Dialect == Sh {
		p.foldName(cmd)
		p.unwrap(cmd, sc)
	}
	p.emit(cmd, fr)
	for _, a := range cmd.Assigns {
		p.commandVar(a.Name, a.Value, sc, fr, cmd)
	}
	if len(cmd.Args) == 0 {
		return
	}
	if cmd.Args[0].Dynamic {
		// The name is only known at run time; it may expand to nothing or
		// to a wrapper, so the words after it are judged as a command too.
		if len(cmd.Args) > 1 && !cmd.Args[1].Dynamic && fr.origin != Maybe {
			child := &Command{Args: cmd.Args[1:], Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd, Stdin: cmd.Stdin}
			cf := fr.child(Maybe, cmd, fr.src)
			cf.depth = fr.depth
			p.finish(child, sc.clone(), cf)
		}
		return
	}
	name := cmd.Name()
	if cmd.Dialect == Sh && fr.origin != Maybe {
		p.hashed(cmd, sc, fr)
		p.aliased(cmd, sc, fr)
	}
	if cmd.Dialect != Sh {
		switch name = strings.ToLower(name); {
		case isShell(name):
			p.shellRun(cmd, sc, fr)
		case name == "pwsh" || name == "powershell":
			p.powershellRun(cmd, sc, fr)
		case name == "cmd":
			p.cmdRun(cmd, sc, fr)
		case name == "git":
			p.gitConfigs(cmd, sc, fr)
		}
		return
	}
	switch {
	case isShell(name):
		p.shellRun(cmd, sc, fr)
	case name == "eval":
		p.evalRun(cmd, sc, fr)
	case name == "source" || name == ".":
		if len(cmd.Args) > 1 {
			saved, savedKnown := sc.pos, sc.posKnown
			if len(cmd.Args) > 2 {
				sc.pos, sc.posKnown = cmd.Args[2:], true
			}
			p.scriptFile(cmd, cmd.Args[1], sc, fr, true)
			if len(cmd.Args) > 2 {
				sc.pos, sc.posKnown = saved, savedKnown
			}
		}
	case name == "cd" || name == "pushd" || name == "popd" || name == "chdir":
		p.changeDir(cmd, sc)
	case name == "trap":
		p.trapRun(cmd, sc, fr)
	case name == "hash":
		p.hashRun(cmd, sc)
	case name == "alias":
		for _, a := range cmd.Args[1:] {
			if n, v, ok := isAssignWord(a); ok {
				p.nestedWord(Word{Value: v, Prefix: v, Taint: a.Taint}, Alias, cmd, sc.clone(), fr)
				sc.shared.defineAlias(n, v)
			} else if a.Dynamic {
				sc.shared.defineAlias("*", "")
			}
		}
	case name == "find":
		p.findExec(cmd, sc, fr)
	case name == "parallel":
		p.parallelRun(cmd, sc, fr)
	case name == "watch":
		if i := (&ArgSpec{Short: "nq", Long: []string{"interval", "equexit"}}).Skip(cmd.Args); i > 0 {
			p.joinedScript(cmd, cmd.Args[i:], sc, fr)
		}
	case name == "script":
		if w, ok := anyArgs.Value(cmd.Args, "c", "command"); ok {
			p.stringScript(cmd, w, sc, fr)
		}
	case name == "flock":
		if w, ok := anyArgs.Value(cmd.Args, "c", "command"); ok {
			p.stringScript(cmd, w, sc, fr)
		}
	case name == "su" || name == "runuser" || name == "sg":
		if w, ok := anyArgs.Value(cmd.Args, "c", "command"); ok {
			p.stringScript(cmd, w, sc, fr)
		} else if w, ok := anyArgs.Value(cmd.Args, "", "session-command"); ok {
			p.stringScript(cmd, w, sc, fr)
		} else if name == "sg" && len(cmd.Args) > 2 {
			p.stringScript(cmd, cmd.Args[2], sc, fr)
		}
	case name == "capsh":
		// capsh [opts] -- ARG…: /bin/bash ARG… after the privileges change.
		for i, a := range cmd.Args[1:] {
			if a.Value == "--" && !a.Dynamic {
				c := &Command{Args: append([]Word{Static("bash")}, cmd.Args[i+2:]...), Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd, Stdin: cmd.Stdin}
				p.finish(c, p.childScope(sc, cmd), fr.child(Wrapped, cmd, fr.src))
				break
			}
		}
	case name == "ksu":
		if w, ok := anyArgs.Value(cmd.Args, "e", ""); ok {
			i := 1
			for i < len(cmd.Args) && cmd.Args[i].Value != "-e" {
				i++
			}
			c := &Command{Args: append([]Word{w}, cmd.Args[min(i+2, len(cmd.Args)):]...), Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
			p.finish(c, p.childScope(sc, cmd), fr.child(Wrapped, cmd, fr.src))
		}
	case name == "nix-shell":
		if w, ok := anyArgs.Value(cmd.Args, "", "run"); ok {
			p.stringScript(cmd, w, sc, fr)
		} else if w, ok := anyArgs.Value(cmd.Args, "", "command"); ok {
			p.stringScript(cmd, w, sc, fr)
		}
	case name == "hyperfine":
		p.hyperfine(cmd, sc, fr)
	case name == "tar" || name == "bsdtar" || name == "gtar":
		p.tarCommands(cmd, sc, fr)
	case name == "zip":
		if w, ok := zipCommand(cmd.Args); ok {
			p.stringScript(cmd, w, sc, fr)
		}
	case name == "ssh" || name == "scp" || name == "sftp":
		p.sshOptions(cmd, sc, fr)
	case name == "rsync":
		if w, ok := anyArgs.Value(cmd.Args, "e", "rsh"); ok {
			p.stringScript(cmd, w, sc, fr)
		}
	case name == "git":
		p.gitConfigs(cmd, sc, fr)
		p.gitRuns(cmd, sc, fr)
	case name == "safeexec":
		p.safeexecRun(cmd, sc, fr)
	case name == "read" || name == "mapfile" || name == "readarray" || name == "getopts":
		p.nameArgs(cmd, sc, fr)
		p.forgetWords(cmd, sc, "adnNptui")
	case name == "test" || name == "[" || name == "unset":
		p.nameArgs(cmd, sc, fr)
		if name == "unset" {
			for _, a := range cmd.Args[1:] {
				if !a.Dynamic && !strings.HasPrefix(a.Value, "-") {
					sc.setVar(a.Value, varVal{unset: true})
				}
			}
		}
	case name == "let":
		for _, a := range cmd.Args[1:] {
			p.reEvaluated(a, sc, fr, 0)
		}
	case name == "printf":
		p.nameArgs(cmd, sc, fr)
		if len(cmd.Args) > 2 && cmd.Args[1].Value == "-v" && !cmd.Args[2].Dynamic {
			v := dynWord("$" + cmd.Args[2].Value)
			if out, ok := foldPrintfWords(cmd.Args[3:]); ok {
				// A shell variable ends at a NUL byte.
				out, _, _ = strings.Cut(out, "\x00")
				v = Word{Value: out, Prefix: out}
			}
			sc.setVar(cmd.Args[2].Value, varVal{w: v})
		}
	case name == "set":
		for i, a := range cmd.Args[1:] {
			if a.Value == "--" {
				sc.pos, sc.posKnown = cmd.Args[i+2:], true
				break
			}
		}
	case name == "shift":
		sc.pos, sc.posKnown = nil, false
	case name == "pwsh" || name == "powershell":
		p.powershellRun(cmd, sc, fr)
	case name == "cmd":
		p.cmdRun(cmd, sc, fr)
	case sc.shared.funcs[name]:
		if sc.shared.funcCd {
			sc.dirKnown = false
		}
	case name == "tmux":
		p.tmuxRun(cmd, sc, fr)
	case name == "make" || name == "gmake" || name == "bmake":
		p.makeRun(cmd, sc, fr)
	case oneOf(name, "vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex", "rvim", "nvi", "elvis"):
		p.vimRun(cmd, sc, fr)
	case name == "gdb":
		p.gdbRun(cmd, sc, fr)
	case name == "wsl" || name == "wsl.exe":
		p.wslRun(cmd, sc, fr)
	case strings.Contains(cmd.Args[0].Value, "/"):
		p.directRun(cmd, sc, fr)
	default:
		p.pathLookup(cmd, sc, fr)
	}
	p.recordDownload(cmd, sc)
	p.recordWrites(cmd, sc)
}

func foldPrintfWords(ws []Word) (string, bool) {
	vals := make([]string, len(ws))
	for i, w := range ws {
		if w.Dynamic {
			return "", false
		}
		vals[i] = w.Value
	}
	return foldPrintf(vals)
}

// forgetWords makes the variables named by a command's operands unknown
// (read x y, mapfile arr). Options in withVal take a value.
func (p *parser) forgetWords(cmd *Command, sc *scope, withVal string) {
	args := cmd.Args[1:]
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			if strings.IndexByte(withVal, v[len(v)-1]) >= 0 {
				if v[len(v)-1] == 'a' && i+1 < len(args) {
					sc.setVar(args[i+1].Value, varVal{w: dynWord("$" + args[i+1].Value)})
				}
				i++
			}
			continue
		}
		if !args[i].Dynamic {
			sc.setVar(v, varVal{w: dynWord("$" + v)})
		}
	}
	if cmd.Name() == "mapfile" || cmd.Name() == "readarray" {
		sc.setVar("MAPFILE", varVal{w: dynWord("$MAPFILE")})
	}
	if cmd.Name() == "read" {
		sc.setVar("REPLY", varVal{w: dynWord("$REPLY")})
	}
}

// shellRun follows the program a shell command runs.
func (p *parser) shellRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	cflag, sflag := false, false
	i := 1
	for i < len(args) {
		a := args[i]
		if a.Dynamic {
			if cflag {
				break
			}
			cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the shell's options are only known at run time", Taint: a.Taint}
			return
		}
		v := a.Value
		if v == "--" || v == "-" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			switch v {
			case "--rcfile", "--init-file":
				if i+1 < len(args) {
					// An interactive shell runs this file first.
					rc := &Command{Args: []Word{Static("source"), args[i+1]}, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
					p.finish(rc, p.childScope(sc, cmd), fr.child(ShellC, cmd, fr.src))
				}
				i++
			}
			i++
			continue
		}
		if len(v) > 1 && (v[0] == '-' || v[0] == '+') {
			takes := 0
			for _, c := range v[1:] {
				switch c {
				case 'c':
					cflag = v[0] == '-'
				case 's':
					sflag = true
				case 'o', 'O':
					takes++
				}
			}
			i += 1 + takes
			continue
		}
		break
	}
	if cflag {
		if i >= len(args) {
			if cmd.ExtraArgs {
				cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the script comes from the input at run time", Taint: cmd.Stdin.Taint}
			}
			return
		}
		script := args[i]
		cmd.Script = &ScriptRun{Kind: ScriptString, Taint: script.Taint}
		if script.Dynamic {
			cmd.Script.Why = "the script is only known at run time"
			return
		}
		child := p.childScope(sc, cmd)
		if i+1 < len(args) {
			child.arg0 = args[i+1]
			child.pos, child.posKnown = args[min(i+2, len(args)):], true
		} else {
			child.pos, child.posKnown = nil, true
		}
		cmd.Script.Known = p.nestedSh(script.Value, ShellC, cmd, child, fr, false)
		return
	}
	if i < len(args) && !sflag {
		child := p.childScope(sc, cmd)
		child.arg0 = args[i]
		child.pos, child.posKnown = args[i+1:], true
		p.scriptFileScope(cmd, args[i], child, fr)
		return
	}
	child := p.childScope(sc, cmd)
	child.pos, child.posKnown = args[i:], true
	p.stdinScript(cmd, child, fr)
}

// childScope is the state a new shell process starts with: exported
// variables and the command's own assignments.
func (p *parser) childScope(sc *scope, cmd *Command) *scope {
	child := &scope{shared: sc.shared, dir: cmd.Dir, dirKnown: cmd.DirKnown, arg0: dynWord("$0")}
	for k, v := range sc.vars {
		if v.exported {
			child.setVar(k, v)
		}
	}
	for _, a := range cmd.Assigns {
		child.setVar(a.Name, varVal{w: a.Value, exported: true})
	}
	return child
}

// stdinScript follows a shell that reads its program from stdin.
func (p *parser) stdinScript(cmd *Command, sc *scope, fr *frame) {
	in := cmd.Stdin
	sr := &ScriptRun{Kind: ScriptStdin, Taint: in.Taint}
	cmd.Script = sr
	switch in.Kind {
	case InputInherited:
		sr.Kind = ScriptInteractive
		sr.Why = "the shell reads commands from the terminal or the caller's input"
		return
	case InputFile:
		if in.TextKnown {
			sr.Known = p.nestedSh(in.Text, StdinScript, cmd, sc, fr, false)
			return
		}
		sr.Path = in.Path
		if in.Path.Proc {
			sr.Why = "the script comes from a process substitution"
			return
		}
		text, why := p.readFile(cmd, in.Path, sc)
		if why != "" {
			sr.Why = why
			return
		}
		sr.Known = p.nestedSh(text, ScriptFile, cmd, sc, fr, true)
		return
	}
	if !in.TextKnown {
		if in.Kind == InputPipe {
			sr.Why = "the script comes from a pipe: " + upstreamNames(in.Upstream)
		} else {
			sr.Why = "the script is only known at run time"
		}
		return
	}
	sr.Known = p.nestedSh(in.Text, StdinScript, cmd, sc, fr, false)
}

func upstreamNames(cmds []*Command) string {
	var names []string
	for _, c := range cmds {
		if n := c.Name(); n != "" {
			names = append(names, n)
		} else if len(c.Args) > 0 {
			names = append(names, c.Args[0].Value)
		}
	}
	if len(names) == 0 {
		return "an unknown command"
	}
	return strings.Join(names, " | ")
}

// evalRun follows eval: its words joined by spaces are parsed in the
// current shell.
func (p *parser) evalRun(cmd *Command, sc *scope, fr *frame) {
	if len(cmd.Args) < 2 {
		return
	}
	var parts []string
	var t Taint
	for _, a := range cmd.Args[1:] {
		t |= a.Taint
		if a.Dynamic {
			cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the evaluated text is only known at run time", Taint: t | taintOf(cmd.Args[1:])}
			return
		}
		parts = append(parts, a.Value)
	}
	cmd.Script = &ScriptRun{Kind: ScriptString, Taint: t}
	cmd.Script.Known = p.nestedSh(strings.Join(parts, " "), Eval, cmd, sc, fr, false)
}

func taintOf(ws []Word) Taint {
	var t Taint
	for _, w := range ws {
		t |= w.Taint
	}
	return t
}

// stringScript parses a command string given to a wrapper (su -c,
// flock -c, script -c, nix-shell --run).
func (p *parser) stringScript(cmd *Command, w Word, sc *scope, fr *frame) {
	cmd.Script = &ScriptRun{Kind: ScriptString, Taint: w.Taint}
	if w.Dynamic {
		cmd.Script.Why = "the command string is only known at run time"
		return
	}
	cmd.Script.Known = p.nestedSh(w.Value, ShellC, cmd, p.childScope(sc, cmd), fr, false)
}

// joinedScript parses words joined by spaces as a shell command (watch).
func (p *parser) joinedScript(cmd *Command, words []Word, sc *scope, fr *frame) {
	var parts []string
	for _, w := range words {
		if w.Dynamic {
			cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the command is only known at run time", Taint: taintOf(words)}
			return
		}
		parts = append(parts, w.Value)
	}
	p.stringScript(cmd, Static(strings.Join(parts, " ")), sc, fr)
}

// nestedWord parses a word's value as shell code (trap, alias).
func (p *parser) nestedWord(w Word, o Origin, cmd *Command, sc *scope, fr *frame) {
	if w.Dynamic {
		child := &Command{Args: []Word{w}, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
		p.emit(child, fr.child(o, cmd, fr.src))
		return
	}
	p.nestedSh(w.Value, o, cmd, sc, fr, false)
}

// nestedSh parses and walks nested shell code; it reports whether the code
// enterNested charges nested code (a shell -c string, PowerShell or cmd
// code) to the analysis budget: one more level, its bytes, its nesting.
// It reports an issue and false when the code exceeds what the analysis
// allows; lang names the code in that issue.
func (p *parser) enterNested(src string, o Origin, fr *frame, lang string) bool {
	if !p.step() {
		return false
	}
	if fr.depth+1 > maxReparse {
		p.issue(TooComplex, o, fmt.Sprintf("code nested more than %d levels deep", maxReparse))
		return false
	}
	p.reparsed += len(src)
	if p.reparsed > maxReparseBytes {
		p.issue(TooComplex, o, lang+" larger than the analysis allows")
		return false
	}
	if d := nestingDepth(src); d > MaxNesting {
		p.issue(TooComplex, o, fmt.Sprintf("%s nests %d levels deep", lang, d))
		return false
	}
	return true
}

// could be analysed.
func (p *parser) nestedSh(src string, o Origin, parent *Command, sc *scope, fr *frame, fromFile bool) bool {
	if !p.enterNested(src, o, fr, "nested code") {
		return false
	}
	f, err := p.parseSh(src, o)
	cf := fr.child(o, parent, src)
	cf.fromFile = fr.fromFile || fromFile
	if f != nil {
		p.walkStmts(f.Stmts, sc, cf)
	}
	if err != nil {
		p.issue(ParseError, o, fmt.Sprintf("%s: %v", o, err))
		return false
	}
	return true
}

// scriptFile follows sh FILE, source FILE: same says the file runs in the
// current shell (source).
func (p *parser) scriptFile(cmd *Command, w Word, sc *scope, fr *frame, same bool) {
	target := sc
	if !same {
		target = p.childScope(sc, cmd)
	}
	p.scriptFileScope(cmd, w, target, fr)
}

func (p *parser) scriptFileScope(cmd *Command, w Word, sc *scope, fr *frame) {
	sr := &ScriptRun{Kind: ScriptPath, Path: w, Taint: w.Taint}
	cmd.Script = sr
	if w.Proc {
		if w.ContentKnown {
			sr.Known = p.nestedSh(w.Content, StdinScript, cmd, sc, fr, false)
		} else {
			sr.Why = "the script comes from a process substitution"
		}
		return
	}
	if abs, ok := cmd.Abs(w); ok && (abs == "/dev/stdin" || abs == "/proc/self/fd/0" || abs == "/dev/fd/0") {
		p.stdinScript(cmd, sc, fr)
		cmd.Script.Kind = ScriptPath
		return
	}
	text, why := p.readFile(cmd, w, sc)
	if abs, ok := cmd.Abs(w); ok && sc.shared.downloads[abs] {
		sr.Taint |= Downloaded
	}
	if why != "" {
		sr.Why = why
		return
	}
	sr.Known = p.nestedSh(text, ScriptFile, cmd, sc, fr, true)
}

// readFile reads a local script through Options.ReadScript; why explains
// a failure.
func (p *parser) readFile(cmd *Command, w Word, sc *scope) (string, string) {
	abs, ok := cmd.Abs(w)
	if !ok {
		return "", "the script's path is only known at run time"
	}
	if text, ok := sc.shared.venvScript(abs); ok {
		return text, ""
	}
	if sc.shared.downloads[abs] {
		return "", "the script is downloaded by an earlier command"
	}
	if sc.shared.changed(abs) {
		return "", abs + " is changed by an earlier command, so its current content is not what will run"
	}
	if p.opts.ReadScript == nil {
		return "", "scripts are not read"
	}
	data, err := p.opts.ReadScript(abs)
	if err != nil {
		return "", "cannot read " + abs + ": " + err.Error()
	}
	if len(data) > maxScriptFile {
		return "", fmt.Sprintf("%s is larger than %d bytes", abs, maxScriptFile)
	}
	if isBinary(data) {
		return "", abs + " is not a text file"
	}
	return string(data), ""
}

func isBinary(data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// systemDirs hold installed programs; running one by path is like
// running it from PATH, not running a local script.
var systemDirs = []string{"/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/opt/", "/nix/", "/snap/", "/System/", "/Library/", "/Applications/", "/etc/"}

// directRun follows ./x.sh and path/to/x: small text scripts are read and
// their commands analysed.
func (p *parser) directRun(cmd *Command, sc *scope, fr *frame) {
	p.directRunPath(cmd, cmd.Args[0], sc, fr)
}

// pathLookup follows a command name found through a PATH the script set
// itself (PATH=./bin:$PATH cmd): the program there is read like ./cmd.
func (p *parser) pathLookup(cmd *Command, sc *scope, fr *frame) {
	var pathVal Word
	found := false
	for _, a := range cmd.Assigns {
		if a.Name == "PATH" {
			pathVal, found = a.Value, true
		}
	}
	if !found {
		v, ok := sc.vars["PATH"]
		if !ok || v.unset {
			return
		}
		pathVal = v.w
	}
	val := pathVal.Value
	if pathVal.Dynamic {
		val = pathVal.Prefix
		if i := strings.LastIndexByte(val, ':'); i >= 0 {
			val = val[:i]
		} else {
			return
		}
	}
	name := cmd.Args[0].Value
	for _, dir := range strings.Split(val, ":") {
		if dir == "" {
			dir = "."
		}
		system := false
		for _, d := range systemDirs {
			if strings.HasPrefix(dir+"/", d) {
				system = true
			}
		}
		if system {
			continue
		}
		w := Static(path.Join(dir, name))
		abs, ok := cmd.Abs(w)
		if !ok {
			continue
		}
		if sc.shared.changed(abs) || sc.shared.downloads[abs] {
			p.directRunPath(cmd, w, sc, fr)
			return
		}
		if p.opts.ReadScript == nil {
			continue
		}
		if _, err := p.opts.ReadScript(abs); err == nil {
			p.directRunPath(cmd, w, sc, fr)
			return
		}
	}
}

func (p *parser) directRunPath(cmd *Command, w Word, sc *scope, fr *frame) {
	for _, d := range systemDirs {
		if strings.HasPrefix(w.Value, d) {
			return
		}
	}
	abs, ok := cmd.Abs(w)
	if !ok {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: "the program's path is only known at run time"}
		return
	}
	if sc.shared.downloads[abs] {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Taint: Downloaded, Why: "the program is downloaded by an earlier command"}
		return
	}
	if sc.shared.built[abs] {
		// Written by a compiler earlier in the script: a program.
		return
	}
	changed := abs + " is changed by an earlier command, so its current content is not what will run"
	if sc.shared.changedExactly(abs) {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: changed}
		return
	}
	if p.opts.ReadScript == nil {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: "scripts are not read"}
		return
	}
	data, err := p.opts.ReadScript(abs)
	if err != nil {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: "cannot read " + abs + ": " + err.Error()}
		return
	}
	if isExecutableImage(data) {
		// A compiled program: nothing to read, judged like any program
		// (also after a build step such as make rewrote it).
		return
	}
	if sc.shared.changed(abs) {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: changed}
		return
	}
	if len(data) > maxScriptFile {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: fmt.Sprintf("%s is larger than %d bytes", abs, maxScriptFile)}
		return
	}
	if isBinary(data) {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: abs + " is neither a script nor a known executable format"}
		return
	}
	interp := shebang(data)
	if interp != "" && !isShell(interp) {
		// A script for another interpreter (python, node, …): judged like
		// running that interpreter on a file.
		return
	}
	child := p.childScope(sc, cmd)
	child.arg0 = w
	child.pos, child.posKnown = cmd.Args[1:], true
	cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w}
	cmd.Script.Known = p.nestedSh(string(data), ScriptFile, cmd, child, fr, true)
}

func isExecutableImage(data []byte) bool {
	switch {
	case bytes.HasPrefix(data, []byte("\x7fELF")),
		bytes.HasPrefix(data, []byte("MZ")),
		bytes.HasPrefix(data, []byte{0xcf, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(data, []byte{0xce, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(data, []byte{0xca, 0xfe, 0xba, 0xbe}),
		bytes.HasPrefix(data, []byte("\x00asm")):
		return true
	}
	return false
}

// shebang returns the interpreter named by a #! line ("" without one).
func shebang(data []byte) string {
	if !bytes.HasPrefix(data, []byte("#!")) {
		return ""
	}
	line := data[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	name := path.Base(fields[0])
	if name == "env" {
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue
			}
			return path.Base(f)
		}
		return ""
	}
	return name
}

// changeDir tracks cd.
func (p *parser) changeDir(cmd *Command, sc *scope) {
	if sc.shared.trapCd {
		// A trap may change directory before any command.
		sc.dirKnown = false
		return
	}
	if len(cmd.Wrappers) > 0 {
		for _, w := range cmd.Wrappers {
			if w.Name != "builtin" && w.Name != "command" {
				return
			}
		}
	}
	var target *Word
	for _, a := range cmd.Args[1:] {
		if !a.Dynamic && (a.Value == "-L" || a.Value == "-P" || a.Value == "-e" || a.Value == "-@") {
			continue
		}
		if !a.Dynamic && a.Value == "--" {
			continue
		}
		a := a
		target = &a
		break
	}
	name := cmd.Name()
	switch {
	case name == "popd":
		sc.dirKnown = false
	case target == nil:
		if h, ok := p.lookup(sc, "HOME"); ok {
			sc.dir, sc.dirKnown = h.Value, true
		} else {
			sc.dirKnown = false
		}
	case target.Dynamic || target.Value == "-" || strings.HasPrefix(target.Value, "+") || strings.HasPrefix(target.Value, "-"):
		sc.dirKnown = false
	case path.IsAbs(target.Value):
		sc.dir, sc.dirKnown = path.Clean(target.Value), true
	case p.cdpath(sc, cmd) && !strings.HasPrefix(target.Value, "./") && !strings.HasPrefix(target.Value, "../") && target.Value != "." && target.Value != "..":
		// cd NAME searches $CDPATH first.
		sc.dirKnown = false
	case sc.dirKnown:
		sc.dir = path.Join(sc.dir, target.Value)
	}
}

// cdpath reports whether cd may search a CDPATH.
func (p *parser) cdpath(sc *scope, cmd *Command) bool {
	for _, a := range cmd.Assigns {
		if a.Name == "CDPATH" {
			return a.Value.Dynamic || a.Value.Value != ""
		}
	}
	if v, ok := sc.vars["CDPATH"]; ok {
		return !v.unset && (v.w.Dynamic || v.w.Value != "")
	}
	return p.opts.Env["CDPATH"] != ""
}

// findExec follows find … -exec CMD … ; and -execdir/-ok/-okdir.
func (p *parser) findExec(cmd *Command, sc *scope, fr *frame) {
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
		inner := make([]Word, 0, j-i)
		for _, w := range args[i+1 : j] {
			if !w.Dynamic && strings.Contains(w.Value, "{}") {
				w = Word{Value: w.Value, Dynamic: true, Prefix: w.Value[:strings.Index(w.Value, "{}")]}
			}
			inner = append(inner, w)
		}
		if len(inner) > 0 {
			child := &Command{Args: inner, Dir: cmd.Dir, DirKnown: cmd.DirKnown && !strings.HasSuffix(v, "dir"), Parent: cmd,
				ExtraArgs: j < len(args) && args[j].Value == "+", Stdin: Input{Kind: InputText, TextKnown: true}}
			cf := fr.child(Wrapped, cmd, fr.src)
			p.finish(child, sc.clone(), cf)
		}
		i = j
	}
}

var parallelPlaceholder = strings.NewReplacer("{}", `"$PARALLEL_ITEM"`, "{.}", `"$PARALLEL_ITEM"`, "{/}", `"$PARALLEL_ITEM"`,
	"{//}", `"$PARALLEL_ITEM"`, "{/.}", `"$PARALLEL_ITEM"`, "{#}", `"$PARALLEL_ITEM"`, "{%}", `"$PARALLEL_ITEM"`)

// parallelRun follows GNU parallel: the command words are joined and run
// by a shell; without them each input is a command line.
func (p *parser) parallelRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	i := (&ArgSpec{Short: "jPSadIinNLsCE", Long: []string{"jobs", "sshlogin", "arg-file", "delimiter", "joblog", "results", "tmpdir", "colsep", "delay", "timeout", "retries", "max-args", "max-replace-args", "workdir", "env", "halt", "memfree", "load", "basefile", "return", "transfer-file", "sshloginfile"}}).Skip(args)
	var words []Word
	sep := len(args)
	if i > 0 {
		for k := i; k < len(args); k++ {
			if v := args[k].Value; v == ":::" || v == "::::" || v == ":::+" || v == "::::+" {
				sep = k
				break
			}
		}
		words = args[i:sep]
	}
	child := p.childScope(sc, cmd)
	if len(words) > 0 {
		var parts []string
		for _, w := range words {
			if w.Dynamic {
				cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the command is only known at run time", Taint: taintOf(words)}
				return
			}
			parts = append(parts, parallelPlaceholder.Replace(w.Value))
		}
		cmd.Script = &ScriptRun{Kind: ScriptString}
		cmd.Script.Known = p.nestedSh(strings.Join(parts, " "), Wrapped, cmd, child, fr, false)
		return
	}
	// No command: every input is a command line.
	if sep < len(args) && args[sep].Value == ":::" {
		cmd.Script = &ScriptRun{Kind: ScriptString, Known: true}
		for _, w := range args[sep+1:] {
			if v := w.Value; v == ":::" || v == "::::" {
				break
			}
			if w.Dynamic {
				cmd.Script.Known = false
				cmd.Script.Why = "the command is only known at run time"
				cmd.Script.Taint |= w.Taint
				continue
			}
			if !p.nestedSh(w.Value, Wrapped, cmd, child, fr, false) {
				cmd.Script.Known = false
			}
		}
		return
	}
	p.stdinScript(cmd, child, fr)
}

// hyperfine runs each of its command arguments (and --prepare,
// --cleanup, --setup, --conclude, --reference values) with a shell.
func (p *parser) hyperfine(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	valueOpts := map[string]int{"-w": 1, "--warmup": 1, "-r": 1, "--runs": 1, "-m": 1, "--min-runs": 1, "-M": 1, "--max-runs": 1,
		"-L": 2, "--parameter-list": 2, "-P": 3, "--parameter-scan": 3, "-D": 1, "--parameter-step-size": 1, "-S": 1, "--shell": 1,
		"-n": 1, "--command-name": 1, "--export-asciidoc": 1, "--export-csv": 1, "--export-json": 1, "--export-markdown": 1,
		"--export-orgmode": 1, "--output": 1, "--style": 1, "--sort": 1, "-u": 1, "--time-unit": 1, "--input": 1, "--min-benchmarking-time": 1}
	cmdOpts := map[string]bool{"-p": true, "--prepare": true, "-c": true, "--cleanup": true, "-s": true, "--setup": true, "--conclude": true, "--reference": true}
	child := p.childScope(sc, cmd)
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		if n, ok := valueOpts[v]; ok && !args[i].Dynamic {
			i += n
			continue
		}
		if cmdOpts[v] && i+1 < len(args) {
			i++
			p.nestedWord(args[i], ShellC, cmd, child, fr)
			continue
		}
		if strings.HasPrefix(v, "-") && !args[i].Dynamic {
			continue
		}
		p.nestedWord(args[i], ShellC, cmd, child, fr)
	}
}

// gitConfigs follows git -c KEY=VALUE for keys whose value is a command.
func (p *parser) gitConfigs(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "-c" && i+1 < len(args):
			i++
			p.gitConfig(args[i], cmd, sc, fr)
		case strings.HasPrefix(v, "-c") && len(v) > 2:
			p.gitConfig(Word{Value: v[2:], Dynamic: args[i].Dynamic, Taint: args[i].Taint}.fix(), cmd, sc, fr)
		case v == "--config-env" && i+1 < len(args):
			i++
			p.gitConfigEnv(args[i], cmd, sc, fr)
		case strings.HasPrefix(v, "--config-env="):
			p.gitConfigEnv(Word{Value: v[len("--config-env="):], Dynamic: args[i].Dynamic}.fix(), cmd, sc, fr)
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--exec-path":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			return
		}
	}
}

// gitConfigEnv follows git --config-env=KEY=VAR: the value comes from
// the environment.
func (p *parser) gitConfigEnv(kv Word, cmd *Command, sc *scope, fr *frame) {
	key, env, ok := strings.Cut(kv.Value, "=")
	if !ok || kv.Dynamic {
		return
	}
	val, _ := p.lookup(sc, env)
	w := val
	w.Value = key + "=" + val.Value
	w.Prefix = key + "=" + val.Prefix
	p.gitConfig(w, cmd, sc, fr)
}

func (p *parser) gitConfig(kv Word, cmd *Command, sc *scope, fr *frame) {
	key, val, _ := strings.Cut(kv.Value, "=")
	key = strings.ToLower(key)
	if key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path") {
		// Configuration read from a file: any command-running key may
		// be set there.
		child := &Command{Args: []Word{{Value: "(git configuration from " + val + ")", Dynamic: true}}, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
		p.emit(child, fr.child(ConfigCommand, cmd, fr.src))
		return
	}
	if !GitCommandKey(key) {
		return
	}
	if kv.Dynamic {
		w := kv
		if i := strings.IndexByte(w.Value, '='); i >= 0 && strings.HasPrefix(w.Prefix, w.Value[:i+1]) {
			w.Value, w.Prefix = w.Value[i+1:], w.Prefix[i+1:]
		}
		child := &Command{Args: []Word{w}, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
		p.emit(child, fr.child(ConfigCommand, cmd, fr.src))
		return
	}
	if strings.HasPrefix(key, "alias.") {
		if strings.HasPrefix(val, "!") {
			p.nestedSh(val[1:], ConfigCommand, cmd, p.childScope(sc, cmd), fr, false)
			return
		}
		// A git alias: git followed by the alias words.
		ws := []Word{Static("git")}
		for _, s := range splitWords(val) {
			ws = append(ws, Static(s))
		}
		child := &Command{Args: ws, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
		p.finish(child, sc.clone(), fr.child(ConfigCommand, cmd, fr.src))
		return
	}
	if key == "core.fsmonitor" || strings.HasPrefix(key, "pager.") {
		switch strings.ToLower(val) {
		case "", "true", "false", "yes", "no", "on", "off", "1", "0":
			return
		}
	}
	if key == "credential.helper" {
		if strings.HasPrefix(val, "!") {
			val = val[1:]
		} else if !strings.Contains(val, "/") {
			val = "git-credential-" + val
		}
	}
	p.nestedSh(val, ConfigCommand, cmd, p.childScope(sc, cmd), fr, false)
}

// tarCommands follows the commands tar runs: --to-command,
// --checkpoint-action=exec=, --use-compress-program (-I), --rsh-command,
// --info-script/--new-volume-script (-F).
func (p *parser) tarCommands(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		v := a.Value
		var w Word
		ok := false
		switch {
		case strings.HasPrefix(v, "--checkpoint-action=exec="):
			w, ok = Word{Value: v[len("--checkpoint-action=exec="):], Dynamic: a.Dynamic, Taint: a.Taint}.fix(), true
		case v == "--checkpoint-action" && i+1 < len(args) && strings.HasPrefix(args[i+1].Value, "exec="):
			w, ok = Word{Value: args[i+1].Value[5:], Dynamic: args[i+1].Dynamic, Taint: args[i+1].Taint}.fix(), true
			i++
		default:
			for _, opt := range []string{"--to-command", "--use-compress-program", "--rsh-command", "--info-script", "--new-volume-script"} {
				if strings.HasPrefix(v, opt+"=") {
					w, ok = Word{Value: v[len(opt)+1:], Dynamic: a.Dynamic, Taint: a.Taint}.fix(), true
				} else if v == opt && i+1 < len(args) {
					w, ok = args[i+1], true
					i++
				}
			}
			if !ok && (v == "-I" || v == "-F") && i+1 < len(args) {
				w, ok = args[i+1], true
				i++
			}
		}
		if ok {
			p.nestedWord(w, ShellC, cmd, p.childScope(sc, cmd), fr)
		}
	}
}

// sshOptions follows ssh -o ProxyCommand=…, LocalCommand=…,
// KnownHostsCommand=…: commands ssh runs locally.
func (p *parser) sshOptions(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		var opt Word
		switch {
		case v == "-o" && i+1 < len(args):
			opt = args[i+1]
			i++
		case strings.HasPrefix(v, "-o") && len(v) > 2:
			opt = Word{Value: v[2:], Dynamic: args[i].Dynamic, Taint: args[i].Taint}.fix()
		default:
			continue
		}
		key, val, ok := strings.Cut(opt.Value, "=")
		if !ok {
			key, val, ok = strings.Cut(strings.TrimSpace(opt.Value), " ")
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "proxycommand", "localcommand", "knownhostscommand":
			if ok && strings.ToLower(strings.TrimSpace(val)) != "none" {
				p.nestedWord(Word{Value: strings.TrimSpace(val), Dynamic: opt.Dynamic, Taint: opt.Taint}.fix(), ConfigCommand, cmd, p.childScope(sc, cmd), fr)
			}
		}
	}
}

// gitRuns follows git subcommands that run commands: rebase --exec,
// submodule foreach, bisect run, and git config storing a command.
func (p *parser) gitRuns(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	i := 1
	for i < len(args) {
		v := args[i].Value
		if v == "-C" || v == "-c" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--exec-path" || v == "--config-env" {
			i += 2
			continue
		}
		if strings.HasPrefix(v, "-") {
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i].Value, args[i+1:]
	child := func() *scope { return p.childScope(sc, cmd) }
	for _, a := range rest {
		// ext::CMD ARG… remotes run a program (when protocol.ext.allow
		// permits; judged as if it did).
		if strings.HasPrefix(a.Prefix, "ext::") {
			if a.Dynamic {
				c := &Command{Args: []Word{{Value: a.Value, Dynamic: true, Prefix: a.Prefix[5:], Taint: a.Taint}}, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
				p.emit(c, fr.child(ConfigCommand, cmd, fr.src))
				continue
			}
			var words []Word
			for _, w := range gitExtWords(a.Value[5:]) {
				words = append(words, Word{Value: w, Taint: a.Taint}.fix())
			}
			if len(words) > 0 {
				c := &Command{Args: words, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
				p.finish(c, child(), fr.child(ConfigCommand, cmd, fr.src))
			}
		}
	}
	// --upload-pack/-u (clone, fetch, ls-remote, archive --exec) and
	// --receive-pack/--exec (push) name programs git runs.
	for k := 0; k < len(rest); k++ {
		v := rest[k].Value
		for _, opt := range []string{"--upload-pack", "--receive-pack", "--exec"} {
			if strings.HasPrefix(v, opt+"=") {
				p.nestedWord(Word{Value: v[len(opt)+1:], Dynamic: rest[k].Dynamic, Taint: rest[k].Taint}.fix(), ConfigCommand, cmd, child(), fr)
			} else if v == opt && k+1 < len(rest) && sub != "rebase" {
				p.nestedWord(rest[k+1], ConfigCommand, cmd, child(), fr)
				k++
			}
		}
		if v == "-u" && (sub == "clone" || sub == "fetch" || sub == "ls-remote") && k+1 < len(rest) {
			p.nestedWord(rest[k+1], ConfigCommand, cmd, child(), fr)
			k++
		}
	}
	switch sub {
	case "rebase":
		for k := 0; k < len(rest); k++ {
			v := rest[k].Value
			switch {
			case (v == "-x" || v == "--exec") && k+1 < len(rest):
				p.nestedWord(rest[k+1], ShellC, cmd, child(), fr)
				k++
			case strings.HasPrefix(v, "--exec="):
				p.nestedWord(Word{Value: v[7:], Taint: rest[k].Taint, Dynamic: rest[k].Dynamic}.fix(), ShellC, cmd, child(), fr)
			}
		}
	case "submodule":
		for k := 0; k < len(rest); k++ {
			if rest[k].Value == "foreach" {
				words := rest[k+1:]
				for len(words) > 0 && (words[0].Value == "--recursive" || words[0].Value == "-q" || words[0].Value == "--quiet") {
					words = words[1:]
				}
				p.joinedScript(cmd, words, sc, fr)
				return
			}
		}
	case "bisect":
		if len(rest) > 1 && rest[0].Value == "run" {
			c := &Command{Args: append([]Word(nil), rest[1:]...), Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
			p.finish(c, child(), fr.child(Wrapped, cmd, fr.src))
		}
	case "config":
		var ops []Word
		for _, a := range rest {
			if !strings.HasPrefix(a.Value, "-") || a.Dynamic {
				ops = append(ops, a)
			}
		}
		if len(ops) >= 2 && (ops[0].Value == "set" || ops[0].Value == "--add") && len(ops) >= 3 {
			ops = ops[1:]
		}
		if len(ops) >= 2 && !ops[0].Dynamic {
			p.gitConfig(Word{Value: ops[0].Value + "=" + ops[1].Value, Dynamic: ops[1].Dynamic, Taint: ops[1].Taint}.fix(), cmd, sc, fr)
		}
	}
}

// safeexecRun follows a nested safeexec: safeexec [flags] -- CMD…,
// safeexec [flags] -c SCRIPT, safeexec SCRIPT. Exported SAFEEXEC_*
// variables reach it, so they are recorded with its assignments.
func (p *parser) safeexecRun(cmd *Command, sc *scope, fr *frame) {
	for k, v := range sc.vars {
		if (strings.HasPrefix(k, "SAFEEXEC_") || k == "XDG_CONFIG_HOME" || k == "XDG_STATE_HOME" || k == "HOME") && (v.exported || v.unset) {
			w := v.w
			if v.unset {
				w = Word{Value: "(unset)", Dynamic: true}
			}
			cmd.Assigns = append(cmd.Assigns, Assign{Name: k, Value: w})
		}
	}
	args := cmd.Args
	if len(args) < 2 {
		return
	}
	switch args[1].Value {
	case "check", "audit", "doctor", "config", "hook", "help", "version", "--help", "-h", "--version":
		return
	}
	child := p.childScope(sc, cmd)
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--":
			if i+1 < len(args) {
				c := &Command{Args: append([]Word(nil), args[i+1:]...), Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd, Stdin: cmd.Stdin}
				p.finish(c, child, fr.child(Wrapped, cmd, fr.src))
			}
			return
		case v == "-c" || v == "-lc" || v == "-ic" || v == "-lic" || v == "-ilc":
			if i+1 < len(args) {
				p.stringScript(cmd, args[i+1], sc, fr)
			}
			return
		}
	}
	last := args[len(args)-1]
	if len(args) >= 2 && !strings.HasPrefix(last.Value, "-") {
		p.stringScript(cmd, last, sc, fr)
	}
}

// GitCommandKey reports whether a git configuration key (lower case)
// holds a command that git runs.
func GitCommandKey(key string) bool {
	switch key {
	case "core.sshcommand", "core.fsmonitor", "core.pager", "core.editor", "core.askpass", "sequence.editor",
		"diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook", "interactive.difffilter",
		"web.browser", "core.gitproxy", "receive.procreceiverefs", "ssh.variant":
		return key != "ssh.variant" && key != "receive.procreceiverefs"
	}
	if strings.HasPrefix(key, "alias.") || strings.HasPrefix(key, "pager.") {
		return true
	}
	parts := strings.Split(key, ".")
	if len(parts) >= 3 {
		last := parts[len(parts)-1]
		switch parts[0] {
		case "diff":
			return last == "command" || last == "textconv"
		case "merge":
			return last == "driver"
		case "filter":
			return last == "clean" || last == "smudge" || last == "process"
		case "gpg":
			return last == "program"
		case "browser", "man", "mergetool", "difftool":
			return last == "cmd" || last == "path"
		case "remote":
			return last == "uploadpack" || last == "receivepack" || last == "proxy"
		}
	}
	return false
}

// commandVars are environment variables whose value a program runs as a
// command.
var commandVars = map[string]bool{
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_EDITOR": true, "GIT_PAGER": true, "GIT_EXTERNAL_DIFF": true,
	"GIT_ASKPASS": true, "GIT_SEQUENCE_EDITOR": true, "GIT_PROXY_COMMAND": true, "SSH_ASKPASS": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "BROWSER": true, "LESSOPEN": true,
	"LESSCLOSE": true, "PROMPT_COMMAND": true, "SUDO_ASKPASS": true, "SYSTEMD_PAGER": true,
}

// IsCommandVar reports whether an environment variable holds a command
// that programs run.
func IsCommandVar(name string) bool { return commandVars[name] }

// commandVar parses the value of a command-holding variable.
func (p *parser) commandVar(name string, val Word, sc *scope, fr *frame, cmd *Command) {
	switch {
	case commandVars[name]:
		if val.Value == "" && !val.Dynamic {
			return
		}
		v := val
		if name == "LESSOPEN" || name == "LESSCLOSE" {
			v.Value = strings.TrimLeft(strings.ReplaceAll(v.Value, "%s", "FILE"), "|-")
		}
		anchor := cmd
		if anchor == nil {
			anchor = &Command{Dir: sc.dir, DirKnown: sc.dirKnown}
		}
		p.nestedWord(v, ConfigCommand, anchor, p.childScope(sc, anchor), fr)
	case strings.HasPrefix(name, "BASH_FUNC_") && strings.HasSuffix(name, "%%"):
		// A function bash imports from the environment: its body runs
		// when the name is called.
		if val.Dynamic || !strings.HasPrefix(val.Value, "()") {
			return
		}
		fn := strings.TrimSuffix(strings.TrimPrefix(name, "BASH_FUNC_"), "%%")
		if !validName(fn) {
			fn = "f"
		}
		anchor := cmd
		if anchor == nil {
			anchor = &Command{Dir: sc.dir, DirKnown: sc.dirKnown}
		}
		p.nestedSh(fn+" "+val.Value, ConfigCommand, anchor, p.childScope(sc, anchor), fr, false)
	case name == "PS0" || name == "PS1" || name == "PS2" || name == "PS4":
		// Prompt strings are expanded when shown (PS4 by set -x in any
		// shell): their command substitutions run.
		if val.Dynamic || !strings.ContainsAny(val.Value, "$`") {
			return
		}
		p.promptString(val.Value, sc, fr, cmd)
	case name == "BASH_ENV" || name == "ENV":
		if cmd == nil || val.Value == "" {
			return
		}
		if n := cmd.Name(); isShell(n) {
			src := &Command{Args: []Word{Static("source"), val}, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
			p.finish(src, p.childScope(sc, cmd), fr.child(ConfigCommand, cmd, fr.src))
		}
	case name == "GIT_CONFIG_GLOBAL" || name == "GIT_CONFIG_SYSTEM" || name == "GIT_CONFIG":
		if !val.Dynamic && (val.Value == "/dev/null" || val.Value == "") {
			return
		}
		p.gitConfig(Word{Value: "include.path=" + val.Value}.fix(), &Command{Dir: sc.dir, DirKnown: sc.dirKnown}, sc, fr)
	case name == "GIT_CONFIG_PARAMETERS":
		if val.Dynamic || cmd == nil {
			return
		}
		for _, kv := range splitWords(val.Value) {
			p.gitConfig(Static(kv), cmd, sc, fr)
		}
	case strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		if cmd == nil {
			return
		}
		n := strings.TrimPrefix(name, "GIT_CONFIG_VALUE_")
		for _, a := range cmd.Assigns {
			if a.Name == "GIT_CONFIG_KEY_"+n {
				p.gitConfig(Word{Value: a.Value.Value + "=" + val.Value, Dynamic: a.Value.Dynamic || val.Dynamic}.fix(), cmd, sc, fr)
			}
		}
	}
}

// markDownloaded taints arguments naming files fetched earlier.
func (p *parser) markDownloaded(cmd *Command, sc *scope) {
	if len(sc.shared.downloads) == 0 {
		return
	}
	for i, a := range cmd.Args {
		if abs, ok := cmd.Abs(a); ok && sc.shared.downloads[abs] {
			cmd.Args[i].Taint |= Downloaded
		}
	}
}

// recordDownload remembers files that a command writes with data from the
// network, so that running them later is seen as running downloaded code.
func (p *parser) recordDownload(cmd *Command, sc *scope) {
	net := IsNetworkSource(cmd)
	fed := cmd.Stdin.Taint&(Network|Downloaded) != 0 || taintOf(cmd.Args)&(Network|Downloaded) != 0
	if !net && !fed {
		return
	}
	add := func(w Word) {
		if abs, ok := cmd.Abs(w); ok && abs != "/dev/null" && abs != "-" {
			if sc.shared.downloads == nil {
				sc.shared.downloads = make(map[string]bool)
			}
			sc.shared.downloads[abs] = true
		}
	}
	for _, r := range cmd.Redirs {
		if r.Writes() && (r.Fd == -1 || r.Fd == 1) {
			add(r.Target)
		}
	}
	name := cmd.Name()
	args := cmd.Args
	switch name {
	case "curl":
		dir, hasDir := anyArgs.Value(args, "", "output-dir")
		for _, w := range anyArgs.Values(args, "o", "output", 0) {
			if hasDir && !w.Dynamic && !dir.Dynamic && !path.IsAbs(w.Value) {
				w = Static(path.Join(dir.Value, w.Value))
			}
			add(w)
		}
		remoteName := false
		for _, a := range args[1:] {
			v := a.Value
			if v == "--" {
				break
			}
			if v == "--remote-name" || v == "--remote-name-all" || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v, "OJ") {
				remoteName = true
			}
		}
		if remoteName {
			for _, u := range args[1:] {
				if b := urlBase(u.Value); b != "" {
					if hasDir && !dir.Dynamic {
						b = path.Join(dir.Value, b)
					}
					add(Static(b))
				}
			}
		}
	case "wget":
		outs := anyArgs.Values(args, "O", "output-document", 0)
		for _, o := range outs {
			add(o)
		}
		if len(outs) == 0 {
			prefix, hasPrefix := anyArgs.Value(args, "P", "directory-prefix")
			for _, u := range args[1:] {
				if b := urlBase(u.Value); b != "" {
					if hasPrefix && !prefix.Dynamic {
						b = path.Join(prefix.Value, b)
					}
					add(Static(b))
				}
			}
		}
	case "tee", "sponge":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a.Value, "-") {
				add(a)
			}
		}
	case "dd":
		for _, a := range args[1:] {
			if strings.HasPrefix(a.Value, "of=") && !a.Dynamic {
				add(Static(a.Value[3:]))
			}
		}
	case "cp", "mv", "install":
		if len(args) > 2 && taintOf(args[1:len(args)-1])&(Network|Downloaded) != 0 {
			add(args[len(args)-1])
		}
	}
}

func urlBase(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	rest := u[i+3:]
	if j := strings.IndexAny(rest, "?#"); j >= 0 {
		rest = rest[:j]
	}
	k := strings.IndexByte(rest, '/')
	if k < 0 {
		return ""
	}
	b := path.Base(rest[k:])
	if b == "/" || b == "." || b == "" {
		return ""
	}
	return b
}

// walkScript walks parsed statements in a fresh frame (used by the agent
// wrapper shapes).
func (p *parser) walkFile(f *syntax.File, sc *scope, fr *frame) {
	p.walkStmts(f.Stmts, sc, fr)
}

// recordWrites remembers what a command changes on disk, so that a local
// script read later in the same script is not trusted (its content on
// disk is not what will run), and records symbolic links.
func (p *parser) recordWrites(cmd *Command, sc *scope) {
	sh := sc.shared
	defer p.recordVenv(cmd, sc)
	file := func(w Word) {
		sh.writes++
		if w.Proc {
			return
		}
		abs, ok := cmd.Abs(w)
		if !ok {
			if w.Dynamic || !cmd.DirKnown {
				sh.anyWritten = true
			}
			return
		}
		if abs == "/dev/null" || strings.HasPrefix(abs, "/dev/") {
			return
		}
		delete(sh.built, abs)
		if sh.written == nil {
			sh.written = make(map[string]bool)
		}
		sh.written[abs] = true
	}
	dir := func(w Word) {
		file(w)
		if abs, ok := cmd.Abs(w); ok {
			sh.writtenDirs = append(sh.writtenDirs, abs)
		}
	}
	here := func() {
		sh.writes++
		if cmd.DirKnown {
			sh.writtenDirs = append(sh.writtenDirs, cmd.Dir)
		} else {
			sh.anyWritten = true
		}
	}
	for _, r := range cmd.Redirs {
		if r.Writes() {
			file(r.Target)
		}
	}
	if len(cmd.Args) == 0 || cmd.Args[0].Dynamic {
		return
	}
	args := cmd.Args
	operands := func() []Word {
		var out []Word
		for _, a := range args[1:] {
			if !strings.HasPrefix(a.Value, "-") || a.Dynamic {
				out = append(out, a)
			}
		}
		return out
	}
	name := cmd.Name()
	switch name {
	case "go", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "swiftc", "ghc", "gfortran", "tinygo", "zig", "ld", "nvcc":
		// Compilers: -o FILE is a program.
		for i, a := range args {
			out := ""
			switch {
			case a.Value == "-o" && i+1 < len(args) && !args[i+1].Dynamic:
				out = args[i+1].Value
			case strings.HasPrefix(a.Value, "-o") && len(a.Value) > 2 && name != "go":
				out = a.Value[2:]
			}
			if out == "" {
				continue
			}
			if abs, ok := cmd.Abs(Static(out)); ok {
				if sh.built == nil {
					sh.built = make(map[string]bool)
				}
				sh.built[abs] = true
			}
		}
		if name == "go" || name == "zig" {
			return
		}
		here()
		return
	case "python", "python3", "python2", "pypy3", "node", "nodejs", "deno", "bun", "php", "lua", "luajit", "Rscript", "R", "awk", "gawk", "mawk", "nawk", "osascript":
		// Inline code may write any file it names: what a later command
		// reads from there is not what is on disk now.
		for _, a := range args[1:] {
			if a.Dynamic || !strings.ContainsAny(a.Value, "\"'") {
				continue
			}
			for _, lit := range quotedLiterals(a.Value) {
				file(Static(lit))
			}
		}
	case "sponge":
		for _, a := range operands() {
			file(a)
		}
	case "tee", "truncate", "sed", "perl", "ruby", "gsed", "shred", "dd":
		for _, a := range operands() {
			file(a)
			if (name == "perl" || name == "ruby") && !a.Dynamic {
				for _, lit := range quotedLiterals(a.Value) {
					file(Static(lit))
				}
			}
			if (name == "sed" || name == "gsed") && !a.Dynamic {
				_, ws, _ := SedScript(a.Value)
				for _, w := range ws {
					file(Static(w))
				}
			}
		}
		for _, a := range args[1:] {
			if strings.HasPrefix(a.Value, "of=") {
				file(Word{Value: a.Value[3:], Dynamic: a.Dynamic}.fix())
			}
		}
	case "cp", "mv", "install", "rsync", "ditto", "scp":
		ops := operands()
		if len(ops) > 0 {
			dir(ops[len(ops)-1])
		}
		if name == "cp" && len(ops) == 2 && anyArgs.Has(args, "s", "symbolic-link") {
			// cp -s makes symbolic links (cp -rs a tree of them).
			p.addLink(cmd, ops[0], ops[1])
		}
		for i, a := range args {
			if (a.Value == "-t" || a.Value == "--target-directory") && i+1 < len(args) {
				dir(args[i+1])
			}
		}
	case "ln":
		ops := operands()
		if len(ops) == 0 {
			return
		}
		link := ops[len(ops)-1]
		dir(link)
		if len(ops) >= 2 && anyArgs.Has(args, "s", "symbolic") {
			p.addLink(cmd, ops[len(ops)-2], link)
		}
	case "patch", "unzip", "tar", "bsdtar", "gtar", "7z", "cpio", "make", "gmake", "cmake", "npm", "yarn", "pnpm":
		here()
		for i, a := range args {
			if (a.Value == "-C" || a.Value == "-d" || a.Value == "--directory") && i+1 < len(args) {
				dir(args[i+1])
			}
		}
	case "git":
		for i := 1; i < len(args); i++ {
			if oneOfFold(args[i].Value, "checkout", "pull", "merge", "rebase", "reset", "restore", "switch", "stash", "apply", "am", "cherry-pick", "revert", "clone", "worktree", "submodule", "mv", "rm") {
				here()
				break
			}
		}
	}
}

// trapRun follows trap [--] ACTION SIGNAL…: the action is shell code run
// later in the same shell.
func (p *parser) trapRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args[1:]
	if len(args) > 0 && !args[0].Dynamic && args[0].Value == "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		// trap, trap -p, trap -l, trap SIGNAL (a reset): no action.
		return
	}
	a := args[0]
	if !a.Dynamic && (a.Value == "-" || a.Value == "" || strings.HasPrefix(a.Value, "-") && len(a.Value) == 2) {
		return
	}
	p.nestedWord(a, Trap, cmd, sc.clone(), fr)
	// The action runs later in this shell, maybe before every command
	// (DEBUG): what it assigns and whether it changes directory are
	// unknown from now on.
	sh := sc.shared
	names, cd := []string{"*"}, true
	if !a.Dynamic {
		if f, err := p.parseSh(a.Value, Trap); err == nil && f != nil {
			names, cd = assignedNames(f)
		}
	}
	for _, n := range names {
		if sh.volatile == nil {
			sh.volatile = make(map[string]bool)
		}
		sh.volatile[n] = true
	}
	if cd {
		sh.trapCd = true
		sc.dirKnown = false
	}
}

// hashRun records hash -p PATH NAME…: from then on NAME runs PATH.
func (p *parser) hashRun(cmd *Command, sc *scope) {
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		if args[i].Dynamic || !strings.HasPrefix(v, "-") || v == "--" {
			return
		}
		k := strings.IndexByte(v, 'p')
		if k < 0 {
			continue
		}
		var prog Word
		rest := i + 1
		if k < len(v)-1 {
			prog = Word{Value: v[k+1:], Taint: args[i].Taint}.fix()
		} else if i+1 < len(args) {
			prog, rest = args[i+1], i+2
		} else {
			return
		}
		sh := sc.shared
		for _, n := range args[rest:] {
			if n.Dynamic {
				// Any name may now run the program.
				n = Static("*")
			}
			if sh.hashed == nil {
				sh.hashed = make(map[string][]Word)
			}
			if len(sh.hashed[n.Value]) < 8 {
				sh.hashed[n.Value] = append(sh.hashed[n.Value], prog)
			}
		}
		return
	}
}

// hashed judges a command whose name hash -p bound to a program: the
// program runs instead. The command as written is kept too (the binding
// may not apply, in a subshell or after hash -r).
func (p *parser) hashed(cmd *Command, sc *scope, fr *frame) {
	sh := sc.shared
	if p.inHashed || len(sh.hashed) == 0 || len(cmd.Args) == 0 || cmd.Args[0].Dynamic || strings.Contains(cmd.Args[0].Value, "/") {
		return
	}
	p.inHashed = true
	defer func() { p.inHashed = false }()
	progs := append(append([]Word(nil), sh.hashed[cmd.Args[0].Value]...), sh.hashed["*"]...)
	for _, prog := range progs {
		args := append([]Word{prog}, cmd.Args[1:]...)
		child := &Command{Args: args, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd, Stdin: cmd.Stdin}
		cf := fr.child(Alias, cmd, fr.src)
		cf.depth = fr.depth
		p.finish(child, sc.clone(), cf)
	}
}

// tmuxSubs are the tmux commands that run a shell command, with their
// options that take a value.
var tmuxSubs = map[string]string{
	"new-session": "cefFnstxyX", "new": "cefFnstxyX",
	"new-window": "cefFnt", "neww": "cefFnt",
	"split-window": "celFt", "splitw": "celFt",
	"respawn-pane": "cet", "respawnp": "cet",
	"respawn-window": "cet", "respawnw": "cet",
	"run-shell": "cdt", "run": "cdt",
	"if-shell": "t", "if": "t",
	"display-popup": "bcdehsStTwxy", "popup": "bcdehsStTwxy",
	"pipe-pane": "t", "pipep": "t",
}

// tmuxRun follows the shell commands tmux runs: tmux -c CMD, and the
// shell-command of new-session, new-window, split-window, run-shell,
// if-shell, display-popup, pipe-pane, … (several tmux commands may be
// given, separated by ";").
func (p *parser) tmuxRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	i := 1
	for i < len(args) {
		v := args[i].Value
		if args[i].Dynamic || !strings.HasPrefix(v, "-") {
			break
		}
		if v == "--" {
			i++
			break
		}
		if k := strings.IndexAny(v, "cfLST"); k > 0 {
			val := Word{}
			if k < len(v)-1 {
				val = Word{Value: v[k+1:], Taint: args[i].Taint}.fix()
			} else if i+1 < len(args) {
				val = args[i+1]
				i++
			}
			if v[k] == 'c' {
				p.stringScript(cmd, val, sc, fr)
			}
		}
		i++
	}
	for i < len(args) {
		end := i
		for end < len(args) && !(args[end].Value == ";" || args[end].Value == `\;`) {
			end++
		}
		p.tmuxCommand(cmd, args[i:end], sc, fr)
		i = end + 1
	}
}

func (p *parser) tmuxCommand(cmd *Command, words []Word, sc *scope, fr *frame) {
	if len(words) == 0 || words[0].Dynamic {
		return
	}
	withVal, ok := tmuxSubs[words[0].Value]
	if !ok {
		return
	}
	i := (&ArgSpec{Short: withVal}).Skip(words)
	if i <= 0 {
		return
	}
	rest := words[i:]
	if v := words[0].Value; (v == "if-shell" || v == "if") && len(rest) > 0 {
		rest = rest[:1]
	}
	p.joinedScript(cmd, rest, sc, fr)
}

// wslRun follows the Linux command wsl runs: wsl [opts] -e CMD ARG… runs
// it directly, wsl [opts] [--] CMD… through the distribution's shell.
func (p *parser) wslRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		v := strings.ToLower(a.Value)
		switch {
		case a.Dynamic:
			cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the command is only known at run time", Taint: a.Taint}
			return
		case v == "-e" || v == "--exec":
			if i+1 < len(args) {
				c := &Command{Args: append([]Word(nil), args[i+1:]...), Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd, Stdin: cmd.Stdin}
				p.finish(c, p.childScope(sc, cmd), fr.child(Wrapped, cmd, fr.src))
			}
			return
		case v == "--":
			p.joinedScript(cmd, args[i+1:], sc, fr)
			return
		case v == "-d" || v == "--distribution" || v == "-u" || v == "--user" || v == "--cd" || v == "--shell-type" || v == "--distribution-id":
			i++
		case strings.HasPrefix(v, "-"):
			// --shutdown, --list, --install, …: no command to follow.
			if !oneOfFold(v, "--system") {
				return
			}
		default:
			p.joinedScript(cmd, args[i:], sc, fr)
			return
		}
	}
}

// promptString walks the command substitutions of a prompt string.
func (p *parser) promptString(text string, sc *scope, fr *frame, cmd *Command) {
	if !p.step() || fr.depth+1 > maxReparse || len(text) > maxValue || nestingDepth(text) > MaxNesting {
		return
	}
	w, err := p.parseDoc(text)
	if err != nil {
		p.issue(ParseError, ConfigCommand, fmt.Sprintf("%s: %v", ConfigCommand, err))
		return
	}
	anchor := cmd
	if anchor == nil {
		anchor = &Command{Dir: sc.dir, DirKnown: sc.dirKnown}
	}
	p.walkNested(w, p.childScope(sc, anchor), fr.child(ConfigCommand, cmd, text))
}

func (p *parser) parseDoc(src string) (w *syntax.Word, err error) {
	defer func() {
		if r := recover(); r != nil {
			w, err = nil, fmt.Errorf("parser failed: %v", r)
		}
	}()
	return p.sp.Document(strings.NewReader(src))
}

// vimRun follows the shell commands vim's -c, --cmd and +CMD arguments
// run (:!cmd, :r !cmd, :w !cmd, :terminal cmd); a call of system() runs
// a command built at run time.
func (p *parser) vimRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		var ex Word
		switch {
		case (v == "-c" || v == "--cmd") && i+1 < len(args):
			ex = args[i+1]
			i++
		case strings.HasPrefix(v, "+") && len(v) > 1 && !args[i].Dynamic:
			ex = Word{Value: v[1:], Taint: args[i].Taint}.fix()
		case v == "--":
			return
		default:
			continue
		}
		if ex.Dynamic {
			p.stringScript(cmd, ex, sc, fr)
			continue
		}
		for _, sh := range exShellCommands(ex.Value) {
			w := Word{Value: sh, Taint: ex.Taint}.fix()
			if sh == "" {
				// system(), :python, :source, …: code built at run time
				// or read from elsewhere.
				w = Word{Value: ex.Value, Dynamic: true, Taint: ex.Taint}
			}
			p.stringScript(cmd, w, sc, fr)
		}
	}
}

// exShellCommands returns the shell commands of a line of ex commands
// ("" for code that runs commands built at run time).
func exShellCommands(line string) []string {
	var out []string
	for line != "" {
		l := strings.TrimLeft(line, ": \t")
		l = strings.TrimLeft(l, "0123456789,.$%'<>;+- \t")
		word := l
		for k := 0; k < len(word); k++ {
			if c := word[k]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				word = word[:k]
				break
			}
		}
		rest := strings.TrimLeft(l[len(word):], " \t")
		switch {
		case strings.HasPrefix(l, "!"):
			return append(out, l[1:])
		case oneOf(word, "r", "re", "rea", "read", "w", "wr", "wri", "writ", "write", "wa", "wq", "x", "xit", "sav", "saveas") && strings.HasPrefix(strings.TrimLeft(rest, "+=abcdefghijklmnopqrstuvwxyz"), "!"):
			r := strings.TrimLeft(rest, "+=abcdefghijklmnopqrstuvwxyz")
			return append(out, r[1:])
		case oneOf(word, "ter", "term", "termi", "termin", "termina", "terminal"):
			for strings.HasPrefix(rest, "++") {
				_, rest, _ = strings.Cut(rest, " ")
				rest = strings.TrimLeft(rest, " \t")
			}
			if rest != "" {
				return append(out, rest)
			}
			return out
		}
		cur, next, more := strings.Cut(l, "|")
		if strings.Contains(cur, "system(") || strings.Contains(cur, "systemlist(") || strings.Contains(cur, "jobstart(") || strings.Contains(cur, "term_start(") || oneOf(word, "exe", "exec", "execute", "lua", "py", "py3", "python", "python3", "perl", "ruby", "luado", "pydo", "py3do", "perldo", "rubydo", "pyfile", "py3file", "luafile", "so", "sou", "sour", "sourc", "source") {
			out = append(out, "")
		}
		if !more {
			break
		}
		line = next
	}
	return out
}

// gdbRun follows gdb's -ex/-iex commands that run shell commands
// (shell CMD, !CMD).
func (p *parser) gdbRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		var ex Word
		switch {
		case (v == "-ex" || v == "-iex" || v == "--ex" || v == "--iex" || v == "-eval-command" || v == "--eval-command" || v == "-init-eval-command" || v == "--init-eval-command") && i+1 < len(args):
			ex = args[i+1]
			i++
		case strings.HasPrefix(v, "--eval-command=") || strings.HasPrefix(v, "--init-eval-command=") || strings.HasPrefix(v, "-eval-command=") || strings.HasPrefix(v, "-init-eval-command="):
			_, val, _ := strings.Cut(v, "=")
			ex = Word{Value: val, Dynamic: args[i].Dynamic, Taint: args[i].Taint}.fix()
		default:
			continue
		}
		if ex.Dynamic {
			p.stringScript(cmd, ex, sc, fr)
			continue
		}
		l := strings.TrimSpace(ex.Value)
		switch {
		case strings.HasPrefix(l, "!"):
			p.stringScript(cmd, Word{Value: l[1:], Taint: ex.Taint}.fix(), sc, fr)
		case strings.HasPrefix(l, "shell ") || strings.HasPrefix(l, "shell\t"):
			p.stringScript(cmd, Word{Value: l[6:], Taint: ex.Taint}.fix(), sc, fr)
		case strings.HasPrefix(l, "pipe ") || strings.HasPrefix(l, "|"):
			if _, sh, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(l, "pipe"), "|"), "|"); ok {
				p.stringScript(cmd, Word{Value: sh, Taint: ex.Taint}.fix(), sc, fr)
			}
		case strings.HasPrefix(l, "python") || strings.HasPrefix(l, "py ") || strings.HasPrefix(l, "guile") || strings.HasPrefix(l, "source"):
			p.stringScript(cmd, Word{Value: l, Dynamic: true, Taint: ex.Taint}, sc, fr)
		}
	}
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// SedScript finds what a sed script runs (see sedCommands), the files
// its w and W commands and s///w flags write, and the files its r and R
// commands read.
func SedScript(script string) (cmds, writes, reads []string) {
	for _, line := range strings.FieldsFunc(script, func(r rune) bool { return r == '\n' || r == ';' }) {
		l := strings.TrimLeft(line, " \t0123456789,$!~")
		for strings.HasPrefix(l, "/") || strings.HasPrefix(l, `\`) {
			d := byte('/')
			if l[0] == '\\' && len(l) > 1 {
				d, l = l[1], l[1:]
			}
			k := strings.IndexByte(l[1:], d)
			if k < 0 {
				break
			}
			l = strings.TrimLeft(l[k+2:], " \t,0123456789$!~I")
		}
		l = strings.TrimLeft(l, "{ \t")
		file := func(rest string) string { return strings.TrimSpace(rest) }
		switch {
		case l == "e":
			cmds = append(cmds, "")
		case strings.HasPrefix(l, "e ") || strings.HasPrefix(l, "e\t"):
			cmds = append(cmds, strings.TrimSpace(l[2:]))
		case len(l) > 1 && (l[0] == 'w' || l[0] == 'W') && (l[1] == ' ' || l[1] == '\t'):
			if f := file(l[2:]); f != "" {
				writes = append(writes, f)
			}
		case len(l) > 1 && (l[0] == 'r' || l[0] == 'R') && (l[1] == ' ' || l[1] == '\t'):
			if f := file(l[2:]); f != "" {
				reads = append(reads, f)
			}
		case len(l) > 3 && (l[0] == 's' || l[0] == 'y'):
			d := l[1]
			parts := strings.SplitN(l[2:], string(d), 3)
			if l[0] == 's' && len(parts) == 3 {
				flags := parts[2]
				if k := strings.IndexByte(flags, 'w'); k >= 0 {
					if f := file(flags[k+1:]); f != "" {
						writes = append(writes, f)
					}
					flags = flags[:k]
				}
				if strings.Contains(flags, "e") {
					cmds = append(cmds, "")
				}
			}
		}
	}
	return cmds, writes, reads
}

// quotedLiterals returns the quoted strings in code that could name a
// file (no blanks, at most a few hundred bytes).
func quotedLiterals(code string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < 64; i++ {
		q := code[i]
		if q != '"' && q != '\'' {
			continue
		}
		j := strings.IndexByte(code[i+1:], q)
		if j < 0 {
			break
		}
		lit := code[i+1 : i+1+j]
		i += j + 1
		if lit != "" && len(lit) < 512 && !strings.ContainsAny(lit, " \t\n\\$%{}") {
			out = append(out, lit)
		}
	}
	return out
}

// addLink records a symbolic link NAME → TARGET the script creates.
func (p *parser) addLink(cmd *Command, target, link Word) {
	t, ok := cmd.Abs(target)
	if !ok || target.Dynamic {
		return
	}
	l, ok := cmd.Abs(link)
	if !ok {
		return
	}
	if p.prog.Links == nil {
		p.prog.Links = make(map[string]string)
	}
	if strings.HasPrefix(target.Value, "/") {
		p.prog.Links[l] = t
	} else {
		p.prog.Links[l] = path.Join(path.Dir(l), target.Value)
	}
}

// gitExtWords splits the command of a git ext:: remote: spaces separate
// words, "% " is a space, "%%" a percent sign, %s, %S and %G stand for
// values git fills in.
func gitExtWords(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+1 < len(s):
			i++
			switch s[i] {
			case ' ':
				cur.WriteByte(' ')
			case '%':
				cur.WriteByte('%')
			case 's', 'S':
				cur.WriteString("git-upload-pack")
			case 'G':
				cur.WriteString("repo")
			default:
				cur.WriteByte('%')
				cur.WriteByte(s[i])
			}
			in = true
		case c == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// foldName lower-cases a command name (without a directory) where
// names are found case-insensitively.
func (p *parser) foldName(cmd *Command) {
	if !p.opts.FoldNames || len(cmd.Args) == 0 {
		return
	}
	a := cmd.Args[0]
	if a.Dynamic || strings.ContainsAny(a.Value, "/\\") || strings.ToLower(a.Value) == a.Value {
		return
	}
	l := strings.ToLower(a.Value)
	cmd.Args[0] = Word{Value: l, Prefix: l, Taint: a.Taint, Glob: a.Glob}
}

// makeRun follows what make runs that the command line itself shows:
// SHELL=PROG (recipes run through PROG), --eval TEXT and a makefile fed
// on standard input (make -f -); makefiles on disk are not read.
func (p *parser) makeRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		v := a.Value
		switch {
		case strings.HasPrefix(a.Prefix, "SHELL=") || strings.HasPrefix(a.Prefix, ".SHELLFLAGS="):
			_, val, _ := strings.Cut(v, "=")
			w := Word{Value: val, Dynamic: a.Dynamic, Taint: a.Taint}.fix()
			if strings.HasPrefix(v, "SHELL=") {
				p.nestedWord(Word{Value: val + " -c :", Dynamic: a.Dynamic, Taint: a.Taint}.fix(), ConfigCommand, cmd, p.childScope(sc, cmd), fr)
			} else if w.Dynamic {
				p.nestedWord(w, ConfigCommand, cmd, p.childScope(sc, cmd), fr)
			}
		case v == "--eval" && i+1 < len(args):
			i++
			p.makefile(cmd, args[i], sc, fr)
		case strings.HasPrefix(v, "--eval="):
			p.makefile(cmd, Word{Value: v[len("--eval="):], Dynamic: a.Dynamic, Taint: a.Taint}.fix(), sc, fr)
		case (v == "-f" || v == "--file" || v == "--makefile") && i+1 < len(args):
			i++
			f := args[i]
			if !f.Dynamic && (f.Value == "-" || f.Value == "/dev/stdin" || f.Value == "/dev/fd/0" || f.Value == "/proc/self/fd/0") {
				in := cmd.Stdin
				if in.TextKnown && in.Taint == 0 {
					p.makefile(cmd, Static(in.Text), sc, fr)
				} else if in.Kind != InputInherited {
					cmd.Script = &ScriptRun{Kind: ScriptStdin, Taint: in.Taint, Why: "the makefile comes from standard input"}
				}
			} else if f.Proc {
				if f.ContentKnown {
					p.makefile(cmd, Static(f.Content), sc, fr)
				} else {
					cmd.Script = &ScriptRun{Kind: ScriptPath, Path: f, Taint: f.Taint, Why: "the makefile comes from a process substitution"}
				}
			}
		}
	}
}

// makefile walks the shell code of makefile text: recipe lines and
// $(shell …) calls. Make variables stay unknown.
func (p *parser) makefile(cmd *Command, w Word, sc *scope, fr *frame) {
	cmd.Script = &ScriptRun{Kind: ScriptString, Taint: w.Taint}
	if w.Dynamic {
		cmd.Script.Why = "the makefile text is only known at run time"
		return
	}
	var code strings.Builder
	for _, line := range strings.Split(w.Value, "\n") {
		if strings.HasPrefix(line, "\t") {
			code.WriteString(makeToShell(strings.TrimLeft(line[1:], "@+- \t")))
			code.WriteByte('\n')
			continue
		}
		for rest := line; ; {
			k := strings.Index(rest, "$(shell ")
			if k < 0 {
				break
			}
			body := rest[k+8:]
			depth, end := 1, len(body)
			for j := 0; j < len(body); j++ {
				if body[j] == '(' {
					depth++
				} else if body[j] == ')' {
					if depth--; depth == 0 {
						end = j
						break
					}
				}
			}
			code.WriteString(makeToShell(body[:end]))
			code.WriteByte('\n')
			rest = body[min(end+1, len(body)):]
		}
		if _, after, ok := strings.Cut(line, ";"); ok && strings.Contains(line[:strings.IndexByte(line, ';')], ":") && !strings.Contains(line, "=") {
			// target: prereq ; recipe
			code.WriteString(makeToShell(after))
			code.WriteByte('\n')
		}
	}
	cmd.Script.Known = p.nestedSh(code.String(), ShellC, cmd, p.childScope(sc, cmd), fr, false)
}

// makeToShell turns a make recipe line into shell text: $$ is $,
// $(shell X) runs X, other $(VAR) and ${VAR} references stay unknown.
func makeToShell(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch n := s[i+1]; {
		case n == '$':
			b.WriteByte('$')
			i++
		case n == '(' || n == '{':
			if strings.HasPrefix(s[i+2:], "shell ") {
				b.WriteString("$(")
				i += 7
				continue
			}
			closer := byte(')')
			if n == '{' {
				closer = '}'
			}
			end := strings.IndexByte(s[i+2:], closer)
			if end < 0 {
				b.WriteString("${MAKEVAR}")
				i = len(s)
				continue
			}
			b.WriteString("${MAKEVAR}")
			i += 2 + end
		default:
			b.WriteString("${MAKEVAR}")
			i++
		}
	}
	return b.String()
}

// venvActivate stands for the activate script python -m venv, virtualenv
// and uv venv write: it sets VIRTUAL_ENV and puts its bin directory first
// in PATH.
const venvActivate = `deactivate () { PATH="$_OLD_VIRTUAL_PATH"; export PATH; unset VIRTUAL_ENV; }
_OLD_VIRTUAL_PATH="$PATH"
VIRTUAL_ENV=VENV
export VIRTUAL_ENV
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH
`

// recordVenv remembers the activate script of a virtual environment the
// command creates (python -m venv DIR, virtualenv DIR, uv venv [DIR]):
// sourced right after, with nothing written in between, its content is
// the generator's, not whatever is on disk now.
func (p *parser) recordVenv(cmd *Command, sc *scope) {
	args := cmd.Args
	if len(args) < 2 || len(cmd.Wrappers) > 0 {
		return
	}
	name := cmd.Name()
	var rest []Word
	def := ""
	switch {
	case (strings.HasPrefix(name, "python") || name == "pypy3") && len(args) > 3 && args[1].Value == "-m" && (args[2].Value == "venv" || args[2].Value == "virtualenv"):
		rest = args[3:]
	case name == "virtualenv":
		rest = args[1:]
	case name == "uv" && args[1].Value == "venv":
		rest, def = args[2:], ".venv"
	default:
		return
	}
	dir := def
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a.Dynamic {
			return
		}
		if oneOf(a.Value, "--prompt", "-p", "--python", "--seed", "--extra-search-dir", "--activators", "--index-url", "--link-mode", "--upgrade-deps") && a.Value != "--seed" && a.Value != "--upgrade-deps" {
			i++
			continue
		}
		if !strings.HasPrefix(a.Value, "-") {
			dir = a.Value
		}
	}
	if dir == "" {
		return
	}
	abs, ok := cmd.Abs(Static(path.Join(dir, "bin", "activate")))
	if !ok {
		return
	}
	sh := sc.shared
	if sh.venvs == nil {
		sh.venvs = make(map[string]int)
	}
	sh.venvs[abs] = sh.writes
	delete(sh.written, abs)
}

// venvScript returns the activate script of a virtual environment created
// earlier in the script, when nothing was written since.
func (sh *shared) venvScript(abs string) (string, bool) {
	n, ok := sh.venvs[abs]
	if !ok || n != sh.writes || sh.anyWritten {
		return "", false
	}
	return strings.Replace(venvActivate, "VENV", path.Dir(path.Dir(abs)), 1), true
}

func (sh *shared) defineAlias(name, body string) {
	if sh.aliases == nil {
		sh.aliases = make(map[string]string)
	}
	if len(sh.aliases) < 256 {
		sh.aliases[name] = body
	}
}

// aliased follows a command whose name is an alias the script defined:
// with expand_aliases the body runs in the current shell, so what it
// assigns or where it changes directory matters to the commands after
// it. The command as written is kept too (aliases may be off), and the
// state the body changes becomes unknown rather than taken as changed.
func (p *parser) aliased(cmd *Command, sc *scope, fr *frame) {
	sh := sc.shared
	if len(sh.aliases) == 0 || len(cmd.Args) == 0 || cmd.Args[0].Dynamic || len(cmd.Wrappers) > 0 {
		return
	}
	name := cmd.Args[0].Value
	body, ok := sh.aliases[name]
	if !ok || p.expanding[name] || len(p.expanding) > 8 {
		return
	}
	if p.expanding == nil {
		p.expanding = make(map[string]bool)
	}
	p.expanding[name] = true
	defer delete(p.expanding, name)
	var b strings.Builder
	b.WriteString(body)
	for _, a := range cmd.Args[1:] {
		b.WriteByte(' ')
		if a.Dynamic {
			b.WriteString(a.Value)
			continue
		}
		q, err := syntax.Quote(a.Value, syntax.LangBash)
		if err != nil {
			return
		}
		b.WriteString(q)
	}
	run := sc.clone()
	p.nestedSh(b.String(), Alias, cmd, run, fr, false)
	sc.merge(run)
}

// anyArgs reads options for programs whose options are not described:
// none takes a value unless the question says so.
var anyArgs = &ArgSpec{}

// zipCommand finds zip's -TT CMD / --unzip-command CMD (-TT is one
// two-letter option, not a cluster).
func zipCommand(args []Word) (Word, bool) {
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		switch {
		case args[i].Dynamic:
		case v == "--":
			return Word{}, false
		case (v == "-TT" || v == "--unzip-command") && i+1 < len(args):
			return args[i+1], true
		case strings.HasPrefix(v, "--unzip-command="):
			return Word{Value: v[len("--unzip-command="):], Taint: args[i].Taint}.fix(), true
		case strings.HasPrefix(v, "-TT") && len(v) > 3:
			return Word{Value: v[3:], Taint: args[i].Taint}.fix(), true
		}
	}
	return Word{}, false
}
