package shell

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
	child := sc.shared.newScope()
	*child = scope{shared: sc.shared, dir: cmd.Dir, dirKnown: cmd.DirKnown, arg0: dynWord("$0")}
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
	if abs, ok := cmd.Abs(w); ok && sc.shared.downloaded(abs) {
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
	if sc.shared.downloaded(abs) {
		return "", "the script is downloaded by an earlier command"
	}
	if text, ok := sc.shared.literalScript(abs); ok {
		return text, ""
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
	if len(data) > MaxScriptFile {
		return "", fmt.Sprintf("%s is larger than %d bytes", abs, MaxScriptFile)
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
// /home/linuxbrew/.linuxbrew is Homebrew's prefix on Linux.
var systemDirs = []string{"/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/opt/", "/nix/", "/snap/", "/System/", "/Library/", "/Applications/", "/etc/", "/home/linuxbrew/.linuxbrew/"}

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
		w := Static(path.Join(dir, name))
		abs, ok := cmd.Abs(w)
		if !ok {
			continue
		}
		if p.installed(dir+"/", abs) {
			continue
		}
		if sc.shared.changed(abs) || sc.shared.downloaded(abs) {
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

// installed reports whether a program path as written lies in a
// directory of installed programs, and not in a writable root: a project
// under /opt or /usr/local/src is a project, whose scripts are read.
func (p *parser) installed(written, abs string) bool {
	for _, d := range systemDirs {
		if strings.HasPrefix(written, d) {
			return abs == "" || p.opts.Writable == nil || !p.opts.Writable(abs)
		}
	}
	return false
}

func (p *parser) directRunPath(cmd *Command, w Word, sc *scope, fr *frame) {
	abs, ok := cmd.Abs(w)
	if p.installed(w.Value, abs) {
		return
	}
	if !ok {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: "the program's path is only known at run time"}
		return
	}
	if sc.shared.downloaded(abs) {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Taint: Downloaded, Why: "the program is downloaded by an earlier command"}
		return
	}
	if text, ok := sc.shared.literalScript(abs); ok {
		// Written literally by an earlier command: judged by that text.
		p.runText(cmd, w, []byte(text), sc, fr, false)
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
	if sc.shared.underBuilt(abs) {
		// Where an earlier command of the script builds or installs
		// programs (make, cargo build, npm install, a virtual
		// environment): a program, judged like any other; a script that
		// is there now is judged by what it says.
		if p.opts.ReadScript != nil {
			if data, err := p.opts.ReadScript(abs); err == nil && len(data) <= MaxScriptFile && !isBinary(data) {
				p.runText(cmd, w, data, sc, fr, true)
			}
		}
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
	if len(data) > MaxScriptFile {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: fmt.Sprintf("%s is larger than %d bytes", abs, MaxScriptFile)}
		return
	}
	if isBinary(data) {
		cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Why: abs + " is neither a script nor a known executable format"}
		return
	}
	p.runText(cmd, w, data, sc, fr, true)
}

// runText judges a script run directly by its text: shell code is
// walked; a script for another interpreter (a python or node shebang) is
// judged like running that interpreter on a file.
func (p *parser) runText(cmd *Command, w Word, data []byte, sc *scope, fr *frame, fromFile bool) {
	interp := shebang(data)
	if interp != "" && !isShell(interp) {
		return
	}
	child := p.childScope(sc, cmd)
	child.arg0 = w
	child.pos, child.posKnown = cmd.Args[1:], true
	cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w}
	cmd.Script.Known = p.nestedSh(string(data), ScriptFile, cmd, child, fr, fromFile)
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

// walkScript walks parsed statements in a fresh frame (used by the agent
// wrapper shapes).
func (p *parser) walkFile(f *syntax.File, sc *scope, fr *frame) {
	p.walkStmts(f.Stmts, sc, fr)
}
