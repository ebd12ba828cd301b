package shell

import (
	"path"
	"strings"
)

// cmdScript parses and walks a cmd.exe command line: statements joined by
// & && || and newlines, pipelines, ( ) groups, redirections, %VAR%
// expansion (also of variables the script sets), ^ escapes, and the
// commands run by if, for … do, start and call.
func (p *parser) cmdScript(src string, o Origin, parent *Command, sc *scope, fr *frame) bool {
	if !p.enterNested(src, o, fr, "cmd code") {
		return false
	}
	cf := fr.child(o, parent, src)
	cs := &cmdState{vars: map[string]cmdVar{}}
	ok := true
	// Statement by statement: cmd expands %VAR% before it splits a line
	// (a value holding & runs a second command), and a variable set
	// earlier is seen by later statements. cmd /c expands a whole line at
	// once, but call, delayed expansion (!X!) and batch lines see the new
	// value: it is always taken, so that set X=…\.ssh & call type %X%\id_rsa
	// is the credential it names.
	for _, raw := range cmdSplit(src) {
		toks, good := cmdTokens(p.cmdExpand(raw, cs))
		ok = ok && good
		var stmt []cmdTok
		for i := 0; i <= len(toks); i++ {
			if i == len(toks) || toks[i].sep {
				if len(stmt) > 0 {
					p.cmdSet(stmt, cs)
				}
				p.cmdPipeline(stmt, sc, cs, cf)
				stmt = nil
				continue
			}
			stmt = append(stmt, toks[i])
		}
	}
	if !ok {
		p.issue(ParseError, o, "cmd: unterminated quote")
	}
	return ok
}

type cmdTok struct {
	w     Word
	sep   bool // & && || newline ( )
	pipe  bool
	redir string
}

// cmdState is what a cmd.exe script keeps between statements: the
// variables it sets and pushd's directory stack.
type cmdState struct {
	vars  map[string]cmdVar // by lower-case name
	stack []cmdDir
}

type cmdVar struct {
	value string
	known bool // false: only known at run time (set /p, set /a, a dynamic value)
	unset bool
}

type cmdDir struct {
	dir   string
	known bool
}

// cmdSplit cuts a cmd.exe script at the & && || and newlines outside
// quotes (a ^ escapes the next character).
func cmdSplit(src string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '^':
			i++
		case c == '&' || c == '\n' || c == '|' && i+1 < len(src) && src[i+1] == '|':
			out = append(out, src[start:i])
			if c != '\n' && i+1 < len(src) && src[i+1] == c {
				i++
			}
			start = i + 1
			quoted = false
		}
	}
	return append(out, src[start:])
}

// cmdExpand folds %VAR% references (and !VAR! of the variables the script
// set or the ones winVar knows); unknown ones stay as written (and make
// their word dynamic in cmdTokens).
func (p *parser) cmdExpand(src string, cs *cmdState) string {
	if !strings.ContainsAny(src, "%!") {
		return src
	}
	var sb strings.Builder
	for i := 0; i < len(src); i++ {
		if c := src[i]; c == '%' || c == '!' {
			end := strings.IndexByte(src[i+1:], c)
			if end > 0 {
				name := src[i+1 : i+1+end]
				if v, ok := p.cmdVarValue(name, cs); ok {
					sb.WriteString(v)
					i += end + 1
					continue
				}
			}
		}
		sb.WriteByte(src[i])
	}
	return sb.String()
}

// cmdVarValue is a variable's value: the script's own set, else what
// winVar knows.
func (p *parser) cmdVarValue(name string, cs *cmdState) (string, bool) {
	if v, ok := cs.vars[strings.ToLower(name)]; ok {
		return v.value, v.known && !v.unset
	}
	return p.winVar(name)
}

// cmdSet records the variable a set statement assigns: set NAME=VALUE,
// set "NAME=VALUE"; set /a and set /p make it dynamic.
func (p *parser) cmdSet(stmt []cmdTok, cs *cmdState) {
	var words []Word
	for _, t := range stmt {
		if t.redir != "" {
			break
		}
		words = append(words, t.w)
	}
	// Skip cmd's own prefixes (@, if …) as cmdCommand does: only a plain
	// set statement is read; one behind if counts too (it may run).
	i := 0
	for i < len(words) && (words[i].Value == "@" || words[i].Value == "") {
		i++
	}
	if i >= len(words) || !strings.EqualFold(strings.TrimLeft(words[i].Value, "@"), "set") || i+1 >= len(words) {
		return
	}
	rest := words[i+1:]
	if first := strings.ToLower(rest[0].Value); first == "/a" || first == "/p" {
		for _, w := range rest[1:] {
			for _, part := range strings.Split(w.Value, ",") {
				if name, _, ok := strings.Cut(strings.Trim(part, `"`), "="); ok {
					name = strings.TrimRight(strings.TrimSpace(name), "+-*/%&|^<>")
					if name != "" {
						cs.vars[strings.ToLower(name)] = cmdVar{}
					}
				}
			}
		}
		return
	}
	var parts []string
	dyn := false
	for _, w := range rest {
		parts = append(parts, w.Value)
		dyn = dyn || w.Dynamic
	}
	text := strings.Join(parts, " ")
	name, value, ok := strings.Cut(text, "=")
	if !ok || name == "" {
		return
	}
	value = strings.TrimRight(value, " \t")
	if value == "" {
		cs.vars[strings.ToLower(name)] = cmdVar{unset: true}
		return
	}
	cs.vars[strings.ToLower(name)] = cmdVar{value: value, known: !dyn}
}

func cmdTokens(src string) ([]cmdTok, bool) {
	var toks []cmdTok
	var sb strings.Builder
	in, dyn, quoted := false, false, false
	flush := func() {
		if in {
			v := sb.String()
			w := Word{Value: v, Prefix: v}
			if dyn {
				w = Word{Value: v, Dynamic: true}
			}
			toks = append(toks, cmdTok{w: w})
		}
		sb.Reset()
		in, dyn = false, false
	}
	ok := true
	for i := 0; i < len(src); i++ {
		c := src[i]
		if quoted {
			if c == '"' {
				quoted = false
				continue
			}
			if c == '%' || c == '!' {
				dyn = dyn || strings.IndexByte(src[i+1:], c) > 0
			}
			sb.WriteByte(c)
			continue
		}
		switch c {
		case '"':
			quoted, in = true, true
		case '^':
			if i+1 < len(src) {
				i++
				if src[i] != '\n' {
					sb.WriteByte(src[i])
					in = true
				}
			}
		case ' ', '\t', '\r', ',', '=':
			if c == '=' && in {
				sb.WriteByte(c)
				continue
			}
			flush()
		case '\n', '(', ')':
			flush()
			toks = append(toks, cmdTok{sep: true})
		case '&':
			flush()
			if i+1 < len(src) && src[i+1] == '&' {
				i++
			}
			toks = append(toks, cmdTok{sep: true})
		case '|':
			flush()
			if i+1 < len(src) && src[i+1] == '|' {
				i++
				toks = append(toks, cmdTok{sep: true})
				continue
			}
			toks = append(toks, cmdTok{pipe: true})
		case '>', '<':
			fd := ""
			if in && (sb.String() == "1" || sb.String() == "2") {
				fd = sb.String()
				sb.Reset()
				in = false
			}
			flush()
			op := string(c)
			if c == '>' && i+1 < len(src) && src[i+1] == '>' {
				op = ">>"
				i++
			}
			if i+1 < len(src) && src[i+1] == '&' {
				// 2>&1
				i += 2
				continue
			}
			_ = fd
			toks = append(toks, cmdTok{redir: op})
		case '%', '!':
			if strings.IndexByte(src[i+1:], c) > 0 {
				dyn = true
			}
			sb.WriteByte(c)
			in = true
		default:
			sb.WriteByte(c)
			in = true
		}
	}
	if quoted {
		ok = false
	}
	flush()
	return toks, ok
}

func (p *parser) cmdPipeline(toks []cmdTok, sc *scope, cs *cmdState, fr *frame) {
	var upstream []*Command
	start := 0
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && !toks[i].pipe {
			continue
		}
		var in *Input
		if len(upstream) > 0 {
			in = &Input{Kind: InputPipe, Upstream: upstream}
			for _, c := range upstream {
				in.Taint |= p.commandTaint(c)
			}
		}
		if c := p.cmdCommand(toks[start:i], in, sc, cs, fr); c != nil {
			upstream = append(upstream, c)
		}
		start = i + 1
	}
}

// cmdCommand records one cmd.exe command, following the command that if,
// for … do, start and call run.
func (p *parser) cmdCommand(toks []cmdTok, in *Input, sc *scope, cs *cmdState, fr *frame) *Command {
	cmd := &Command{Dialect: Cmd, Dir: sc.dir, DirKnown: sc.dirKnown}
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if t.redir != "" {
			if k+1 < len(toks) && toks[k+1].redir == "" {
				cmd.Redirs = append(cmd.Redirs, Redirect{Op: t.redir, Fd: -1, Target: p.winPathWord(toks[k+1].w)})
				k++
			}
			continue
		}
		cmd.Args = append(cmd.Args, p.winPathWord(t.w))
	}
	if in != nil {
		cmd.Stdin = *in
	}
	// Peel cmd's own prefixes: @, if …, for … do, start, call.
	for len(cmd.Args) > 0 {
		a := cmd.Args[0]
		if a.Dynamic {
			break
		}
		v := strings.ToLower(strings.TrimLeft(a.Value, "@"))
		if v == "" {
			cmd.Args = cmd.Args[1:]
			continue
		}
		if v != strings.ToLower(a.Value) {
			// @cmd: the @ only turns echo off.
			cmd.Args[0] = Word{Value: strings.TrimLeft(a.Value, "@"), Prefix: strings.TrimLeft(a.Value, "@"), Taint: a.Taint}
		}
		if name, sw, ok := strings.Cut(v, "/"); ok && cmdInternal[name] {
			// rd/s/q x: cmd ends an internal command's name at a slash.
			words := []Word{Static(cmd.Args[0].Value[:len(name)])}
			for _, f := range strings.Split(sw, "/") {
				if f != "" {
					words = append(words, Static("/"+f))
				}
			}
			cmd.Args = append(words, cmd.Args[1:]...)
			v = name
		}
		switch v {
		case "do":
			// for … in (…) do CMD: the parentheses end the statement.
			cmd.Args = cmd.Args[1:]
			continue
		case "if":
			i := 1
			for i < len(cmd.Args) && oneOfFold(strings.ToLower(cmd.Args[i].Value), "/i", "not") {
				i++
			}
			if i < len(cmd.Args) && oneOfFold(strings.ToLower(cmd.Args[i].Value), "exist", "defined", "errorlevel") {
				i += 2
			} else if i+2 < len(cmd.Args) {
				i += 3 // a == b / a equ b
			}
			cmd.Wrappers = append(cmd.Wrappers, Wrapper{Name: "if", Args: cmd.Args[1:min(i, len(cmd.Args))]})
			cmd.Args = cmd.Args[min(i, len(cmd.Args)):]
			continue
		case "for":
			i := 1
			for i < len(cmd.Args) && !strings.EqualFold(cmd.Args[i].Value, "do") {
				i++
			}
			if i >= len(cmd.Args) {
				break
			}
			cmd.Wrappers = append(cmd.Wrappers, Wrapper{Name: "for", Args: cmd.Args[1:i]})
			cmd.Args = cmd.Args[i+1:]
			continue
		case "start":
			i := 1
			for i < len(cmd.Args) && (strings.HasPrefix(cmd.Args[i].Value, "/") || i == 1 && cmd.Args[i].Value == "") {
				if strings.EqualFold(cmd.Args[i].Value, "/d") {
					i++
				}
				i++
			}
			if i >= len(cmd.Args) {
				break
			}
			cmd.Wrappers = append(cmd.Wrappers, Wrapper{Name: "start", Args: cmd.Args[1:i]})
			cmd.Args = cmd.Args[i:]
			continue
		case "call":
			if len(cmd.Args) > 1 {
				cmd.Wrappers = append(cmd.Wrappers, Wrapper{Name: "call"})
				cmd.Args = cmd.Args[1:]
				continue
			}
		case "else":
			cmd.Args = cmd.Args[1:]
			continue
		}
		break
	}
	if len(cmd.Args) == 0 {
		if len(cmd.Redirs) > 0 {
			p.emit(cmd, fr)
			return cmd
		}
		return nil
	}
	p.cmdChdir(cmd, sc, cs)
	p.finish(cmd, sc, fr)
	return cmd
}

// cmdChdir follows cd, chdir, pushd and popd: absolute targets, ones
// relative to the directory or its drive's root, and the directory stack.
func (p *parser) cmdChdir(cmd *Command, sc *scope, cs *cmdState) {
	n := strings.ToLower(cmd.Args[0].Value)
	switch n {
	case "popd":
		if k := len(cs.stack); k > 0 {
			sc.dir, sc.dirKnown = cs.stack[k-1].dir, cs.stack[k-1].known
			cs.stack = cs.stack[:k-1]
		} else {
			sc.dirKnown = false
		}
		return
	case "cd", "chdir", "pushd":
	default:
		return
	}
	var parts []string
	dyn := false
	for _, a := range cmd.Args[1:] {
		if !a.Dynamic && strings.EqualFold(a.Value, "/d") {
			continue
		}
		parts = append(parts, a.Value)
		dyn = dyn || a.Dynamic
	}
	if len(parts) == 0 {
		return // cd alone prints the directory
	}
	if n == "pushd" {
		cs.stack = append(cs.stack, cmdDir{sc.dir, sc.dirKnown})
	}
	// cd takes the rest of the line as the path, spaces and all.
	t := strings.ReplaceAll(strings.Trim(strings.Join(parts, " "), `"`), `\`, "/")
	switch {
	case dyn || strings.HasPrefix(t, "//"):
		sc.dirKnown = false
	case len(t) >= 2 && t[1] == ':' && (len(t) == 2 || t[2] != '/'):
		// C: alone, or C:rel: the drive's own current directory.
		sc.dirKnown = false
	case len(t) >= 2 && t[1] == ':':
		sc.dir, sc.dirKnown = path.Clean(t), true
	case strings.HasPrefix(t, "/"):
		if sc.dirKnown && len(sc.dir) >= 2 && sc.dir[1] == ':' {
			sc.dir = path.Clean(sc.dir[:2] + t)
		} else {
			sc.dirKnown = false
		}
	case sc.dirKnown:
		sc.dir = path.Join(sc.dir, t)
	}
}

// cmdInternal are cmd.exe's built-in commands, whose names end at a
// slash (dir/w, rd/s/q).
var cmdInternal = map[string]bool{"rd": true, "rmdir": true, "del": true, "erase": true, "md": true, "mkdir": true,
	"copy": true, "move": true, "ren": true, "rename": true, "type": true, "dir": true, "cd": true, "chdir": true,
	"start": true, "call": true, "echo": true, "set": true, "pushd": true, "popd": true, "mklink": true, "cls": true,
	"vol": true, "ver": true, "path": true, "title": true, "color": true, "for": true, "if": true, "verify": true}
