package shell

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// Tool is what the parser knows about one program: how it reads its
// options, what command or code it runs, where its output comes from and
// what it changes on disk. Package shell knows the shell languages and
// their builtins only; the programs come from [Options].Tools (package
// catalog provides them).
type Tool struct {
	// Args says how the program reads its options (nil: no option takes
	// a value).
	Args *ArgSpec
	// Wraps says the program runs the command that follows its options
	// and Args.Positional operands (env, nice, timeout, sudo): the command
	// is judged, and the program is recorded in Command.Wrappers.
	Wraps bool
	// Assigns says NAME=value words may come before that command (sudo).
	Assigns bool
	// Unwrap finds the wrapped command where Wraps is not enough: its
	// index in cmd.Args, and whether there is one. It may rewrite
	// cmd.Args (env -S, xargs).
	Unwrap func(cmd *Command) (int, bool)
	// Runs are the options whose value is shell code the program runs
	// (su -c CODE, rsync -e CMD).
	Runs []CodeArg
	// Follow follows what else the program runs (git -c alias.x=!…, tar
	// --to-command, find -exec), through the Follower.
	Follow func(f *Follower)
	// Network says the program's output is data from the network.
	Network func(cmd *Command) bool
	// Decodes says the program turns its input into other text that a
	// reader of the script cannot see (base64 -d, gunzip).
	Decodes func(cmd *Command) bool
	// Accounts says the program prints user accounts: names or home
	// directories (getent passwd, whoami).
	Accounts func(cmd *Command) bool
	// Writes says what the command changes on disk, as far as its words
	// show.
	Writes func(cmd *Command) Writes
}

// CodeArg is an option whose value is shell code: -Short CODE or
// --Long CODE (Long may be "" or Short "").
type CodeArg struct {
	Short, Long string
}

// Writes are what a command changes on disk.
type Writes struct {
	// Files are the files (or directories) it writes, creates or deletes
	// by name.
	Files []Word
	// Maybe are files it may write (names in inline interpreter code):
	// a script read from one later is not trusted, but they are not
	// reported as writes.
	Maybe []Word
	// Dirs are directories under which anything may change (cp's
	// destination, tar -C DIR); Here says the same of the command's
	// working directory (make, npm install, git checkout).
	Dirs []Word
	Here bool
	// Built are programs it writes (a compiler's -o FILE): running one
	// later is running a program, not an unreadable script. BuiltDirs
	// are directories where it builds or installs programs it does not
	// name (make, cargo build's target, npm install's node_modules, a
	// virtual environment's bin), and BuiltHere says so of its working
	// directory.
	Built     []Word
	BuiltDirs []Word
	BuiltHere bool
	// Links are the symbolic links it makes, {target, name}.
	Links [][2]Word
	// Venv is the directory of a virtual environment it creates.
	Venv string
}

// VarUse says how programs use an environment variable's value, when
// that matters to what a command runs: f.Cmd() is the command the
// assignment is for (one without arguments for a plain assignment).
type VarUse func(val Word, f *Follower)

// Follower is what a Tool's Follow and a VarUse see of the parser: the
// command, and ways to hand it the code it runs. Code handed to it runs
// in a new process: it sees the command's exported variables and its
// assignments.
type Follower struct {
	p     *parser
	sc    *scope
	fr    *frame
	cmd   *Command
	alone bool
}

// Alone reports, for a VarUse, that the assignment stands alone (x=1,
// export x=1): it is for the commands that follow, not for Cmd.
func (f *Follower) Alone() bool { return f.alone }

// Cmd is the command being followed.
func (f *Follower) Cmd() *Command { return f.cmd }

// Script says the command runs w as a shell script, like sh -c w
// (Command.Script says whether it could be read).
func (f *Follower) Script(w Word) { f.p.stringScript(f.cmd, w, f.sc, f.fr) }

// Joined says the command runs its words joined by blanks as a shell
// script (watch CMD ARG…).
func (f *Follower) Joined(words []Word) { f.p.joinedScript(f.cmd, words, f.sc, f.fr) }

// Code says the command runs w as shell code, reached in the way o says
// (a value of git configuration, a tar option); unlike Script it leaves
// Command.Script alone, and code only known at run time becomes a
// command with a dynamic name.
func (f *Follower) Code(w Word, o Origin) {
	f.p.nestedWord(w, o, f.cmd, f.p.childScope(f.sc, f.cmd), f.fr)
}

// CodeReading is Code for code that reads in on its standard input (tar
// --to-command gets each file's content).
func (f *Follower) CodeReading(w Word, o Origin, in Input) {
	fr := *f.fr
	fr.feed = &in
	f.p.nestedWord(w, o, f.cmd, f.p.childScope(f.sc, f.cmd), &fr)
}

// Shell parses and walks text as shell code the command runs, reached in
// the way o says; it reports whether the code could be analysed.
func (f *Follower) Shell(text string, o Origin) bool {
	return f.p.nestedSh(text, o, f.cmd, f.p.childScope(f.sc, f.cmd), f.fr, false)
}

// Run says the command runs c (whose Args are set; Dir, Parent and,
// unless set, Stdin are filled in) directly, reached in the way o says
// (find -exec, git bisect run).
func (f *Follower) Run(c *Command, o Origin) {
	if c.Parent == nil {
		c.Parent = f.cmd
	}
	if c.Dir == "" && !c.DirKnown {
		c.Dir, c.DirKnown = f.cmd.Dir, f.cmd.DirKnown
	}
	f.p.finish(c, f.p.childScope(f.sc, f.cmd), f.fr.child(o, f.cmd, f.fr.src))
}

// Stdin says the command runs its standard input as a shell script, with
// args as its positional parameters (nil: unknown ones).
func (f *Follower) Stdin(args []Word) {
	child := f.p.childScope(f.sc, f.cmd)
	if args != nil {
		child.pos, child.posKnown = args, true
	}
	f.p.stdinScript(f.cmd, child, f.fr)
}

// Lookup returns the value a variable has for the command.
func (f *Follower) Lookup(name string) (Word, bool) {
	for _, a := range f.cmd.Assigns {
		if a.Name == name {
			return a.Value, true
		}
	}
	return f.p.lookup(f.sc, name)
}

// tool returns what the catalog knows about a program.
func (p *parser) tool(name string) *Tool {
	if p.opts.Tools == nil || name == "" {
		return nil
	}
	// A command's tool is asked for several times in a row (to follow
	// it, for what it writes, whether it fetches or decodes): the last
	// answer is kept. Options.Tools answers by the name alone.
	if p.toolKnown && p.toolName == name {
		return p.toolLast
	}
	t := p.opts.Tools(name)
	p.toolName, p.toolLast, p.toolKnown = name, t, true
	return t
}

// follow applies a command's Tool: its code options and its follower. It
// reports whether the tool follows anything.
func (p *parser) follow(cmd *Command, t *Tool, sc *scope, fr *frame) bool {
	if t == nil || len(t.Runs) == 0 && t.Follow == nil {
		return false
	}
	f := &Follower{p: p, sc: sc, fr: fr, cmd: cmd}
	for _, r := range t.Runs {
		if w, ok := t.Args.Value(cmd.Args, r.Short, r.Long); ok {
			f.Script(w)
			break
		}
	}
	if t.Follow != nil {
		t.Follow(f)
	}
	return true
}

// varUse follows an assignment of a variable whose value programs use.
func (p *parser) varUse(name string, val Word, sc *scope, fr *frame, cmd *Command) {
	if p.opts.Vars == nil {
		return
	}
	use := p.opts.Vars(name)
	if use == nil {
		return
	}
	f := &Follower{p: p, sc: sc, fr: fr, cmd: cmd}
	if cmd == nil {
		f.cmd, f.alone = &Command{Dir: sc.dir, DirKnown: sc.dirKnown}, true
	}
	use(val, f)
}

// networkSource reports whether a command's output is data from the
// network.
func (p *parser) networkSource(c *Command) bool {
	t := p.tool(strings.ToLower(c.Name()))
	return t != nil && t.Network != nil && t.Network(c)
}

// accounts reports whether a command prints user names or home
// directories: a program that says so, or one that reads the account
// database itself (/etc/passwd, as an operand or its input).
func (p *parser) accounts(c *Command) bool {
	if t := p.tool(c.Name()); t != nil && t.Accounts != nil && t.Accounts(c) {
		return true
	}
	if c.Stdin.Kind == InputFile && c.Stdin.Path.Value == "/etc/passwd" {
		return true
	}
	for _, a := range c.Args {
		if a.Value == "/etc/passwd" && !a.Dynamic {
			return true
		}
	}
	return false
}

// decoder reports whether a command turns its input into hidden text, or
// prints text its words hide in escapes (printf '\x72\x6d').
func (p *parser) decoder(c *Command) bool {
	t := p.tool(c.Name())
	return t != nil && t.Decodes != nil && t.Decodes(c) || escapePrinter(c)
}

// escapePrinter reports whether printf, or echo -e, is given text with
// escapes that hide characters from a reader: what it prints is decoded
// data.
func escapePrinter(c *Command) bool {
	name := c.Name()
	if name != "printf" && name != "echo" || len(c.Args) < 2 {
		return false
	}
	if name == "echo" {
		e := false
		for _, a := range c.Args[1:] {
			if a.Dynamic || !strings.HasPrefix(a.Value, "-") {
				break
			}
			e = e || strings.Contains(a.Value, "e")
		}
		if !e {
			return false
		}
	}
	for _, a := range c.Args[1:] {
		if !a.Dynamic && hiddenEscapes(a.Value) {
			return true
		}
	}
	return false
}

// hiddenEscapes reports whether text holds escapes that hide characters
// from a reader: \xHH, \uHHHH, \UHHHHHHHH, \NNN octal, \cX.
func hiddenEscapes(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		switch c := s[i+1]; {
		case c == 'x' || c == 'u' || c == 'U' || c == 'c', c >= '0' && c <= '7':
			return true
		case c == '\\':
			i++
		}
	}
	return false
}

// Presume says the command may run words as a command (a program that is
// not known to treat its arguments as data, cargo run -- ARG…): from the
// first word that names a known program, the words are judged as the
// command that program would run.
func (f *Follower) Presume(words []Word) { f.p.presume(f.cmd, words, f.sc, f.fr) }

// presume judges words as a command in case they are one: from the
// first word that names a program the caller knows (Options.Programs) or
// a shell, by its bare name or by the last element of a path (/usr/bin/sudo,
// ./bin/rm), among the first few words that are not options, NAME=value
// settings or likely values of options (xvfb-run -s '-screen 0' CMD,
// mywrap --timeout 30 --retries 3 CMD, aws-vault exec prod -- CMD). An
// option spelled without =value is taken to have the word after it as its
// value, unless that word names a program. After --, only the next word
// can be the command.
func (p *parser) presume(cmd *Command, words []Word, sc *scope, fr *frame) {
	if p.opts.Programs == nil || fr.origin == Maybe {
		return
	}
	operands := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		v := w.Value
		switch {
		case w.Dynamic:
			// It may expand to nothing, to options or to several
			// words: it counts as one word that is not the command.
		case v == "--":
			if i+1 < len(words) && p.presumedProgram(cmd, words[i+1], sc) {
				p.presumeAt(cmd, words[i+1:], sc, fr)
			}
			return
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if !strings.Contains(v, "=") && i+1 < len(words) && p.likelyValue(cmd, words[i+1], sc) {
				i++
			}
			continue
		case assignment(v):
			continue
		case p.presumedProgram(cmd, w, sc) && (!strings.Contains(v, "/") || pathRun(p, cmd, words[i+1:], sc)):
			p.presumeAt(cmd, words[i:], sc, fr)
			return
		}
		if operands++; operands >= presumeOperands {
			return
		}
	}
}

// pathRun reports whether the words after a program's path read as its
// arguments: there are some, and the next is not another program's path
// (hardening-check /usr/bin/sudo /usr/bin/su lists files; a path alone is
// a file a tool inspects, checksec --file /usr/bin/sudo).
func pathRun(p *parser, cmd *Command, rest []Word, sc *scope) bool {
	if len(rest) == 0 {
		return false
	}
	n := rest[0]
	return n.Dynamic || !strings.Contains(n.Value, "/") || !p.presumedProgram(cmd, n, sc)
}

// presumeOperands is how many words that are not options presume looks
// at for a command: a runner's subcommand and a target or two come first
// (aws-vault exec PROFILE CMD, faketime DATE CMD, mywrap exec web CMD).
const presumeOperands = 4

// presumedProgram reports whether a word, as a command name, is a program
// the caller knows or a shell: by its bare name, or the last element of an
// absolute or explicitly relative path (/usr/bin/sudo, ./bin/rm; not
// src/python, which reads as a data path). A relative path must name a
// file that is there, or that an earlier command writes.
func (p *parser) presumedProgram(cmd *Command, w Word, sc *scope) bool {
	v := w.Value
	if w.Dynamic || w.Glob || v == "" || v[0] == '+' || strings.ContainsAny(v, "=\\ \t\n") {
		return false
	}
	if strings.Contains(v, "/") {
		if !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "./") && !strings.HasPrefix(v, "../") && !strings.HasPrefix(v, "~/") || strings.HasSuffix(v, "/") {
			return false
		}
	}
	name := CommandName(v)
	if name == "" || !isShell(name) && !p.opts.Programs(name) {
		return false
	}
	if strings.HasPrefix(v, "/") || !strings.Contains(v, "/") {
		return true
	}
	abs, ok := cmd.Abs(w)
	if !ok {
		return false
	}
	if sc.shared.changed(abs) || sc.shared.downloaded(abs) || p.opts.ReadScript == nil {
		return true
	}
	_, err := p.opts.ReadScript(abs)
	return err == nil || !errors.Is(err, fs.ErrNotExist) && !isDirErr(err)
}

// likelyValue reports whether the word after an option spelled without
// =value reads as that option's value: not an option itself and not a
// program's name.
func (p *parser) likelyValue(cmd *Command, w Word, sc *scope) bool {
	if w.Dynamic {
		return true
	}
	v := w.Value
	return v != "--" && !p.presumedProgram(cmd, w, sc) && (!strings.HasPrefix(v, "-") || len(v) > 1 && strings.ContainsAny(v, " \t"))
}

// assignment reports whether a word is a NAME=value setting (env-like
// wrappers take them before the command).
func assignment(v string) bool {
	name, _, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// presumeAt judges words[0:] as the command they may be.
func (p *parser) presumeAt(cmd *Command, words []Word, sc *scope, fr *frame) {
	child := &Command{Args: words, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd, Stdin: cmd.Stdin, ExtraArgs: cmd.ExtraArgs}
	cf := fr.child(Maybe, cmd, fr.src)
	cf.depth = fr.depth
	p.finish(child, p.childScope(sc, cmd), cf)
}

// unknown reports whether a command is a program nothing describes: not
// a shell builtin, a function of the script, a Tool or a program the
// caller knows.
func (p *parser) unknown(cmd *Command, name string, sc *scope) bool {
	if p.opts.Programs == nil || isBuiltin(name) || sc.shared.funcs[name] || p.tool(name) != nil || p.opts.Programs(name) || isShell(name) {
		return false
	}
	// A script that was read is judged by what it does with its
	// arguments.
	return cmd.Script == nil || !cmd.Script.Known
}

// isBuiltin reports whether a name is a builtin of bash (or of POSIX
// shells): the language, not a program.
func isBuiltin(name string) bool {
	switch name {
	case ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete",
		"compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export", "false",
		"fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
		"printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source",
		"suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait", "chdir":
		return true
	}
	return false
}

// isDirErr reports whether reading a file failed because it is a
// directory.
func isDirErr(err error) bool { return errors.Is(err, syscall.EISDIR) }
