package shell

import (
	"path"
	"strings"
)

// psTokKind is a PowerShell token kind.
type psTokKind int

const (
	psWord  psTokKind = iota
	psSep             // ; newline && ||
	psPipe            // |
	psAmp             // & (call operator, or background at the end)
	psRedir           // > >> 2> *> <
)

type psTok struct {
	kind  psTokKind
	w     Word
	op    string
	expr  bool // a parenthesised expression, type expression, variable or literal in command position
	block bool // a script block { … }
	quote bool // a quoted string
}

// psLexer tokenizes PowerShell source.
type psLexer struct {
	last Taint // taint of the last statement's output
	p    *parser
	src  string
	i    int
	sc   *scope
	fr   *frame
	cmd  *Command // the command holding this code
	vars map[string]Word
	toks []psTok
	// aliases are the ones the code defines (Set-Alias x Remove-Item).
	aliases map[string]string
	// stack is Push-Location's.
	stack []cmdDir
	// valDepth bounds psValue's recursion through nested lexers.
	valDepth int
}

// psScript parses and walks PowerShell code; it reports whether the code
// could be analysed.
func (p *parser) psScript(src string, o Origin, parent *Command, sc *scope, fr *frame) bool {
	if !p.enterNested(src, o, fr, "PowerShell code") {
		return false
	}
	cf := fr.child(o, parent, src)
	lx := &psLexer{p: p, src: src, sc: sc, fr: cf, cmd: parent, vars: map[string]Word{}}
	ok := lx.lex()
	if !ok {
		p.issue(ParseError, o, "PowerShell: unterminated string, block or expression")
	}
	return ok
}

func (lx *psLexer) lex() bool {
	src := lx.src
	ok := true
	for lx.i < len(src) {
		if !lx.p.step() {
			return false
		}
		c := src[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			lx.i++
		case c == '`' && lx.i+1 < len(src) && (src[lx.i+1] == '\n' || src[lx.i+1] == '\r'):
			lx.i += 2
		case c == '#':
			for lx.i < len(src) && src[lx.i] != '\n' {
				lx.i++
			}
		case strings.HasPrefix(src[lx.i:], "<#"):
			end := strings.Index(src[lx.i:], "#>")
			if end < 0 {
				lx.i = len(src)
				ok = false
			} else {
				lx.i += end + 2
			}
		case c == '\n' || c == ';':
			lx.endStatement()
			lx.i++
		case strings.HasPrefix(src[lx.i:], "&&") || strings.HasPrefix(src[lx.i:], "||"):
			lx.endStatement()
			lx.i += 2
		case c == '|':
			lx.toks = append(lx.toks, psTok{kind: psPipe})
			lx.i++
		case c == '&':
			lx.toks = append(lx.toks, psTok{kind: psAmp})
			lx.i++
		case c == '>' || c == '<' || (c >= '1' && c <= '6' || c == '*') && lx.i+1 < len(src) && src[lx.i+1] == '>' && lx.atWordStart():
			op := lx.redirOp()
			if op == "" {
				lx.i++
				continue
			}
			lx.toks = append(lx.toks, psTok{kind: psRedir, op: op})
		default:
			if name, n := psAssignment(src[lx.i:]); n > 0 && lx.atStatementStart() {
				lx.toks = append(lx.toks, psTok{kind: psWord, w: Static("$" + name)}, psTok{kind: psWord, w: Static("=")})
				lx.i += n
				continue
			}
			t, good := lx.word()
			if !good {
				ok = false
			}
			lx.toks = append(lx.toks, t)
		}
	}
	lx.endStatement()
	return ok
}

// endStatement processes the tokens read since the last separator:
// variables are resolved as the script runs, statement by statement.
func (lx *psLexer) endStatement() {
	if len(lx.toks) > 0 {
		lx.last = lx.statement(lx.toks)
	}
	lx.toks = lx.toks[:0]
}

func (lx *psLexer) atStatementStart() bool {
	return len(lx.toks) == 0
}

// psAssignment matches "$name =" or "$name+=" at the start of s and
// returns the name and the length through the operator.
func psAssignment(s string) (string, int) {
	if len(s) < 3 || s[0] != '$' {
		return "", 0
	}
	j := 1
	for j < len(s) && (isPSIdent(s[j]) && s[j] != '-' || s[j] == ':') {
		j++
	}
	name := s[1:j]
	if name == "" {
		return "", 0
	}
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k < len(s) && s[k] == '+' {
		k++
	}
	if k < len(s) && s[k] == '=' && (k+1 >= len(s) || s[k+1] != '=') {
		return name, k + 1
	}
	return "", 0
}

func (lx *psLexer) atWordStart() bool {
	return lx.i == 0 || strings.IndexByte(" \t\n;|&(", lx.src[lx.i-1]) >= 0
}

// redirOp reads a redirection operator; merges (2>&1) return "".
func (lx *psLexer) redirOp() string {
	src := lx.src
	j := lx.i
	if src[j] != '>' && src[j] != '<' {
		j++
	}
	if src[j] == '<' {
		lx.i = j + 1
		return "<"
	}
	op := ">"
	j++
	if j < len(src) && src[j] == '>' {
		op = ">>"
		j++
	}
	if j < len(src) && src[j] == '&' {
		// 2>&1: a stream merge, no file.
		j++
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
		lx.i = j
		return ""
	}
	lx.i = j
	return op
}

// word reads one word-like token: a string, a bare word with expansions,
// a group ( … ), $( … ), @( … ), a block { … }, a type expression.
func (lx *psLexer) word() (psTok, bool) {
	src := lx.src
	var sb strings.Builder
	t := psTok{kind: psWord}
	dyn := false
	var taint Taint
	first := true
	good := true
	for lx.i < len(src) {
		c := src[lx.i]
		if strings.IndexByte(" \t\r\n;|&", c) >= 0 {
			break
		}
		if (c == '>' || c == '<') && !first {
			break
		}
		switch {
		case c == '`' && lx.i+1 < len(src):
			sb.WriteByte(src[lx.i+1])
			lx.i += 2
		case c == '\'':
			end := lx.i + 1
			for {
				k := strings.IndexByte(src[end:], '\'')
				if k < 0 {
					sb.WriteString(src[end:])
					lx.i = len(src)
					good = false
					break
				}
				sb.WriteString(src[end : end+k])
				end += k + 1
				if end < len(src) && src[end] == '\'' {
					sb.WriteByte('\'')
					end++
					continue
				}
				lx.i = end
				break
			}
			if first && (lx.i >= len(src) || strings.IndexByte(" \t\r\n;|&)", src[lx.i]) >= 0) {
				t.quote = true
			}
		case c == '"':
			d, tn, ok := lx.dquoted(&sb)
			dyn = dyn || d
			taint |= tn
			good = good && ok
			if first {
				t.quote = true
			}
		case c == '@' && lx.i+1 < len(src) && (src[lx.i+1] == '\'' || src[lx.i+1] == '"'):
			q := src[lx.i+1]
			end := strings.Index(src[lx.i+2:], "\n"+string(q)+"@")
			if end < 0 {
				lx.i = len(src)
				good = false
				break
			}
			body := strings.TrimPrefix(src[lx.i+2:lx.i+2+end], "\n")
			body = strings.TrimPrefix(body, "\r\n")
			if q == '"' && strings.Contains(body, "$") {
				dyn = true
			}
			sb.WriteString(body)
			lx.i += 2 + end + 3
			t.quote = true
		case c == '(' || (c == '$' || c == '@') && lx.i+1 < len(src) && src[lx.i+1] == '(':
			start := lx.i
			if c != '(' {
				lx.i++
			}
			inner, ok := lx.group('(', ')')
			good = good && ok
			tn := lx.inner(inner)
			taint |= tn | exprTaint(src[start:lx.i])
			if first {
				t.expr = true
			}
			// A method call on the group: (…).DownloadString('…').
			for lx.i < len(src) && (src[lx.i] == '.' || isPSIdent(src[lx.i])) {
				lx.i++
				if lx.i < len(src) && src[lx.i] == '(' {
					inner, ok := lx.group('(', ')')
					good = good && ok
					taint |= lx.inner(inner)
				}
			}
			text := src[start:lx.i]
			taint |= exprTaint(text)
			// A path the expression can only mean one way is that path.
			if v, ok := lx.psValue(text); ok && taint == 0 && !literalConcat(text) {
				sb.WriteString(v)
			} else {
				sb.WriteString(text)
				dyn = true
			}
		case c == '{' || c == '@' && lx.i+1 < len(src) && src[lx.i+1] == '{':
			start := lx.i
			hash := c == '@'
			if hash {
				lx.i++
			}
			inner, ok := lx.group('{', '}')
			good = good && ok
			if !hash {
				taint |= lx.inner(inner)
				t.block = true
			}
			sb.WriteString(src[start:lx.i])
		case c == '[' && first:
			// [Type]::Member(…): an expression.
			start := lx.i
			depth := 0
			for lx.i < len(src) {
				ch := src[lx.i]
				if ch == '[' || ch == '(' {
					depth++
				} else if ch == ']' || ch == ')' {
					depth--
				} else if depth == 0 && strings.IndexByte(" \t\r\n;|&", ch) >= 0 {
					break
				} else if ch == '\'' || ch == '"' {
					var tmp strings.Builder
					if ch == '"' {
						lx.dquoted(&tmp)
					} else {
						k := strings.IndexByte(src[lx.i+1:], '\'')
						if k < 0 {
							lx.i = len(src)
							break
						}
						lx.i += k + 2
					}
					continue
				}
				lx.i++
			}
			text := src[start:lx.i]
			for _, m := range psGroups(text) {
				taint |= lx.inner(m)
			}
			lx.dotNetFile(text, taint|exprTaint(text))
			taint |= exprTaint(text)
			if v, ok := lx.psValue(text); ok && taint == 0 && !literalConcat(text) {
				sb.WriteString(v)
			} else {
				sb.WriteString(text)
				dyn = true
			}
			t.expr = true
		case c == '@' && first && lx.i+1 < len(src) && (isPSIdent(src[lx.i+1]) && src[lx.i+1] != '-'):
			// @params: splatting, arguments only known at run time.
			start := lx.i
			lx.i++
			for lx.i < len(src) && isPSIdent(src[lx.i]) {
				lx.i++
			}
			sb.WriteString(src[start:lx.i])
			dyn = true
		case c == '$':
			v, ok, tn := lx.variable()
			taint |= tn
			if !ok {
				dyn = true
			}
			if first && lx.i < len(src) && strings.IndexByte(" \t\r\n;|&", src[lx.i]) >= 0 {
				t.expr = true
			}
			sb.WriteString(v)
		default:
			sb.WriteByte(c)
			lx.i++
		}
		first = false
	}
	v := sb.String()
	if dyn {
		t.w = Word{Value: v, Dynamic: true, Taint: taint}
	} else {
		t.w = Word{Value: v, Prefix: v, Taint: taint}
	}
	t.w = lx.p.winPathWord(t.w)
	return t, good
}

func isPSIdent(c byte) bool {
	return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// psGroups returns the contents of the top-level ( … ) groups of text.
func psGroups(text string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(':
			if depth == 0 {
				start = i + 1
			}
			depth++
		case ')':
			depth--
			if depth == 0 {
				out = append(out, text[start:i])
			}
		}
	}
	return out
}

// exprTaint recognises .NET calls that fetch or decode data.
func exprTaint(text string) Taint {
	l := strings.ToLower(text)
	var t Taint
	for _, n := range []string{"downloadstring", "downloadfile", "downloaddata", "openread", "getstringasync", "getasync", "net.webclient", "system.net.http", "invoke-webrequest", "invoke-restmethod"} {
		if strings.Contains(l, n) {
			t |= Network
		}
	}
	for _, n := range []string{"frombase64string", "getstring(", "gzipstream", "deflatestream", "-join", "[char]", "reverse("} {
		if strings.Contains(l, n) {
			t |= Decoded
		}
	}
	return t
}

// group reads a bracketed group starting at lx.i and returns its inside.
func (lx *psLexer) group(open, close byte) (string, bool) {
	src := lx.src
	depth := 0
	start := lx.i + 1
	for lx.i < len(src) {
		c := src[lx.i]
		switch {
		case c == '\'':
			k := strings.IndexByte(src[lx.i+1:], '\'')
			if k < 0 {
				lx.i = len(src)
				return src[start:], false
			}
			lx.i += k + 2
			continue
		case c == '"':
			var tmp strings.Builder
			lx.dquotedRaw(&tmp)
			continue
		case c == '`':
			lx.i += 2
			continue
		case c == open:
			depth++
		case c == close:
			depth--
			if depth == 0 {
				lx.i++
				return src[start : lx.i-1], true
			}
		}
		lx.i++
	}
	return src[start:], false
}

// inner parses nested PowerShell code (a group or block) and returns the
// taint of what it produces.
func (lx *psLexer) inner(src string) Taint {
	if strings.TrimSpace(src) == "" {
		return 0
	}
	start := len(lx.p.prog.Commands)
	cf := lx.fr.child(CmdSubst, lx.cmd, src)
	sub := &psLexer{p: lx.p, src: src, sc: lx.sc, fr: cf, cmd: lx.cmd, vars: lx.vars}
	if cf.depth > maxReparse {
		lx.p.issue(TooComplex, CmdSubst, "PowerShell code nested too deep")
		return 0
	}
	if !sub.lex() {
		lx.p.issue(ParseError, CmdSubst, "PowerShell: unterminated string, block or expression")
	}
	t := sub.last
	for _, c := range lx.p.prog.Commands[start:] {
		t |= lx.p.commandTaint(c)
	}
	return t
}

// dquoted reads an expandable "…" string into sb; it reports whether it
// holds run-time values.
func (lx *psLexer) dquoted(sb *strings.Builder) (bool, Taint, bool) {
	src := lx.src
	lx.i++
	dyn := false
	var taint Taint
	for lx.i < len(src) {
		c := src[lx.i]
		switch {
		case c == '`' && lx.i+1 < len(src):
			e := src[lx.i+1]
			switch e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case '0':
				sb.WriteByte(0)
			default:
				sb.WriteByte(e)
			}
			lx.i += 2
		case c == '"':
			if lx.i+1 < len(src) && src[lx.i+1] == '"' {
				sb.WriteByte('"')
				lx.i += 2
				continue
			}
			lx.i++
			return dyn, taint, true
		case c == '$' && lx.i+1 < len(src) && src[lx.i+1] == '(':
			start := lx.i
			lx.i++
			inner, _ := lx.group('(', ')')
			taint |= lx.inner(inner)
			if v, ok := lx.psValue(src[start:lx.i]); ok && taint == 0 && !literalConcat(src[start:lx.i]) {
				sb.WriteString(v)
			} else {
				sb.WriteString(src[start:lx.i])
				dyn = true
			}
		case c == '$':
			v, ok, tn := lx.variable()
			taint |= tn
			if !ok {
				dyn = true
			}
			sb.WriteString(v)
		default:
			sb.WriteByte(c)
			lx.i++
		}
	}
	return dyn, taint, false
}

func (lx *psLexer) dquotedRaw(sb *strings.Builder) {
	src := lx.src
	lx.i++
	for lx.i < len(src) {
		c := src[lx.i]
		if c == '`' {
			lx.i += 2
			continue
		}
		if c == '"' {
			lx.i++
			return
		}
		sb.WriteByte(c)
		lx.i++
	}
}

// variable reads $name, ${name}, $env:NAME; it returns the folded value
// (or the source text) and whether it is known.
func (lx *psLexer) variable() (string, bool, Taint) {
	src := lx.src
	start := lx.i
	lx.i++
	var name string
	if lx.i < len(src) && src[lx.i] == '{' {
		end := strings.IndexByte(src[lx.i:], '}')
		if end < 0 {
			lx.i = len(src)
			return src[start:], false, 0
		}
		name = src[lx.i+1 : lx.i+end]
		lx.i += end + 1
	} else {
		j := lx.i
		for j < len(src) && (isPSIdent(src[j]) && src[j] != '-' || src[j] == ':' && j+1 < len(src) && isPSIdent(src[j+1])) {
			j++
		}
		name = src[lx.i:j]
		lx.i = j
	}
	raw := src[start:lx.i]
	if name == "" {
		return raw, true, 0
	}
	l := strings.ToLower(name)
	if env, ok := strings.CutPrefix(l, "env:"); ok {
		if v, ok := lx.p.winVar(env); ok {
			return v, true, 0
		}
		if env == "home" && lx.p.opts.Home != "" {
			return lx.p.opts.Home, true, 0
		}
		return raw, false, 0
	}
	switch l {
	case "home":
		if lx.p.opts.Home != "" {
			return lx.p.opts.Home, true, 0
		}
	case "pwd":
		if lx.sc.dirKnown {
			return lx.sc.dir, true, 0
		}
	case "true", "false", "null":
		return raw, true, 0
	}
	if w, ok := lx.vars[l]; ok {
		return w.Value, !w.Dynamic, w.Taint
	}
	return raw, false, 0
}

func (lx *psLexer) statement(toks []psTok) Taint {
	// $x = <pipeline>
	if len(toks) >= 2 && toks[0].kind == psWord && strings.HasPrefix(toks[0].w.Value, "$") && toks[1].kind == psWord && (toks[1].w.Value == "=" || toks[1].w.Value == "+=") {
		name := strings.ToLower(strings.TrimPrefix(strings.Trim(toks[0].w.Value, "${}"), "$"))
		rhs := toks[2:]
		if v, ok := psConcat(rhs); ok {
			lx.vars[name] = v
			return 0
		}
		t := lx.pipeline(rhs)
		for _, tk := range rhs {
			t |= tk.w.Taint
		}
		lx.vars[name] = Word{Value: "$" + name, Dynamic: true, Taint: t}
		return t
	}
	return lx.pipeline(toks)
}

// psConcat is the value of an assignment's right side made of strings
// and expressions known statically, joined by +.
func psConcat(rhs []psTok) (Word, bool) {
	var sb strings.Builder
	for i, tk := range rhs {
		if tk.kind != psWord {
			return Word{}, false
		}
		if i%2 == 1 {
			if tk.w.Value != "+" || tk.quote {
				return Word{}, false
			}
			continue
		}
		if !(tk.quote || tk.expr) || tk.w.Dynamic || tk.block || tk.w.Taint != 0 {
			return Word{}, false
		}
		sb.WriteString(tk.w.Value)
	}
	if len(rhs)%2 == 0 {
		return Word{}, false
	}
	return Static(sb.String()), true
}

func (lx *psLexer) pipeline(toks []psTok) Taint {
	var upstream []*Command
	var taint Taint
	start := 0
	piped := false
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && toks[i].kind != psPipe {
			continue
		}
		el := toks[start:i]
		start = i + 1
		var in *Input
		if piped {
			in = &Input{Kind: InputPipe, Upstream: upstream, Taint: taint}
			for _, c := range upstream {
				in.Taint |= lx.p.commandTaint(c)
			}
		}
		cmd, t := lx.element(el, in)
		if cmd != nil {
			upstream = append(upstream, cmd)
			taint |= lx.p.commandTaint(cmd)
		}
		taint |= t
		piped = true
	}
	return taint
}

// element turns one pipeline element into a command (nil for an
// expression) and the taint of its output.
func (lx *psLexer) element(toks []psTok, in *Input) (*Command, Taint) {
	if len(toks) == 0 {
		return nil, 0
	}
	call := false
	if toks[0].kind == psAmp || (toks[0].kind == psWord && toks[0].w.Value == "." && len(toks) > 1) {
		call = true
		toks = toks[1:]
	}
	if len(toks) > 0 && toks[len(toks)-1].kind == psAmp {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return nil, 0
	}
	if !call && (toks[0].expr || toks[0].quote || toks[0].block) {
		// An expression statement: its value flows down the pipe, or
		// into a file ('x' > out.txt).
		var t Taint
		var redirs []Redirect
		for k, tk := range toks {
			t |= tk.w.Taint
			if tk.kind == psRedir && k+1 < len(toks) && toks[k+1].kind == psWord {
				redirs = append(redirs, Redirect{Op: tk.op, Fd: -1, Target: toks[k+1].w})
			}
		}
		if len(redirs) > 0 {
			lx.p.emit(&Command{Dialect: PowerShell, Dir: lx.sc.dir, DirKnown: lx.sc.dirKnown, Redirs: redirs}, lx.fr)
		}
		return nil, t
	}
	cmd := &Command{Dialect: PowerShell, Dir: lx.sc.dir, DirKnown: lx.sc.dirKnown}
	for k := 0; k < len(toks); k++ {
		tk := toks[k]
		switch tk.kind {
		case psRedir:
			if k+1 < len(toks) && toks[k+1].kind == psWord {
				cmd.Redirs = append(cmd.Redirs, Redirect{Op: tk.op, Fd: -1, Target: toks[k+1].w})
				k++
			}
		case psWord:
			cmd.Args = append(cmd.Args, tk.w)
		}
	}
	if len(cmd.Args) > 0 && !cmd.Args[0].Dynamic {
		if target, ok := lx.aliases[strings.ToLower(cmd.Args[0].Value)]; ok {
			cmd.Args[0] = Static(target)
		}
	}
	if len(cmd.Args) == 0 {
		if len(cmd.Redirs) > 0 {
			lx.p.emit(cmd, lx.fr)
		}
		return nil, 0
	}
	if in != nil {
		cmd.Stdin = *in
	}
	lx.p.finish(cmd, lx.sc, lx.fr)
	lx.special(cmd)
	lx.changeDir(cmd)
	return cmd, 0
}

// changeDir tracks Set-Location and Push-Location (cd, sl, chdir,
// pushd): relative paths in later commands are resolved against the new
// directory, and a directory known only at run time makes them unknown.
func (lx *psLexer) changeDir(cmd *Command) {
	if len(cmd.Args) == 0 || cmd.Args[0].Dynamic {
		return
	}
	switch PSCmdlet(cmd.Args[0].Value) {
	case "set-location", "push-location", "sl", "chdir", "cd", "pushd":
	case "pop-location", "popd":
		if k := len(lx.stack); k > 0 {
			lx.sc.dir, lx.sc.dirKnown = lx.stack[k-1].dir, lx.stack[k-1].known
			lx.stack = lx.stack[:k-1]
		} else {
			lx.sc.dirKnown = false
		}
		return
	default:
		return
	}
	if n := PSCmdlet(cmd.Args[0].Value); n == "push-location" || n == "pushd" {
		lx.stack = append(lx.stack, cmdDir{lx.sc.dir, lx.sc.dirKnown})
	}
	var target *Word
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		v := strings.ToLower(a.Value)
		if !a.Dynamic && strings.HasPrefix(v, "-") && len(v) > 1 {
			key, val, hasVal := strings.Cut(v[1:], ":")
			if key == "path" || key == "literalpath" || key == "lp" || key == "pspath" {
				if hasVal {
					w := Static(a.Value[len(a.Value)-len(val):])
					target = &w
				} else if i+1 < len(args) {
					target = &args[i+1]
				}
				break
			}
			if !oneOfFold(v, "-passthru", "-verbose", "-debug") && !hasVal && i+1 < len(args) {
				i++ // -StackName x
			}
			continue
		}
		target = &args[i]
		break
	}
	switch {
	case target == nil:
		// Without a path, PowerShell 7 goes to the home directory and
		// Windows PowerShell stays: unknown either way.
		lx.sc.dirKnown = false
	case target.Dynamic || target.Value == "-" || target.Value == "+":
		lx.sc.dirKnown = false
	default:
		t := strings.ReplaceAll(target.Value, `\`, "/")
		switch {
		case t == "~" || strings.HasPrefix(t, "~/"):
			if lx.p.opts.Home == "" {
				lx.sc.dirKnown = false
				return
			}
			lx.sc.dir, lx.sc.dirKnown = path.Join(lx.p.opts.Home, t[1:]), true
		case len(t) >= 3 && t[1] == ':' && t[2] == '/':
			lx.sc.dir, lx.sc.dirKnown = path.Clean(t), true
		case strings.HasPrefix(t, "/") && lx.sc.dirKnown && len(lx.sc.dir) >= 2 && lx.sc.dir[1] == ':':
			// \Users\me: the root of the current directory's drive.
			lx.sc.dir = path.Clean(lx.sc.dir[:2] + t)
		case strings.HasPrefix(t, "/"):
			lx.sc.dir, lx.sc.dirKnown = path.Clean(t), true
		case strings.Contains(t, ":"):
			// A provider path (HKCU:, Env:) or a drive-relative one.
			lx.sc.dirKnown = false
		case lx.sc.dirKnown:
			lx.sc.dir = path.Join(lx.sc.dir, t)
		}
	}
}

// special follows PowerShell commands that run code: Invoke-Expression of
// a literal, Start-Process, Invoke-Command -ScriptBlock (blocks are parsed
// where they are written).
func (lx *psLexer) special(cmd *Command) {
	if len(cmd.Args) == 0 || cmd.Args[0].Dynamic {
		return
	}
	switch PSCmdlet(cmd.Args[0].Value) {
	case "set-alias", "new-alias", "sal", "nal":
		var pos []Word
		name, value := Word{}, Word{}
		args := cmd.Args
		for i := 1; i < len(args); i++ {
			v := strings.ToLower(args[i].Value)
			switch {
			case strings.HasPrefix(v, "-n") && i+1 < len(args) && strings.HasPrefix("-name", v):
				name = args[i+1]
				i++
			case strings.HasPrefix(v, "-v") && i+1 < len(args) && strings.HasPrefix("-value", v):
				value = args[i+1]
				i++
			case strings.HasPrefix(v, "-"):
				if oneOfFold(v, "-scope", "-description", "-option") {
					i++
				}
			default:
				pos = append(pos, args[i])
			}
		}
		if name.Value == "" && len(pos) > 0 {
			name, pos = pos[0], pos[1:]
		}
		if value.Value == "" && len(pos) > 0 {
			value = pos[0]
		}
		if name.Value != "" && value.Value != "" && !name.Dynamic {
			if lx.aliases == nil {
				lx.aliases = map[string]string{}
			}
			v := value.Value
			if value.Dynamic {
				v = "$alias"
			}
			lx.aliases[strings.ToLower(name.Value)] = v
		}
	case "invoke-expression":
		for _, a := range cmd.Args[1:] {
			if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
				continue
			}
			cmd.Script = &ScriptRun{Kind: ScriptString, Taint: a.Taint}
			if a.Dynamic {
				cmd.Script.Why = "the expression is only known at run time"
				return
			}
			cmd.Script.Known = lx.p.psScript(a.Value, Eval, cmd, lx.sc, lx.fr)
			return
		}
	case "start-process":
		var file Word
		var argList []Word
		haveFile := false
		args := cmd.Args
		for i := 1; i < len(args); i++ {
			v := strings.ToLower(args[i].Value)
			switch {
			case strings.HasPrefix(v, "-") && len(v) > 1 && strings.HasPrefix("filepath", v[1:]):
				if i+1 < len(args) {
					file, haveFile = args[i+1], true
					i++
				}
			case strings.HasPrefix(v, "-") && len(v) > 1 && (strings.HasPrefix("argumentlist", v[1:]) || v == "-args"):
				if i+1 < len(args) {
					argList = append(argList, args[i+1])
					i++
				}
			case strings.HasPrefix(v, "-"):
				if oneOfFold(v, "-verb", "-workingdirectory", "-windowstyle", "-redirectstandardoutput", "-redirectstandarderror", "-redirectstandardinput", "-credential") {
					i++
				}
			case !haveFile:
				file, haveFile = args[i], true
			default:
				argList = append(argList, args[i])
			}
		}
		if !haveFile {
			return
		}
		words := []Word{file}
		for _, a := range argList {
			if a.Dynamic {
				words = append(words, a)
				continue
			}
			for _, s := range strings.Split(a.Value, ",") {
				for _, f := range splitWords(s) {
					words = append(words, Static(f))
				}
			}
		}
		child := &Command{Args: words, Dir: cmd.Dir, DirKnown: cmd.DirKnown, Parent: cmd}
		lx.p.finish(child, lx.sc.clone(), lx.fr.child(Wrapped, cmd, lx.fr.src))
	}
}

// dotNetFiles maps .NET file-system methods to the cmdlet that does the
// same, so that [IO.File]::WriteAllText('C:\x', …) is judged like
// Set-Content C:\x.
var dotNetFiles = map[string]string{
	"file::writealltext": "set-content", "file::writeallbytes": "set-content", "file::writealllines": "set-content",
	"file::appendalltext": "add-content", "file::appendalllines": "add-content", "file::create": "set-content",
	"file::openwrite": "set-content", "file::createtext": "set-content", "file::appendtext": "add-content",
	"file::setattributes": "set-content", "file::delete": "remove-item", "file::copy": "copy-item",
	"file::move": "move-item", "file::replace": "move-item", "file::readalltext": "get-content",
	"file::readallbytes": "get-content", "file::readalllines": "get-content", "file::readlines": "get-content",
	"file::openread": "get-content", "file::opentext": "get-content", "directory::delete": "remove-item",
	"directory::createdirectory": "new-item", "directory::move": "move-item",
}

func (lx *psLexer) dotNetFile(text string, taint Taint) {
	l := strings.ToLower(text)
	if lx.dotNetCode(text, l, taint) {
		return
	}
	k := strings.Index(l, "]::")
	if k < 0 || !(strings.HasSuffix(l[:k], "io.file") || strings.HasSuffix(l[:k], "io.directory")) {
		return
	}
	typ := l[strings.LastIndexByte(l[:k], '.')+1 : k]
	rest := text[k+3:]
	open := strings.IndexByte(rest, '(')
	if open < 0 {
		return
	}
	cmdlet, ok := dotNetFiles[typ+"::"+strings.ToLower(strings.TrimSpace(rest[:open]))]
	if !ok {
		return
	}
	args := []Word{Static(cmdlet)}
	body := rest[open+1:]
	if e := strings.LastIndexByte(body, ')'); e >= 0 {
		body = body[:e]
	}
	for i, a := range splitTopLevel(body, ',') {
		if i == 2 || (i == 1 && cmdlet != "copy-item" && cmdlet != "move-item") {
			if i == 1 && cmdlet == "remove-item" && strings.EqualFold(strings.TrimSpace(a), "$true") {
				args = append(args, Static("-Recurse"))
			}
			break
		}
		a = strings.TrimSpace(a)
		if v, ok := lx.psValue(a); ok {
			args = append(args, lx.p.winPathWord(Static(v)))
		} else {
			args = append(args, Word{Value: a, Dynamic: true})
		}
	}
	if len(args) < 2 {
		return
	}
	cmd := &Command{Dialect: PowerShell, Args: args, Dir: lx.sc.dir, DirKnown: lx.sc.dirKnown}
	lx.p.finish(cmd, lx.sc, lx.fr)
}

// splitTopLevel splits s at sep outside brackets and quotes.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// dotNetCode follows [ScriptBlock]::Create(CODE) (PowerShell code, parsed
// when it is a literal, judged as fetched when it comes from the network)
// and [Diagnostics.Process]::Start(FILE, ARGS) (a program run).
func (lx *psLexer) dotNetCode(text, l string, taint Taint) bool {
	k := strings.Index(l, "]::")
	if k < 0 {
		return false
	}
	typ := l[:k]
	rest := text[k+3:]
	open := strings.IndexByte(rest, '(')
	if open < 0 {
		return false
	}
	method := strings.ToLower(strings.TrimSpace(rest[:open]))
	body := rest[open+1:]
	if e := strings.LastIndexByte(body, ')'); e >= 0 {
		body = body[:e]
	}
	if e := strings.Index(body, ")."); e >= 0 && strings.Count(body[:e], "(") == strings.Count(body[:e], ")") {
		body = body[:e]
	}
	args := splitTopLevel(body, ',')
	lit := func(a string) (Word, bool) {
		a = strings.TrimSpace(a)
		switch {
		case len(a) >= 2 && a[0] == '\'' && a[len(a)-1] == '\'':
			return Static(a[1 : len(a)-1]), true
		case len(a) >= 2 && a[0] == '"' && a[len(a)-1] == '"' && !strings.ContainsAny(a, "$`"):
			return Static(a[1 : len(a)-1]), true
		}
		return Word{Value: a, Dynamic: true, Taint: taint}, false
	}
	switch {
	case strings.HasSuffix(typ, "scriptblock") && method == "create" && len(args) > 0:
		w, ok := lit(args[0])
		parent := &Command{Dialect: PowerShell, Args: []Word{Static("[scriptblock]::Create")}, Dir: lx.sc.dir, DirKnown: lx.sc.dirKnown}
		parent.Script = &ScriptRun{Kind: ScriptString, Taint: w.Taint}
		lx.p.emit(parent, lx.fr)
		if ok {
			parent.Script.Known = lx.p.psScript(w.Value, Eval, parent, lx.sc, lx.fr)
		} else {
			parent.Script.Why = "the script block's text is only known at run time"
		}
		return true
	case strings.HasSuffix(typ, "diagnostics.process") && method == "start" && len(args) > 0:
		file, _ := lit(args[0])
		words := []Word{file}
		if len(args) > 1 {
			if a, ok := lit(args[1]); ok {
				for _, f := range splitWords(a.Value) {
					words = append(words, Static(f))
				}
			} else {
				words = append(words, a)
			}
		}
		child := &Command{Args: words, Dir: lx.sc.dir, DirKnown: lx.sc.dirKnown}
		lx.p.finish(child, lx.sc.clone(), lx.fr.child(Wrapped, nil, lx.fr.src))
		return true
	}
	return false
}
