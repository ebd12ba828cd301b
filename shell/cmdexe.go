package shell

import (
	"strings"
)

// cmdScript parses and walks a cmd.exe command line: statements joined by
// & && || and newlines, pipelines, ( ) groups, redirections, %VAR%
// expansion, ^ escapes, and the commands run by if, for … do, start and
// call.
func (p *parser) cmdScript(src string, o Origin, parent *Command, sc *scope, fr *frame) bool {
	if !p.enterNested(src, o, fr, "cmd code") {
		return false
	}
	cf := fr.child(o, parent, src)
	src = p.cmdExpand(src)
	toks, ok := cmdTokens(src)
	if !ok {
		p.issue(ParseError, o, "cmd: unterminated quote")
	}
	var stmt []cmdTok
	for i := 0; i <= len(toks); i++ {
		if i == len(toks) || toks[i].sep {
			p.cmdPipeline(stmt, sc, cf)
			stmt = nil
			continue
		}
		stmt = append(stmt, toks[i])
	}
	return ok
}

type cmdTok struct {
	w     Word
	sep   bool // & && || newline ( )
	pipe  bool
	redir string
}

// cmdExpand folds %VAR% references; unknown ones stay as written (and
// make their word dynamic in cmdTokens).
func (p *parser) cmdExpand(src string) string {
	if !strings.Contains(src, "%") {
		return src
	}
	var sb strings.Builder
	for i := 0; i < len(src); i++ {
		if src[i] == '%' {
			end := strings.IndexByte(src[i+1:], '%')
			if end > 0 {
				name := src[i+1 : i+1+end]
				if v, ok := p.winVar(name); ok {
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

func (p *parser) cmdPipeline(toks []cmdTok, sc *scope, fr *frame) {
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
		if c := p.cmdCommand(toks[start:i], in, sc, fr); c != nil {
			upstream = append(upstream, c)
		}
		start = i + 1
	}
}

// cmdCommand records one cmd.exe command, following the command that if,
// for … do, start and call run.
func (p *parser) cmdCommand(toks []cmdTok, in *Input, sc *scope, fr *frame) *Command {
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
	if n := strings.ToLower(cmd.Args[0].Value); (n == "cd" || n == "chdir" || n == "pushd") && len(cmd.Args) > 1 {
		target := cmd.Args[len(cmd.Args)-1]
		if target.Dynamic {
			sc.dirKnown = false
		} else if len(target.Value) >= 2 && target.Value[1] == ':' {
			sc.dir, sc.dirKnown = target.Value, true
		} else {
			sc.dirKnown = false
		}
	}
	p.finish(cmd, sc, fr)
	return cmd
}

// cmdInternal are cmd.exe's built-in commands, whose names end at a
// slash (dir/w, rd/s/q).
var cmdInternal = map[string]bool{"rd": true, "rmdir": true, "del": true, "erase": true, "md": true, "mkdir": true,
	"copy": true, "move": true, "ren": true, "rename": true, "type": true, "dir": true, "cd": true, "chdir": true,
	"start": true, "call": true, "echo": true, "set": true, "pushd": true, "popd": true, "mklink": true, "cls": true,
	"vol": true, "ver": true, "path": true, "title": true, "color": true, "for": true, "if": true, "verify": true}
