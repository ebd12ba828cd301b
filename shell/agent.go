package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The wrapper shapes AI coding agents put around the command they were
// asked to run. They are recognised on the parsed program, part by part;
// anything extra or different means the script is judged as written (and
// the eval in it is then risky).
//
// Claude Code (CLAUDE_CODE_SHELL_PREFIX, DESIGN §7):
//
//	source SNAPSHOT 2>/dev/null || true && [shopt -u extglob 2>/dev/null || true &&]
//	[{ shopt -u extglob || setopt NO_EXTENDED_GLOB …; } >/dev/null 2>&1 || true &&]
//	[{ \builtin unalias -- 'x'; \builtin unset -f -- 'x'; } >/dev/null 2>&1 || true &&]
//	eval 'CMD' < /dev/null && pwd -P >| /tmp/claude-XXXX-cwd
//
// and the older form with eval CMD \< /dev/null. Gemini CLI:
//
//	{ CMD; }; __code=$?; pgrep -g 0 >/tmp/shell_pgrep_XXXX.tmp 2>&1; exit $__code;
type agentInner struct {
	Stmts []*syntax.Stmt
	src   string
	err   error
	stdin *Input
	// output is the file the wrapper itself writes (Claude Code's cwd
	// file), "" when it writes none the agent needs back.
	output string
}

// The file names of the agents' wrapper shapes are matched by hand (the
// classifier runs for every command; agentnames_test.go holds the
// patterns they implement and checks them against each other).
var bunOptions = `export BUN_OPTIONS="--smol${BUN_OPTIONS:+ $BUN_OPTIONS}"`

// claudeCwdFile matches ^claude-[0-9a-f]+-cwd$.
func claudeCwdFile(s string) bool {
	mid, ok := strings.CutPrefix(s, "claude-")
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, "-cwd")
	return ok && mid != "" && onlyBytes(mid, isHexLower)
}

// claudeSnapshot matches /shell-snapshots/snapshot-(bash|zsh|sh)-[0-9]+-[0-9a-z]+\.sh$:
// the name after the last / is snapshot-SHELL-DIGITS-ID.sh, in a
// directory named shell-snapshots.
func claudeSnapshot(s string) bool {
	i := strings.LastIndexByte(s, '/')
	if i < 0 || !strings.HasSuffix(s[:i+1], "/shell-snapshots/") {
		return false
	}
	rest, ok := strings.CutPrefix(s[i+1:], "snapshot-")
	if !ok {
		return false
	}
	for _, sh := range [...]string{"bash-", "zsh-", "sh-"} {
		if r, ok := strings.CutPrefix(rest, sh); ok {
			rest = r
			break
		}
		if sh == "sh-" {
			return false
		}
	}
	digits, id, ok := strings.Cut(rest, "-")
	if !ok || digits == "" || !onlyBytes(digits, isDigit) {
		return false
	}
	id, ok = strings.CutSuffix(id, ".sh")
	return ok && id != "" && onlyBytes(id, func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' })
}

// geminiPgrepFile matches ^shell_pgrep_[0-9a-f]+\.tmp$.
func geminiPgrepFile(s string) bool {
	mid, ok := strings.CutPrefix(s, "shell_pgrep_")
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, ".tmp")
	return ok && mid != "" && onlyBytes(mid, isHexLower)
}

// zshNoOption matches ^NO_[A-Z_]+$.
func zshNoOption(s string) bool {
	rest, ok := strings.CutPrefix(s, "NO_")
	return ok && rest != "" && onlyBytes(rest, func(c byte) bool { return c >= 'A' && c <= 'Z' || c == '_' })
}

// macTempDir matches ^/(private/)?var/folders/[^/]+/[^/]+/T$, the
// per-user temporary directory of macOS.
func macTempDir(s string) bool {
	s = strings.TrimPrefix(s, "/private")
	rest, ok := strings.CutPrefix(s, "/var/folders/")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, "/T")
	if !ok {
		return false
	}
	a, b, ok := strings.Cut(rest, "/")
	return ok && a != "" && b != "" && !strings.Contains(b, "/")
}

func onlyBytes(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexLower(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' }

func (p *parser) agentShape(f *syntax.File, src string) (*agentInner, string) {
	if f == nil {
		return nil, ""
	}
	if len(f.Stmts) == 1 {
		if in := p.claudeShape(f.Stmts[0], src); in != nil {
			return in, "claude-code"
		}
	}
	if in := geminiShape(f.Stmts, src); in != nil && p.tempDir(path.Dir(in.output)) {
		in.output = ""
		return in, "gemini-cli"
	}
	return nil, ""
}

// tempDir reports whether the agents' wrappers may write their own files
// to dir: a temporary directory, not a place a look-alike could use to
// write somewhere that matters.
func (p *parser) tempDir(dir string) bool {
	dir = path.Clean(dir)
	if dir == "/tmp" || dir == "/private/tmp" || macTempDir(dir) {
		return true
	}
	if t := p.opts.Env["TMPDIR"]; t != "" && path.IsAbs(t) && path.Clean(t) == dir {
		return true
	}
	return strings.HasSuffix(strings.ToLower(dir), "/appdata/local/temp")
}

type link struct {
	op syntax.BinCmdOperator // 0 for the first
	st *syntax.Stmt
}

func flatten(st *syntax.Stmt, op syntax.BinCmdOperator, out []link) []link {
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) && len(st.Redirs) == 0 && !st.Negated && !st.Background {
		out = flatten(b.X, op, out)
		return flatten(b.Y, b.Op, out)
	}
	return append(out, link{op: op, st: st})
}

func (p *parser) claudeShape(st *syntax.Stmt, src string) *agentInner {
	if st.Background || st.Negated || len(st.Redirs) > 0 {
		return nil
	}
	if _, ok := st.Cmd.(*syntax.BinaryCmd); !ok {
		return nil // one command: no wrapper
	}
	var buf [8]link
	links := flatten(st, 0, buf[:0])
	n := len(links)
	if n < 3 {
		return nil
	}
	// Tail: && pwd -P >| …/claude-XXXX-cwd
	last := links[n-1]
	cwdFile, ok := claudePwd(last.st)
	if last.op != syntax.AndStmt || !ok || !p.tempDir(path.Dir(cwdFile)) {
		return nil
	}
	ev := links[n-2]
	if ev.op != syntax.AndStmt {
		return nil
	}
	text, ok := claudeEval(ev.st)
	if !ok {
		return nil
	}
	// Preamble: items joined by &&, each optionally followed by || true,
	// starting with the snapshot source.
	pre := links[:n-2]
	sawSource := false
	for i := 0; i < len(pre); {
		l := pre[i]
		if (i == 0) != (l.op == 0) || (i > 0 && l.op != syntax.AndStmt) {
			return nil
		}
		switch {
		case i == 0 && p.isSnapshotSource(l.st):
			sawSource = true
		case i > 0 && isClaudePreamble(l.st, src):
		default:
			return nil
		}
		i++
		if i < len(pre) && pre[i].op == syntax.OrStmt {
			if !isLitCall(pre[i].st, "true") {
				return nil
			}
			i++
		}
	}
	if !sawSource {
		return nil
	}
	in := &agentInner{src: text, stdin: &Input{Kind: InputText, TextKnown: true}, output: cwdFile}
	if len(text) > MaxScript || nestingDepth(text) > MaxNesting {
		in.err = errTooComplex
		return in
	}
	f, err := p.parseSh(text, Eval)
	if f != nil {
		in.Stmts = f.Stmts
	}
	in.err = err
	return in
}

type tooComplexError struct{}

func (tooComplexError) Error() string { return "wrapped command is too large or too deep to analyse" }

var errTooComplex error = tooComplexError{}

// claudePwd recognises the wrapper's tail, pwd -P >| /…/claude-XXXX-cwd,
// and returns the cwd file.
func claudePwd(st *syntax.Stmt) (string, bool) {
	if st.Background || st.Negated || len(st.Redirs) != 1 {
		return "", false
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 {
		return "", false
	}
	ws, ok := litWords(ce.Args)
	if !ok || len(ws) != 2 || ws[0] != "pwd" || ws[1] != "-P" {
		return "", false
	}
	r := st.Redirs[0]
	if r.Op != syntax.RdrClob || r.N != nil {
		return "", false
	}
	t, ok := litWord(r.Word)
	if !ok || !path.IsAbs(t) || !claudeCwdFile(path.Base(t)) {
		return "", false
	}
	return path.Clean(t), true
}

// claudeEval returns the text an eval 'CMD' < /dev/null (or the older
// eval CMD \< /dev/null) would run.
func claudeEval(st *syntax.Stmt) (string, bool) {
	if st.Background || st.Negated {
		return "", false
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) < 2 {
		return "", false
	}
	ws, ok := litWords(ce.Args)
	if !ok || ws[0] != "eval" {
		return "", false
	}
	words := ws[1:]
	switch len(st.Redirs) {
	case 1:
		r := st.Redirs[0]
		t, ok := litWord(r.Word)
		if r.Op != syntax.RdrIn || r.N != nil || !ok || t != "/dev/null" {
			return "", false
		}
	case 0:
		// eval CMD \< /dev/null: the escaped < is a word.
		n := len(words)
		if n < 3 || words[n-1] != "/dev/null" || words[n-2] != "<" {
			return "", false
		}
		lt := ce.Args[len(ce.Args)-2]
		if l, ok := lt.Parts[0].(*syntax.Lit); !ok || len(lt.Parts) != 1 || l.Value != `\<` {
			return "", false
		}
	default:
		return "", false
	}
	return strings.Join(words, " "), true
}

func (p *parser) isSnapshotSource(st *syntax.Stmt) bool {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Background || st.Negated || len(ce.Assigns) > 0 {
		return false
	}
	ws, ok := litWords(ce.Args)
	if !ok || len(ws) != 2 || (ws[0] != "source" && ws[0] != ".") {
		return false
	}
	if !claudeSnapshot(ws[1]) || !path.IsAbs(ws[1]) && !strings.HasPrefix(ws[1], "~/") {
		return false
	}
	if !p.snapshotTrusted(ws[1]) {
		return false
	}
	return redirsOnly(st, "2>/dev/null")
}

// snapshotTrusted reports whether the snapshot a Claude Code wrapper
// sources is Claude's own, spelled without ..: in the user's
// ~/.claude/shell-snapshots or $CLAUDE_CONFIG_DIR/shell-snapshots, or in
// another …/.claude/shell-snapshots that the command may not write (not
// the working directory, the temporary directory, Options.Writable), so
// could not have planted.
func (p *parser) snapshotTrusted(snap string) bool {
	abs := snap
	if strings.HasPrefix(snap, "~/") {
		if p.opts.Home == "" {
			return true // judged where it is known; nothing to compare
		}
		abs = path.Join(p.opts.Home, snap[2:])
	}
	if path.Clean(abs) != abs {
		return false
	}
	dir := path.Dir(abs)
	if d := p.opts.Env["CLAUDE_CONFIG_DIR"]; d != "" && path.IsAbs(d) && dir == path.Join(d, "shell-snapshots") {
		return true // the configured directory
	}
	if p.opts.Home != "" && dir == path.Join(p.opts.Home, ".claude", "shell-snapshots") {
		return true // the user's own Claude directory
	}
	if path.Base(path.Dir(dir)) != ".claude" {
		return false
	}
	within := func(base string) bool {
		base = path.Clean(base)
		return base != "" && path.IsAbs(base) && (abs == base || strings.HasPrefix(abs, strings.TrimSuffix(base, "/")+"/"))
	}
	if p.opts.Cwd != "" && within(p.opts.Cwd) || within("/tmp") || within("/private/tmp") || within(p.opts.Env["TMPDIR"]) {
		return false
	}
	return p.opts.Writable == nil || !p.opts.Writable(abs)
}

// isClaudePreamble accepts the fixed set of shell-option and alias resets
// Claude Code puts before the command.
func isClaudePreamble(st *syntax.Stmt, src string) bool {
	if st.Background || st.Negated {
		return false
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if isLitCall(st, "shopt", "-u", "extglob") {
			return redirsOnly(st, "2>/dev/null")
		}
		if len(c.Assigns) == 0 && len(c.Args) == 0 {
			return false
		}
		s, e := int(st.Pos().Offset()), int(st.End().Offset())
		return s >= 0 && e <= len(src) && src[s:e] == bunOptions
	case *syntax.DeclClause:
		s, e := int(st.Pos().Offset()), int(st.End().Offset())
		return s >= 0 && e <= len(src) && strings.TrimSpace(src[s:e]) == bunOptions
	case *syntax.Block:
		if !redirsOnly(st, ">/dev/null", "2>&1") || len(st.Redirs) != 2 {
			return false
		}
		for _, in := range c.Stmts {
			if !isOptionReset(in) {
				return false
			}
		}
		return len(c.Stmts) > 0
	}
	return false
}

// isOptionReset matches shopt -u extglob, setopt NO_…, \builtin unalias
// -- NAME, \builtin unset -f -- NAME, and || combinations of them.
func isOptionReset(st *syntax.Stmt) bool {
	if st.Background || st.Negated || len(st.Redirs) > 0 {
		return false
	}
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok {
		return b.Op == syntax.OrStmt && isOptionReset(b.X) && isOptionReset(b.Y)
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 {
		return false
	}
	ws, ok := litWords(ce.Args)
	if !ok || len(ws) == 0 {
		return false
	}
	switch {
	case len(ws) == 3 && ws[0] == "shopt" && ws[1] == "-u" && ws[2] == "extglob":
		return true
	case ws[0] == "setopt" && len(ws) > 1:
		for _, w := range ws[1:] {
			if !zshNoOption(w) {
				return false
			}
		}
		return true
	case len(ws) == 4 && ws[0] == "builtin" && ws[1] == "unalias" && ws[2] == "--" && validName(ws[3]):
		return true
	case len(ws) == 5 && ws[0] == "builtin" && ws[1] == "unset" && ws[2] == "-f" && ws[3] == "--" && validName(ws[4]):
		return true
	}
	return false
}

func geminiShape(stmts []*syntax.Stmt, src string) *agentInner {
	n := len(stmts)
	if n != 4 && n != 5 {
		return nil
	}
	blk, ok := stmts[0].Cmd.(*syntax.Block)
	if !ok || len(stmts[0].Redirs) > 0 || stmts[0].Negated || stmts[0].Background {
		return nil
	}
	// __code=$?
	ce, ok := stmts[1].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) > 0 || len(ce.Assigns) != 1 || len(stmts[1].Redirs) > 0 {
		return nil
	}
	as := ce.Assigns[0]
	if as.Name == nil || as.Name.Value != "__code" || as.Value == nil || len(as.Value.Parts) != 1 {
		return nil
	}
	if pe, ok := as.Value.Parts[0].(*syntax.ParamExp); !ok || pe.Param == nil || pe.Param.Value != "?" || !pe.Short {
		return nil
	}
	// pgrep -g 0 >FILE [2>&1]
	pg := stmts[2]
	if !isLitCall(pg, "pgrep", "-g", "0") || len(pg.Redirs) < 1 || len(pg.Redirs) > 2 {
		return nil
	}
	r := pg.Redirs[0]
	t, ok := litWord(r.Word)
	if r.Op != syntax.RdrOut || r.N != nil || !ok || !path.IsAbs(t) || !geminiPgrepFile(path.Base(t)) {
		return nil
	}
	if len(pg.Redirs) == 2 && !redirIs(pg.Redirs[1], "2>&1") {
		return nil
	}
	output := path.Clean(t)
	i := 3
	if n == 5 {
		// ( trap '' PIPE ; echo >&2 )
		sub, ok := stmts[3].Cmd.(*syntax.Subshell)
		if !ok || len(stmts[3].Redirs) > 0 || len(sub.Stmts) != 2 {
			return nil
		}
		if !isLitCall(sub.Stmts[0], "trap", "", "PIPE") || len(sub.Stmts[0].Redirs) > 0 {
			return nil
		}
		e := sub.Stmts[1]
		if !isLitCall(e, "echo") || len(e.Redirs) != 1 || !redirIs(e.Redirs[0], ">&2") {
			return nil
		}
		i = 4
	}
	// exit $__code
	ex, ok := stmts[i].Cmd.(*syntax.CallExpr)
	if !ok || len(ex.Args) != 2 || len(ex.Assigns) > 0 || len(stmts[i].Redirs) > 0 || ex.Args[0].Lit() != "exit" {
		return nil
	}
	if pe, ok := ex.Args[1].Parts[0].(*syntax.ParamExp); !ok || len(ex.Args[1].Parts) != 1 || pe.Param == nil || pe.Param.Value != "__code" || !pe.Short {
		return nil
	}
	if len(blk.Stmts) == 0 {
		return nil
	}
	return &agentInner{Stmts: blk.Stmts, src: src, output: output}
}

// litWords returns the values of words that are pure literals (quoted or
// not, backslashes removed), or false.
func litWords(ws []*syntax.Word) ([]string, bool) {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		s, ok := litWord(w)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func litWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var sb strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			v, glob := unescapeUnquoted(x.Value)
			if glob {
				return "", false
			}
			sb.WriteString(v)
		case *syntax.SglQuoted:
			if x.Dollar {
				sb.WriteString(ansiC(x.Value))
			} else {
				sb.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, in := range x.Parts {
				l, ok := in.(*syntax.Lit)
				if !ok {
					return "", false
				}
				sb.WriteString(unescapeDouble(l.Value, false))
			}
		default:
			return "", false
		}
	}
	return sb.String(), true
}

func isLitCall(st *syntax.Stmt, words ...string) bool {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) != len(words) || st.Background || st.Negated {
		return false
	}
	ws, ok := litWords(ce.Args)
	if !ok {
		return false
	}
	for i := range ws {
		if ws[i] != words[i] {
			return false
		}
	}
	return true
}

func redirIs(r *syntax.Redirect, want string) bool {
	t, ok := litWord(r.Word)
	if !ok {
		return false
	}
	n := ""
	if r.N != nil {
		n = r.N.Value
	}
	return n+r.Op.String()+t == want
}

// redirsOnly reports whether every redirection of st is one of allowed.
func redirsOnly(st *syntax.Stmt, allowed ...string) bool {
	for _, r := range st.Redirs {
		ok := false
		for _, a := range allowed {
			if redirIs(r, a) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
