package shell

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Limits of the analysis. Past them the program gets a TooComplex issue
// and the rest is not analysed.
const (
	// MaxScript is the largest script analysed, in bytes.
	MaxScript = 1 << 20
	// MaxNesting is the deepest nesting (brackets, compound commands)
	// analysed.
	MaxNesting = 1000
	// LargeScript is the size above which a script is still analysed but
	// never judged safe: nobody reviews that much code at a prompt.
	LargeScript = 256 << 10
	// MaxScriptFile is the largest local script file read (through
	// Options.ReadScript) and analysed.
	MaxScriptFile = 256 << 10
	// maxReparse bounds nested code levels (sh -c inside eval inside …).
	maxReparse = 24
	// maxSteps bounds the work for one Parse call.
	maxSteps = 4_000_000
	// maxValue bounds a folded value, to stop exponential string growth.
	maxValue = 64 << 10
	// maxReparseBytes bounds the total size of nested code parsed.
	maxReparseBytes = 4 << 20
	// maxCommands bounds the commands recorded for one Parse call.
	maxCommands = 200_000
)

// Options tell Parse what it may assume about the place the script runs in.
type Options struct {
	// Home is the user's home directory, used for ~ and $HOME. Empty means
	// unknown: such words stay dynamic.
	Home string
	// Cwd is the absolute working directory. Empty means unknown.
	Cwd string
	// Env holds environment variables whose values may be folded.
	// Variables not listed (other than HOME and PWD) are dynamic.
	Env map[string]string
	// ReadScript returns the content of a local script file (absolute
	// path) that a command would run. Nil means scripts are never read.
	// It should refuse files it does not want classified (outside the
	// allowed roots, too large).
	ReadScript func(path string) ([]byte, error)
	// Writable reports whether the command may write to a path (inside
	// the writable roots); nil means unknown. A file there may have been
	// planted by an earlier command.
	Writable func(path string) bool
	// FoldNames says that command names are found case-insensitively
	// (macOS and Windows file systems): SUDO runs sudo there.
	FoldNames bool
	// Tools returns what is known about a program, by its exact name (nil
	// for an unknown one): the programs it wraps, the code it runs, where
	// its output comes from, what it writes. Nil knows no program: only
	// the shells and their builtins are followed.
	Tools func(name string) *Tool
	// Vars returns how programs use an environment variable (nil for
	// none that matters): EDITOR and GIT_SSH_COMMAND hold commands.
	Vars func(name string) VarUse
	// Programs reports whether a command name is a program the caller
	// knows, and judges by name. A program it does not know (and no Tool
	// describes) is presumed to run its arguments: from the first of them
	// that names a known program, they are judged as a command too (gdb
	// --args sudo id). Nil presumes nothing.
	Programs func(name string) bool
	// Dialect is the language Parse reads the script in: Sh (bash, the
	// zero value), PowerShell or Cmd (the shell that will run it, as
	// safeexec --shell says).
	Dialect Dialect
}

type parser struct {
	nest     int // current statement nesting
	opts     Options
	prog     *Program
	sp       *syntax.Parser
	steps    int
	reparsed int
	stopped  bool
	// inHashed is set while the program a hash -p binding names is
	// followed, so that a binding is applied once.
	inHashed bool
	// expanding are the aliases being followed (an alias is not
	// expanded inside itself).
	expanding map[string]bool
	// calling are the functions whose bodies are being walked for a
	// call (recursion is not followed).
	calling map[string]bool
	// complex counts the places where analysis gave up as too complex
	// (each, even when its issue is already reported).
	complex int
	// toolName, toolLast: the last program tool looked up, and its Tool
	// (toolKnown says there is one).
	toolName  string
	toolLast  *Tool
	toolKnown bool
	// top and topShared back the first scope of a Parse call (newScope),
	// and topFrame its first frame: one allocation with the parser.
	top       scope
	topShared shared
	topFrame  frame
	// scoped is set for ParseScoped and ParseArgvScoped, whose program
	// lives only until their caller's function returns: its commands and
	// their words are then taken from cmds and words, memory that later
	// scoped calls reuse (cleared when the parser is released).
	scoped     bool
	cmds       []Command
	words      []Word
	scopes     []scope
	inputs     []Input
	written    map[string]bool
	cmdList    []*Command
	scopedProg Program
	// rd reads the source for the mvdan parser.
	rd strings.Reader
}

// Sizes of the memory a parser keeps for scoped programs; a program that
// needs more gets it from the heap.
const (
	scopedCommands = 16
	scopedWords    = 96
	scopedScopes   = 16
	scopedInputs   = 8
)

// parserPool recycles the analysis state of finished Parse calls (the
// mvdan parser with its buffers, the walker's own fields). A parser taken
// from it is in its zero state but for the mvdan parser, which resets
// itself on every Parse.
var parserPool = sync.Pool{New: func() any {
	return &parser{sp: syntax.NewParser(syntax.Variant(syntax.LangBash))}
}}

// Parse analyses a shell script. It never fails: problems are reported as
// Program.Issues, and whatever could be analysed is in Program.Commands.
func Parse(src string, opts Options) *Program {
	p := newParser(opts)
	defer p.release()
	p.script(src)
	return p.prog
}

// ParseScoped is Parse for a caller that is done with the program when
// use returns: the program, its commands and their words must not be
// kept past that (their memory is reused by later calls), which saves
// allocating them.
func ParseScoped(src string, opts Options, use func(*Program)) {
	p := newScopedParser(opts)
	p.script(src)
	use(p.prog)
	// Not deferred: after a panic in use the parser is dropped, never
	// reused.
	p.release()
}

// ParseArgvScoped is ParseArgv with the lifetime of ParseScoped.
func ParseArgvScoped(argv []string, opts Options, use func(*Program)) {
	p := newScopedParser(opts)
	p.argv(argv)
	use(p.prog)
	p.release()
}

// recovered turns a panic of the analysis into a parse error: whatever
// was found before it is kept, and the program is never judged safe.
func (p *parser) recovered() {
	if r := recover(); r != nil {
		p.prog.Issues = append(p.prog.Issues, Issue{Kind: ParseError, Detail: fmt.Sprintf("internal error while parsing: %v", r)})
	}
}

func (p *parser) script(src string) {
	defer p.recovered()
	if len(src) > MaxScript {
		p.issue(TooComplex, Top, fmt.Sprintf("script is %d bytes, more than the %d analysed", len(src), MaxScript))
		return
	}
	if d := nestingDepth(src); d > MaxNesting {
		p.issue(TooComplex, Top, fmt.Sprintf("script nests %d levels deep, more than the %d analysed", d, MaxNesting))
		return
	}
	if len(src) > LargeScript {
		p.issue(TooComplex, Top, fmt.Sprintf("script is %d bytes: larger than %d bytes is never judged safe", len(src), LargeScript))
	}
	sc := p.newScope()
	switch p.opts.Dialect {
	case PowerShell, Cmd:
		// A script for PowerShell or cmd.exe is read as the code those
		// shells run after -Command or /c, at the top level.
		fr := &p.topFrame
		*fr = frame{origin: Top, src: src, depth: -1}
		if p.opts.Dialect == PowerShell {
			p.psScript(src, Top, nil, sc, fr)
		} else {
			p.cmdScript(src, Top, nil, sc, fr)
		}
		return
	}
	f, err := p.parseSh(src, Top)
	if err != nil {
		// Analyse what can be: a script with a syntax error is still
		// judged by the commands before the error.
		p.parseError(err, Top)
		if f == nil {
			return
		}
	}
	fr := &p.topFrame
	*fr = frame{origin: Top, src: src}
	if err == nil {
		if inner, name := p.agentShape(f, src); inner != nil {
			p.prog.Wrapper = name
			p.prog.WrapperOutput = inner.output
			p.prog.WrapperCommand = inner.src
			fr.src, fr.stdin = inner.src, inner.stdin
			p.walkStmts(inner.Stmts, sc, fr)
			p.uncalledFuncs(sc)
			if inner.err == errTooComplex {
				p.issue(TooComplex, Eval, inner.err.Error())
			} else if inner.err != nil {
				p.parseError(inner.err, Eval)
			}
			return
		}
	}
	p.walkStmts(f.Stmts, sc, fr)
	p.uncalledFuncs(sc)
}

// ParseArgv analyses an argv that is executed directly (no shell parses
// the words). Wrappers are unwrapped and nested code (bash -c …) is
// parsed as for Parse.
func ParseArgv(argv []string, opts Options) *Program {
	p := newParser(opts)
	defer p.release()
	p.argv(argv)
	return p.prog
}

func (p *parser) argv(argv []string) {
	defer p.recovered()
	total := 0
	for _, a := range argv {
		total += len(a)
	}
	if total > MaxScript {
		p.issue(TooComplex, Top, fmt.Sprintf("arguments are %d bytes, more than the %d analysed", total, MaxScript))
		return
	}
	if len(argv) == 0 {
		return
	}
	sc := p.newScope()
	fr := &p.topFrame
	*fr = frame{origin: Top}
	args := p.wordSlice(len(argv))[:len(argv)]
	for i, a := range argv {
		args[i] = Static(a)
	}
	cmd := p.newCommand()
	*cmd = Command{Args: args, Dir: sc.dir, DirKnown: sc.dirKnown}
	p.finish(cmd, sc, fr)
}

func newParser(opts Options) *parser {
	p := pooledParser(opts)
	p.prog = &Program{}
	return p
}

// pooledParser takes a parser from the pool for opts; it has no program.
func pooledParser(opts Options) *parser {
	if opts.Cwd != "" && !winAbs(opts.Cwd) && !cleanPath(opts.Cwd) {
		opts.Cwd = path.Clean(opts.Cwd)
	}
	p := parserPool.Get().(*parser)
	p.opts = opts
	return p
}

func newScopedParser(opts Options) *parser {
	p := pooledParser(opts)
	p.scoped, p.prog = true, &p.scopedProg
	if p.cmds == nil {
		p.cmds, p.words = make([]Command, 0, scopedCommands), make([]Word, 0, scopedWords)
		p.scopes = make([]scope, 0, scopedScopes)
		p.cmdList = make([]*Command, 0, scopedCommands)
		p.inputs = make([]Input, 0, scopedInputs)
		p.written = make(map[string]bool)
	}
	p.scopedProg.Commands = p.cmdList[:0]
	return p
}

// release returns the parser to the pool, cleared: nothing of this call
// (options, program, commands, words, variables, functions) can reach
// the next one.
func (p *parser) release() {
	sp, cmds, words, scopes, inputs, cmdList := p.sp, p.cmds, p.words, p.scopes, p.inputs, p.cmdList
	clear(cmds)
	clear(words)
	clear(scopes)
	clear(inputs)
	clear(cmdList[:cap(cmdList)])
	written := p.written
	if len(written) > 64 {
		written = nil // a big script's table is not kept
	} else if written != nil {
		clear(written)
	}
	*p = parser{}
	p.sp, p.cmds, p.words, p.scopes, p.inputs, p.cmdList, p.written = sp, cmds[:0], words[:0], scopes[:0], inputs[:0], cmdList[:0], written
	parserPool.Put(p)
}

// newCommand returns a zero Command: from the parser's own memory for a
// scoped program, else from the heap.
func (p *parser) newCommand() *Command {
	if p.scoped && len(p.cmds) < cap(p.cmds) {
		p.cmds = p.cmds[:len(p.cmds)+1]
		return &p.cmds[len(p.cmds)-1]
	}
	return new(Command)
}

// newInput returns a zero Input: from the parser's own memory for a
// scoped program, else from the heap.
func (p *parser) newInput() *Input {
	if p.scoped && len(p.inputs) < cap(p.inputs) {
		p.inputs = p.inputs[:len(p.inputs)+1]
		return &p.inputs[len(p.inputs)-1]
	}
	return new(Input)
}

// wordSlice returns an empty slice with room for n words (a scoped
// program's from the parser's own memory, capped so that appending past
// n never reaches another slice's words).
func (p *parser) wordSlice(n int) []Word {
	if p.scoped && len(p.words)+n <= cap(p.words) {
		i := len(p.words)
		p.words = p.words[:i+n]
		return p.words[i : i : i+n]
	}
	return make([]Word, 0, n)
}

// cleanPath reports whether an absolute slash path is already in the
// form path.Clean returns (a cheap test that saves the copy).
func cleanPath(s string) bool {
	if s == "" || s[0] != '/' || len(s) > 1 && s[len(s)-1] == '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '/' {
			continue
		}
		rest := s[i+1:]
		if strings.HasPrefix(rest, "/") || rest == "." || rest == ".." || strings.HasPrefix(rest, "./") || strings.HasPrefix(rest, "../") {
			return false
		}
	}
	return true
}

func (p *parser) issue(k IssueKind, o Origin, detail string) {
	if k == TooComplex {
		p.complex++
	}
	for _, is := range p.prog.Issues {
		if is.Kind == k && is.Detail == detail {
			return
		}
	}
	p.prog.Issues = append(p.prog.Issues, Issue{Kind: k, Detail: detail, Origin: o})
}

func (p *parser) parseError(err error, o Origin) {
	p.issue(ParseError, o, err.Error())
}

// step counts work and reports whether analysis may continue.
func (p *parser) step() bool {
	if p.stopped {
		return false
	}
	p.steps++
	if p.steps > maxSteps || len(p.prog.Commands) > maxCommands {
		p.stopped = true
		p.issue(TooComplex, Top, "script needs more analysis work than allowed")
		return false
	}
	return true
}

func (p *parser) parseSh(src string, o Origin) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("parser failed: %v", r)
		}
	}()
	// The mvdan parser reads all of src before it returns, so one reader
	// serves every parse of the call, nested ones included.
	p.rd.Reset(src)
	return p.sp.Parse(&p.rd, "")
}

// nestingDepth is a cheap upper bound of the bracket nesting of src,
// checked before parsing so pathological input never reaches the parser.
func nestingDepth(src string) int {
	depth, max := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{', '`':
			depth++
			if depth > max {
				max = depth
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return max
}

// funcBody is a function the script defines.
type funcBody struct {
	body *syntax.Stmt
	sc   *scope
	fr   *frame
}

// frame is the context a statement is walked in.
type frame struct {
	origin   Origin
	parent   *Command
	depth    int
	src      string
	stdin    *Input
	fromFile bool
	// feed is the standard input of the code nested in this frame's
	// command (a program that pipes data into the code it runs).
	feed *Input
}

func (fr *frame) child(o Origin, parent *Command, src string) *frame {
	return &frame{origin: o, parent: parent, depth: fr.depth + 1, src: src, fromFile: fr.fromFile, stdin: fr.feed}
}

func (fr *frame) text(n syntax.Node) string {
	if fr.src == "" || n == nil {
		return ""
	}
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(fr.src) || s > e {
		return ""
	}
	return fr.src[s:e]
}

// scope is the shell state the analysis tracks: variables, the working
// directory, positional parameters.
type scope struct {
	vars     map[string]varVal
	dir      string
	pos      []Word // $1…; nil with posKnown false means unknown
	arg0     Word
	shared   *shared
	dirKnown bool
	posKnown bool
	// cow says vars is shared with clones until written (copy on write).
	cow bool
}

// shared is state common to every scope of one Parse call.
type shared struct {
	volatile map[string]bool // variables assigned inside functions
	// bodies are the functions the script defines, with the scope and
	// frame of their definition; called says which were called by name
	// with their arguments followed; dynCall that some command's name is
	// only known at run time (it may name any function).
	bodies    map[string]funcBody
	called    map[string]bool
	dynCall   bool
	funcs     map[string]bool
	funcCd    bool
	trapCd    bool            // a trap action changes directory
	downloads map[string]bool // absolute paths written by network commands
	// downloadDirs are directories an archiver fed network data
	// extracted into: anything under them may be downloaded.
	downloadDirs []string
	// written are files (and writtenDirs directories) that earlier
	// commands of the script change: a script read from there now is not
	// what will run.
	written     map[string]bool
	writtenDirs []string
	anyWritten  bool            // a write to a place only known at run time
	built       map[string]bool // programs a compiler writes (-o FILE)
	builtDirs   []string        // directories where earlier commands build or install programs
	// literal are files an earlier command wrote with text known
	// statically (echo … > x.sh, a heredoc to cat > x.sh), while no
	// later write touched them: a script read from one is that text.
	literal map[string]string
	// hashed are the programs hash -p bound to command names ("*": a
	// name only known at run time).
	hashed map[string][]Word
	// aliases are the aliases the script defines.
	aliases map[string]string
	// integers are variables declared -i: assignments to them are
	// evaluated as arithmetic.
	integers map[string]bool
	// writes counts the write events recordWrites saw; venvs maps the
	// activate scripts of virtual environments the script creates to
	// that count at their creation.
	writes int
	venvs  map[string]int
	// scopes is the parser's memory for the scopes of a scoped program
	// (nil otherwise), and writtenMap an empty table it may use for
	// written.
	scopes     *[]scope
	writtenMap map[string]bool
}

// newWritten returns an empty table for written.
func (sh *shared) newWritten() map[string]bool {
	if m := sh.writtenMap; m != nil {
		sh.writtenMap = nil
		return m
	}
	return make(map[string]bool)
}

// changedExactly reports whether an earlier command wrote this very file
// (or wrote somewhere only known at run time).
func (sh *shared) changedExactly(abs string) bool {
	return sh.anyWritten || sh.written[abs]
}

// changed reports whether an earlier command may have changed the file.
func (sh *shared) changed(abs string) bool {
	if sh.anyWritten || sh.written[abs] {
		return true
	}
	for _, d := range sh.writtenDirs {
		if d == "/" || abs == d || strings.HasPrefix(abs, d+"/") {
			return true
		}
	}
	return false
}

type varVal struct {
	w        Word
	exported bool
	unset    bool
}

func (p *parser) newScope() *scope {
	var sc *scope
	if p.top.shared == nil {
		// The first scope of the call lives in the parser itself.
		p.top = scope{shared: &p.topShared}
		sc = &p.top
		if p.scoped {
			p.topShared.scopes = &p.scopes
			p.topShared.writtenMap = p.written
		}
	} else {
		sc = &scope{shared: &shared{}}
	}
	if p.opts.Cwd != "" && (path.IsAbs(p.opts.Cwd) || winAbs(p.opts.Cwd)) {
		sc.dir, sc.dirKnown = strings.ReplaceAll(p.opts.Cwd, `\`, "/"), true
	}
	sc.arg0 = Word{Value: "$0", Dynamic: true}
	return sc
}

func (sc *scope) clone() *scope {
	// Copy on write: the clone shares the variable table until one of
	// them assigns.
	c := sc.shared.newScope()
	*c = *sc
	c.cow, sc.cow = true, true
	return c
}

// newScope returns a zero scope: from the parser's own memory for a
// scoped program, else from the heap.
func (sh *shared) newScope() *scope {
	if s := sh.scopes; s != nil && len(*s) < cap(*s) {
		*s = (*s)[:len(*s)+1]
		return &(*s)[len(*s)-1]
	}
	return new(scope)
}

// merge folds the state of branches that may or may not have run back
// into sc: whatever differs becomes unknown.
func (sc *scope) merge(branches ...*scope) {
	for _, b := range branches {
		if !sameVars(b.vars, sc.vars) {
			for k, v := range b.vars {
				old, ok := sc.vars[k]
				if !ok || old.w != v.w || old.unset != v.unset {
					sc.setVar(k, varVal{w: dynWord("$" + k), exported: v.exported || old.exported})
				}
			}
			for k, old := range sc.vars {
				if _, ok := b.vars[k]; !ok {
					sc.setVar(k, varVal{w: dynWord("$" + k), exported: old.exported})
				}
			}
		}
		if b.dirKnown != sc.dirKnown || b.dir != sc.dir {
			sc.dirKnown = false
		}
		if b.posKnown != sc.posKnown || !sameWords(b.pos, sc.pos) {
			sc.posKnown, sc.pos = false, nil
		}
	}
}

// sameVars reports whether two scopes still share one variable table.
func sameVars(a, b map[string]varVal) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	// Maps are reference types: compare one entry's identity cheaply by
	// checking that every key has the same value.
	for k, v := range a {
		w, ok := b[k]
		if !ok || w != v {
			return false
		}
	}
	return true
}

func sameWords(a, b []Word) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (sc *scope) setVar(name string, v varVal) {
	if sc.vars == nil {
		sc.vars = make(map[string]varVal)
		sc.cow = false
	} else if sc.cow {
		m := make(map[string]varVal, len(sc.vars)+1)
		for k, x := range sc.vars {
			m[k] = x
		}
		sc.vars = m
		sc.cow = false
	}
	sc.vars[name] = v
}

func dynWord(display string) Word {
	return Word{Value: display, Dynamic: true}
}

// lookup returns a variable's value as a word; ok is false when the
// value is not known statically.
func (p *parser) lookup(sc *scope, name string) (Word, bool) {
	if sc.shared.volatile[name] || sc.shared.volatile["*"] {
		return dynWord("$" + name), false
	}
	if v, ok := sc.vars[name]; ok {
		if v.unset {
			return p.envLookup(sc, name)
		}
		return v.w, !v.w.Dynamic
	}
	return p.envLookup(sc, name)
}

func (p *parser) envLookup(sc *scope, name string) (Word, bool) {
	switch name {
	case "HOME":
		if p.opts.Home != "" {
			return Static(p.opts.Home), true
		}
	case "PWD":
		if sc.dirKnown {
			return Static(sc.dir), true
		}
	}
	if v, ok := p.opts.Env[name]; ok {
		return Static(v), true
	}
	return dynWord("$" + name), false
}

func (p *parser) emit(cmd *Command, fr *frame) {
	cmd.Origin = fr.origin
	if cmd.Parent == nil {
		cmd.Parent = fr.parent
	}
	cmd.Depth = fr.depth
	cmd.FromFile = fr.fromFile
	if cmd.Stdin.Kind == InputInherited && fr.stdin != nil {
		cmd.Stdin = *fr.stdin
	}
	p.prog.Commands = append(p.prog.Commands, cmd)
}

// walkStmts walks a statement list in order.
func (p *parser) walkStmts(stmts []*syntax.Stmt, sc *scope, fr *frame) {
	p.prescanFuncs(stmts, sc)
	for _, st := range stmts {
		if !p.step() {
			return
		}
		p.walkStmt(st, sc, fr)
	}
}

// pipeRes is what walking a statement yields for its caller: the
// commands that make up a pipeline, in order (one, or cmds).
type pipeRes struct {
	one    *Command
	cmds   []*Command
	simple bool // only simple commands joined by pipes
}

// n is the number of commands.
func (r pipeRes) n() int {
	if r.one != nil {
		return 1
	}
	return len(r.cmds)
}

// list returns the commands as a slice (made for one command only when
// asked: most statements are not in a pipeline).
func (r pipeRes) list() []*Command {
	if r.one != nil {
		return []*Command{r.one}
	}
	return r.cmds
}

func (p *parser) walkStmt(st *syntax.Stmt, sc *scope, fr *frame) pipeRes {
	if st == nil || !p.step() {
		return pipeRes{}
	}
	p.nest++
	defer func() { p.nest-- }()
	if p.nest > MaxNesting {
		p.stopped = true
		p.issue(TooComplex, fr.origin, fmt.Sprintf("commands nest more than %d levels deep", MaxNesting))
		return pipeRes{}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		cmd := p.walkCall(c, st, sc, fr)
		if cmd == nil {
			return pipeRes{}
		}
		return pipeRes{one: cmd, simple: true}
	case nil:
		// A bare redirection: "> file".
		redirs, stdin := p.redirects(st.Redirs, sc, fr)
		if len(redirs) > 0 {
			cmd := &Command{Redirs: redirs, Dir: sc.dir, DirKnown: sc.dirKnown, Source: fr.text(st)}
			if stdin != nil {
				cmd.Stdin = *stdin
			}
			p.emit(cmd, fr)
			return pipeRes{one: cmd}
		}
		return pipeRes{}
	}
	// A compound command: its redirections apply to everything inside.
	inner := fr
	if len(st.Redirs) > 0 {
		redirs, stdin := p.redirects(st.Redirs, sc, fr)
		cmd := &Command{Redirs: redirs, Dir: sc.dir, DirKnown: sc.dirKnown, Source: fr.text(st)}
		p.emit(cmd, fr)
		if stdin != nil {
			cp := *fr
			cp.stdin = stdin
			inner = &cp
		}
	}
	return p.walkCompound(st.Cmd, sc, inner)
}

func (p *parser) walkCompound(cmd syntax.Command, sc *scope, fr *frame) pipeRes {
	switch c := cmd.(type) {
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			left := sc.clone()
			lres := p.walkStmt(c.X, left, fr)
			in := p.pipeInput(lres)
			rf := *fr
			rf.stdin = in
			right := sc.clone()
			rres := p.walkStmt(c.Y, right, &rf)
			sc.merge(left, right)
			return pipeRes{cmds: append(in.Upstream, rres.list()...), simple: lres.simple && rres.simple}
		case syntax.AndStmt:
			// A && B && C: each part runs only after the ones before it
			// succeeded, so it sees what they changed; afterwards any of
			// them may not have run.
			var buf [8]*syntax.Stmt
			chain := andChain(c, buf[:0])
			p.walkStmt(chain[0], sc, fr)
			rest := sc.clone()
			for _, st := range chain[1:] {
				p.walkStmt(st, rest, fr)
			}
			sc.merge(rest)
		default: // ||: the right side may not run
			p.walkStmt(c.X, sc, fr)
			right := sc.clone()
			p.walkStmt(c.Y, right, fr)
			sc.merge(right)
		}
	case *syntax.Block:
		p.walkStmts(c.Stmts, sc, fr)
	case *syntax.Subshell:
		p.walkStmts(c.Stmts, sc.clone(), fr)
	case *syntax.IfClause:
		var branches []*scope
		for cl := c; cl != nil; cl = cl.Else {
			p.walkStmts(cl.Cond, sc, fr)
			b := sc.clone()
			p.walkStmts(cl.Then, b, fr)
			branches = append(branches, b)
		}
		sc.merge(branches...)
	case *syntax.WhileClause:
		p.forgetAssigned(c, sc)
		p.walkStmts(c.Cond, sc, fr)
		b := sc.clone()
		p.walkStmts(c.Do, b, fr)
		sc.merge(b)
	case *syntax.ForClause:
		p.forgetAssigned(c, sc)
		walked := false
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			items := p.fieldsOf(l.Items, sc, fr)
			if len(items) > 0 && len(items) <= maxLoopValues && staticWords(items) {
				// The variable takes each of a literal list's values (a
				// pattern stands for the names it matches).
				var branches []*scope
				for _, it := range items {
					b := sc.clone()
					b.setVar(l.Name.Value, varVal{w: it})
					p.walkStmts(c.Do, b, fr)
					branches = append(branches, b)
				}
				sc.merge(branches...)
				walked = true
			}
			sc.setVar(l.Name.Value, varVal{w: dynWord("$" + l.Name.Value)})
		case *syntax.CStyleLoop:
			p.walkArith(l.Init, sc, fr)
			p.walkArith(l.Cond, sc, fr)
			p.walkArith(l.Post, sc, fr)
		}
		if !walked {
			b := sc.clone()
			p.walkStmts(c.Do, b, fr)
			sc.merge(b)
		}
	case *syntax.CaseClause:
		p.single(c.Word, sc, fr, false)
		var branches []*scope
		for _, it := range c.Items {
			for _, pat := range it.Patterns {
				p.walkNested(pat, sc, fr)
			}
			b := sc.clone()
			p.walkStmts(it.Stmts, b, fr)
			branches = append(branches, b)
		}
		sc.merge(branches...)
	case *syntax.FuncDecl:
		// The body runs whenever the function is called: it is walked
		// at each call with the call's arguments, and once more at the
		// end with unknown ones unless every call was seen.
		sh := sc.shared
		if c.Name == nil {
			p.walkStmt(c.Body, sc.clone(), fr)
			break
		}
		if sh.bodies == nil {
			sh.bodies = make(map[string]funcBody)
		}
		if prev, ok := sh.bodies[c.Name.Value]; ok {
			// Redefined: the earlier body may have run with any arguments.
			p.walkStmt(prev.body, prev.sc, prev.fr)
		}
		sh.bodies[c.Name.Value] = funcBody{body: c.Body, sc: sc.clone(), fr: fr}
		delete(sh.called, c.Name.Value)
	case *syntax.ArithmCmd:
		p.walkArith(c.X, sc, fr)
		p.forgetArith(c.X, sc)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			p.walkArith(x, sc, fr)
			p.forgetArith(x, sc)
		}
	case *syntax.TestClause:
		p.walkNested(c.X, sc, fr)
		p.testOperands(c.X, sc, fr)
	case *syntax.DeclClause:
		p.walkDecl(c, sc, fr)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			return p.walkStmt(c.Stmt, sc, fr)
		}
	case *syntax.CoprocClause:
		if c.Stmt != nil {
			p.walkStmt(c.Stmt, sc.clone(), fr)
		}
	case *syntax.TestDecl:
		p.walkStmt(c.Body, sc.clone(), fr)
	}
	return pipeRes{}
}

// pipeInput describes what the left side of a pipe feeds the right side.
func (p *parser) pipeInput(l pipeRes) *Input {
	in := p.newInput()
	*in = Input{Kind: InputPipe, Upstream: l.list()}
	for _, c := range in.Upstream {
		in.Taint |= p.commandTaint(c)
	}
	if l.simple && len(in.Upstream) > 0 {
		if out, ok := foldPipeline(in.Upstream); ok {
			in.Text, in.TextKnown = out, true
		}
	}
	return in
}

// walkDecl handles declare/export/local/readonly/typeset.
func (p *parser) walkDecl(c *syntax.DeclClause, sc *scope, fr *frame) {
	exported := c.Variant.Value == "export"
	nameref, integer := false, false
	for _, a := range c.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			w := p.single(a.Value, sc, fr, false)
			if !w.Dynamic && strings.HasPrefix(w.Value, "-") {
				if strings.Contains(w.Value, "x") {
					exported = true
				}
				if strings.Contains(w.Value, "n") {
					nameref = true
				}
				if strings.Contains(w.Value, "i") {
					integer = true
				}
			} else {
				// declare 'a[…]=1': an assignment made at run time.
				p.nameSubscript(w, sc, fr)
			}
			continue
		}
		if integer && a.Name != nil {
			sc.shared.markInteger(a.Name.Value)
		}
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		if a.Naked {
			if v, ok := sc.vars[name]; ok && exported {
				v.exported = true
				sc.setVar(name, v)
			}
			continue
		}
		val := p.assignValue(a, sc, fr)
		if sc.shared.integers[name] {
			p.reEvaluated(val, sc, fr, 0)
		}
		if nameref {
			// A reference to the variable the value names, maybe HOME.
			val = Word{Value: "$" + name, Dynamic: true, Taint: Home}
		} else if a.Index != nil {
			val = dynWord("$" + name)
		}
		sc.setVar(name, varVal{w: val, exported: exported})
		p.commandVar(name, val, sc, fr, nil)
	}
	if len(c.Args) == 0 || c.Variant.Value == "declare" || c.Variant.Value == "typeset" {
		// declare -f/-p print; nothing to classify.
		return
	}
}

// walkCall evaluates a simple command and records it.
func (p *parser) walkCall(ce *syntax.CallExpr, st *syntax.Stmt, sc *scope, fr *frame) *Command {
	args := p.fieldsOf(ce.Args, sc, fr)
	redirs, stdin := p.redirects(st.Redirs, sc, fr)
	if len(args) == 0 {
		// Only assignments (or arguments that expanded to nothing): they
		// change the shell's own variables.
		for _, a := range ce.Assigns {
			if a.Name == nil {
				continue
			}
			val := p.assignValue(a, sc, fr)
			if sc.shared.integers[a.Name.Value] {
				p.reEvaluated(val, sc, fr, 0)
			}
			if a.Index != nil || a.Array != nil {
				val = dynWord("$" + a.Name.Value)
			}
			old := sc.vars[a.Name.Value]
			sc.setVar(a.Name.Value, varVal{w: val, exported: old.exported})
			p.commandVar(a.Name.Value, val, sc, fr, nil)
		}
		if len(redirs) > 0 {
			cmd := &Command{Redirs: redirs, Dir: sc.dir, DirKnown: sc.dirKnown, Source: fr.text(st)}
			if stdin != nil {
				cmd.Stdin = *stdin
			}
			p.emit(cmd, fr)
			return cmd
		}
		return nil
	}
	cmd := p.newCommand()
	*cmd = Command{Args: args, Redirs: redirs, Dir: sc.dir, DirKnown: sc.dirKnown, Source: fr.text(st)}
	if stdin != nil {
		cmd.Stdin = *stdin
	}
	for _, a := range ce.Assigns {
		if a.Name == nil {
			continue
		}
		cmd.Assigns = append(cmd.Assigns, Assign{Name: a.Name.Value, Value: p.assignValue(a, sc, fr)})
	}
	p.finish(cmd, sc, fr)
	return cmd
}

// redirects evaluates redirections; the returned Input is set when one of
// them feeds standard input.
func (p *parser) redirects(rs []*syntax.Redirect, sc *scope, fr *frame) ([]Redirect, *Input) {
	if len(rs) == 0 {
		return nil, nil
	}
	var out []Redirect
	var in *Input
	for _, r := range rs {
		red := Redirect{Op: r.Op.String(), Fd: -1}
		if r.N != nil {
			red.Fd = atoiDefault(r.N.Value, -2)
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			red.Target = p.single(r.Word, sc, fr, false)
			if r.Hdoc != nil {
				w := p.heredoc(r.Word, r.Hdoc, sc, fr)
				red.Text, red.TextKnown = w.Value, !w.Dynamic
				if w.Dynamic {
					red.Text = w.Prefix
				}
				if red.Fd <= 0 {
					in = &Input{Kind: InputText, Text: red.Text, TextKnown: red.TextKnown, Taint: w.Taint}
				}
			} else {
				red.TextKnown = true
				if red.Fd <= 0 {
					in = &Input{Kind: InputText, TextKnown: true}
				}
			}
		case syntax.WordHdoc:
			w := p.single(r.Word, sc, fr, false)
			red.Target = w
			red.Text, red.TextKnown = w.Value+"\n", !w.Dynamic
			if red.Fd <= 0 {
				in = &Input{Kind: InputText, Text: red.Text, TextKnown: red.TextKnown, Taint: w.Taint}
			}
		default:
			red.Target = p.single(r.Word, sc, fr, false)
			if (red.Op == "<" || red.Op == "<>") && red.Fd <= 0 {
				in = &Input{Kind: InputFile, Path: red.Target, Taint: red.Target.Taint}
				if red.Target.Proc {
					in.Text, in.TextKnown = red.Target.Content, red.Target.ContentKnown
				}
				if !red.Target.Dynamic && sc.shared.downloaded(p.abs(sc.dir, sc.dirKnown, red.Target.Value)) {
					in.Taint |= Downloaded
				}
			}
		}
		out = append(out, red)
	}
	return out, in
}

func atoiDefault(s string, def int) int {
	if s == "" {
		return def
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1<<20 {
			return def
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// abs resolves a path against a directory; "" when it cannot be known.
func (p *parser) abs(dir string, dirKnown bool, s string) string {
	if s == "" {
		return ""
	}
	if path.IsAbs(s) {
		return path.Clean(s)
	}
	if !dirKnown {
		return ""
	}
	return path.Join(dir, s)
}

// winAbs reports whether s is a Windows absolute path (C:\x or C:/x).
func winAbs(s string) bool {
	return len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/') && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))
}

// Abs resolves s against the command's directory. ok is false when the
// result cannot be known statically. Windows drive paths are absolute,
// with forward slashes.
func (c *Command) Abs(w Word) (string, bool) {
	if w.Dynamic || w.Value == "" {
		return "", false
	}
	if path.IsAbs(w.Value) {
		return path.Clean(w.Value), true
	}
	if winAbs(w.Value) {
		return path.Clean(strings.ReplaceAll(w.Value, `\`, "/")), true
	}
	if !c.DirKnown {
		return "", false
	}
	return path.Join(c.Dir, w.Value), true
}

// prescanFuncs records the functions a statement list defines and the
// variables their bodies assign: those may change at any call, so they
// are never trusted.
func (p *parser) prescanFuncs(stmts []*syntax.Stmt, sc *scope) {
	for _, st := range stmts {
		fd, ok := st.Cmd.(*syntax.FuncDecl)
		if !ok {
			continue
		}
		sh := sc.shared
		if sh.funcs == nil {
			sh.funcs = make(map[string]bool)
		}
		if fd.Name != nil {
			sh.funcs[fd.Name.Value] = true
		}
		names, cd := assignedNames(fd.Body)
		for _, n := range names {
			if sh.volatile == nil {
				sh.volatile = make(map[string]bool)
			}
			sh.volatile[n] = true
		}
		if cd {
			sh.funcCd = true
		}
	}
}

// forgetAssigned makes every variable a loop body assigns unknown before
// the loop runs, since a later iteration sees what an earlier one set.
func (p *parser) forgetAssigned(n syntax.Node, sc *scope) {
	names, cd := assignedNames(n)
	for _, name := range names {
		if name == "*" {
			for k, v := range sc.vars {
				sc.setVar(k, varVal{w: dynWord("$" + k), exported: v.exported})
			}
			continue
		}
		old := sc.vars[name]
		sc.setVar(name, varVal{w: dynWord("$" + name), exported: old.exported})
	}
	if cd {
		sc.dirKnown = false
	}
}

func (p *parser) forgetArith(x syntax.ArithmExpr, sc *scope) {
	if x == nil {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryArithm); ok && b.Op >= syntax.Assgn {
			if w, ok := b.X.(*syntax.Word); ok {
				if name := w.Lit(); name != "" {
					sc.setVar(name, varVal{w: dynWord("$" + name)})
				}
			}
		}
		if u, ok := n.(*syntax.UnaryArithm); ok {
			if w, ok := u.X.(*syntax.Word); ok {
				if name := w.Lit(); name != "" && (u.Op == syntax.Inc || u.Op == syntax.Dec) {
					sc.setVar(name, varVal{w: dynWord("$" + name)})
				}
			}
		}
		return true
	})
}

// assignedNames lists variables a piece of code may assign, and whether
// it may change directory.
func assignedNames(n syntax.Node) (names []string, cd bool) {
	if n == nil {
		return nil, false
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil {
				names = append(names, x.Name.Value)
			}
		case *syntax.WordIter:
			names = append(names, x.Name.Value)
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				break
			}
			switch x.Args[0].Lit() {
			case "cd", "pushd", "popd":
				cd = true
			case "read", "mapfile", "readarray", "getopts", "printf", "eval", "source", ".", "unset", "declare", "typeset", "local", "export":
				for _, a := range x.Args[1:] {
					if l := a.Lit(); l != "" && !strings.HasPrefix(l, "-") {
						names = append(names, l)
					}
				}
				if l := x.Args[0].Lit(); l == "eval" || l == "source" || l == "." {
					cd = true
					names = append(names, "*")
				}
			}
		}
		return true
	})
	return names, cd
}

func (sh *shared) markInteger(name string) {
	if sh.integers == nil {
		sh.integers = make(map[string]bool)
	}
	if len(sh.integers) < 1024 {
		sh.integers[name] = true
	}
}

// andChain flattens A && B && C (parsed as (A && B) && C) into its parts.
func andChain(c *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	if x, ok := c.X.Cmd.(*syntax.BinaryCmd); ok && x.Op == syntax.AndStmt && len(c.X.Redirs) == 0 && !c.X.Negated && !c.X.Background && len(out) < 10000 {
		out = andChain(x, out)
	} else {
		out = append(out, c.X)
	}
	return append(out, c.Y)
}

// uncalledFuncs walks the bodies of the functions no call was followed
// into (or all of them, when a command name only known at run time may
// call any), with unknown arguments.
func (p *parser) uncalledFuncs(sc *scope) {
	sh := sc.shared
	for len(sh.bodies) > 0 {
		var name string
		for n := range sh.bodies {
			if name == "" || n < name {
				name = n
			}
		}
		fb := sh.bodies[name]
		delete(sh.bodies, name)
		if !sh.called[name] || sh.dynCall {
			p.walkStmt(fb.body, fb.sc, fb.fr)
		}
	}
}

// callFunc walks the body of a function the script defined with the
// arguments of a call (retry npm ci runs npm ci).
func (p *parser) callFunc(cmd *Command, sc *scope, fr *frame) bool {
	name := cmd.Name()
	fb, ok := sc.shared.bodies[name]
	if !ok || p.calling[name] || len(p.calling) >= 8 {
		return false
	}
	for _, a := range cmd.Args[1:] {
		if a.Dynamic {
			return false // unknown arguments: walked once, at the end
		}
	}
	if p.calling == nil {
		p.calling = make(map[string]bool)
	}
	p.calling[name] = true
	defer delete(p.calling, name)
	if sc.shared.called == nil {
		sc.shared.called = make(map[string]bool)
	}
	if len(sc.shared.called) > 256 {
		return false
	}
	sc.shared.called[name] = true
	b := sc.clone()
	b.pos, b.posKnown = cmd.Args[1:], true
	p.walkStmt(fb.body, b, fr)
	return true
}

// maxLoopValues bounds the values of a loop variable followed one by one.
const maxLoopValues = 8

func staticWords(ws []Word) bool {
	for _, w := range ws {
		if w.Dynamic {
			return false
		}
	}
	return true
}
