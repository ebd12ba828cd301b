package shell

import (
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
		// It may name any function of the script.
		sc.shared.dynCall = true
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
		default:
			p.follow(cmd, p.tool(name), sc, fr)
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
	default:
		followed := p.follow(cmd, p.tool(name), sc, fr)
		switch {
		case sc.shared.funcs[name]:
			// A function of the script: its body is walked with this
			// call's arguments (or once with unknown ones at the end).
			if fr.origin != Maybe {
				p.callFunc(cmd, sc, fr)
			}
			if sc.shared.funcCd {
				sc.dirKnown = false
			}
		case followed:
		case strings.Contains(cmd.Args[0].Value, "/"):
			p.directRun(cmd, sc, fr)
		default:
			p.pathLookup(cmd, sc, fr)
		}
		if p.unknown(cmd, name, sc) {
			p.presume(cmd, cmd.Args[1:], sc, fr)
		}
	}
	w := p.writes(cmd)
	p.recordDownload(cmd, sc, w)
	p.recordWrites(cmd, sc, w)
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
	n := p.complex
	cmd.Script.Known = p.nestedSh(strings.Join(parts, " "), Eval, cmd, sc, fr, false)
	if p.complex > n || p.stopped {
		// Static text the analysis could not follow to the end: what it
		// runs is as unknown as text only known at run time.
		cmd.Script.Why = "the evaluated text is too complex to analyse"
	}
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
	case winAbs(target.Value):
		// C:\Users\me ($USERPROFILE, ~ in Git for Windows' bash): absolute
		// on Windows only, where the working directory is a drive path.
		sc.dir, sc.dirKnown = path.Clean(strings.ReplaceAll(target.Value, `\`, "/")), winAbs(p.opts.Cwd)
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

func (sh *shared) defineAlias(name, body string) {
	if sh.aliases == nil {
		sh.aliases = make(map[string]string)
	}
	if len(sh.aliases) < 256 {
		sh.aliases[name] = body
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

// commandVar follows an assignment whose value code runs: the shell's
// own variables (imported functions, prompt strings, PROMPT_COMMAND,
// BASH_ENV), and the
// variables the catalog says programs run or read (EDITOR, GIT_SSH_COMMAND).
func (p *parser) commandVar(name string, val Word, sc *scope, fr *frame, cmd *Command) {
	switch {
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
	case name == "PROMPT_COMMAND":
		// Run before each prompt of an interactive shell.
		if val.Value == "" && !val.Dynamic {
			return
		}
		anchor := cmd
		if anchor == nil {
			anchor = &Command{Dir: sc.dir, DirKnown: sc.dirKnown}
		}
		p.nestedWord(val, ConfigCommand, anchor, p.childScope(sc, anchor), fr)
	case name == "BASH_ENV" || name == "ENV":
		if cmd == nil || val.Value == "" {
			return
		}
		if n := cmd.Name(); isShell(n) {
			src := &Command{Args: []Word{Static("source"), val}, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
			p.finish(src, p.childScope(sc, cmd), fr.child(ConfigCommand, cmd, fr.src))
		}
	default:
		p.varUse(name, val, sc, fr, cmd)
	}
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
