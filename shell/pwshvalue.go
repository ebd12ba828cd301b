package shell

import (
	"strings"
)

// psValue folds a small PowerShell expression whose value is a path the
// script can only mean one way: literals, variables ($env:X, $HOME, the
// script's own), "…" strings, a + b, ( … ), $( … ),
// [Environment]::GetFolderPath(…), [Environment]::GetEnvironmentVariable(…),
// [IO.Path]::Combine(…), Join-Path, (Get-PSReadLineOption).HistorySavePath.
// ok is false when the value is only known at run time.
func (lx *psLexer) psValue(expr string) (string, bool) {
	return lx.psValueDepth(expr, lx.valDepth)
}

func (lx *psLexer) psValueDepth(expr string, depth int) (string, bool) {
	e := strings.TrimSpace(expr)
	if e == "" || depth > 8 {
		return "", false
	}
	if parts := splitTopLevel(e, '+'); len(parts) > 1 {
		var sb strings.Builder
		for _, part := range parts {
			v, ok := lx.psValueDepth(part, depth+1)
			if !ok {
				return "", false
			}
			sb.WriteString(v)
		}
		return sb.String(), true
	}
	l := strings.ToLower(e)
	switch {
	case strings.HasPrefix(e, "$(") && strings.HasSuffix(e, ")") && closes(e[1:]):
		return lx.psValueDepth(e[2:len(e)-1], depth+1)
	case e[0] == '(' && closes(e):
		return lx.psValueDepth(e[1:len(e)-1], depth+1)
	case strings.HasPrefix(strings.ReplaceAll(l, " ", ""), "(get-psreadlineoption).historysavepath"):
		if home := lx.p.opts.Home; home != "" {
			return home + `\AppData\Roaming\Microsoft\Windows\PowerShell\PSReadLine\ConsoleHost_history.txt`, true
		}
		return "", false
	case e[0] == '[':
		return lx.psStatic(e, depth)
	case strings.HasPrefix(l, "join-path ") || strings.HasPrefix(l, "join-path\t"):
		return lx.psJoinPath(e[len("join-path"):], depth)
	}
	// A single word: a quoted string, a variable, a bare literal.
	sub := &psLexer{p: lx.p, src: e, sc: lx.sc, fr: lx.fr, cmd: lx.cmd, vars: lx.vars, aliases: lx.aliases, valDepth: depth + 1}
	t, good := sub.word()
	if !good || sub.i != len(e) || t.w.Dynamic || t.block {
		return "", false
	}
	return t.w.Value, true
}

// closes reports whether the ( at s[0] is closed by the last byte of s.
func closes(s string) bool {
	return len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' && len(psGroups(s)) == 1 && len(psGroups(s)[0]) == len(s)-2
}

// psStatic folds the static .NET members that name the user's places.
func (lx *psLexer) psStatic(e string, depth int) (string, bool) {
	l := strings.ToLower(e)
	k := strings.Index(l, "]::")
	if k < 0 {
		return "", false
	}
	typ := strings.TrimPrefix(strings.TrimPrefix(l[1:k], "system."), "io.")
	rest := e[k+3:]
	open := strings.IndexByte(rest, '(')
	if open < 0 || !strings.HasSuffix(rest, ")") {
		return "", false
	}
	method := strings.ToLower(strings.TrimSpace(rest[:open]))
	var args []string
	if body := strings.TrimSpace(rest[open+1 : len(rest)-1]); body != "" {
		args = splitTopLevel(body, ',')
	}
	home := lx.p.opts.Home
	switch {
	case typ == "environment" && method == "getfolderpath" && len(args) >= 1:
		// The folder's name, or [Environment+SpecialFolder]::Name.
		a := strings.ToLower(strings.Trim(strings.TrimSpace(args[0]), `'"`))
		if i := strings.LastIndex(a, "::"); i >= 0 {
			a = a[i+2:]
		}
		if home == "" {
			return "", false
		}
		switch a {
		case "userprofile":
			return home, true
		case "applicationdata":
			return home + `\AppData\Roaming`, true
		case "localapplicationdata":
			return home + `\AppData\Local`, true
		case "mydocuments", "personal":
			return home + `\Documents`, true
		case "desktop", "desktopdirectory":
			return home + `\Desktop`, true
		}
	case typ == "environment" && method == "getenvironmentvariable" && len(args) >= 1:
		if name, ok := lx.psValueDepth(args[0], depth+1); ok {
			return lx.p.winVar(name)
		}
	case typ == "path" && method == "combine" && len(args) >= 1:
		var parts []string
		for _, a := range args {
			v, ok := lx.psValueDepth(a, depth+1)
			if !ok {
				return "", false
			}
			if isRootedWin(v) {
				parts = parts[:0] // Combine starts again at a rooted part
			}
			parts = append(parts, strings.TrimRight(v, `\/`))
		}
		return strings.Join(parts, `\`), true
	}
	return "", false
}

// psJoinPath folds Join-Path A B (or -Path A -ChildPath B).
func (lx *psLexer) psJoinPath(args string, depth int) (string, bool) {
	sub := &psLexer{p: lx.p, src: args, sc: lx.sc, fr: lx.fr, cmd: lx.cmd, vars: lx.vars, aliases: lx.aliases, valDepth: depth + 1}
	var parent, child string
	var pos []string
	for sub.i < len(args) {
		if c := args[sub.i]; c == ' ' || c == '\t' {
			sub.i++
			continue
		}
		t, good := sub.word()
		if !good || t.w.Dynamic {
			return "", false
		}
		v := t.w.Value
		switch lv := strings.ToLower(v); {
		case lv == "-path" || lv == "-childpath":
			for sub.i < len(args) && (args[sub.i] == ' ' || args[sub.i] == '\t') {
				sub.i++
			}
			t, good := sub.word()
			if !good || t.w.Dynamic {
				return "", false
			}
			if lv == "-path" {
				parent = t.w.Value
			} else {
				child = t.w.Value
			}
		case strings.HasPrefix(lv, "-"):
			return "", false
		default:
			pos = append(pos, v)
		}
	}
	if parent == "" && len(pos) > 0 {
		parent, pos = pos[0], pos[1:]
	}
	if child == "" && len(pos) > 0 {
		child, pos = pos[0], pos[1:]
	}
	if parent == "" || child == "" || len(pos) > 0 {
		return "", false
	}
	return strings.TrimRight(parent, `\/`) + `\` + strings.TrimLeft(child, `\/`), true
}

func isRootedWin(v string) bool {
	return strings.HasPrefix(v, `\`) || strings.HasPrefix(v, "/") || len(v) >= 2 && v[1] == ':'
}

// literalConcat reports whether an expression only joins string literals
// ('s'+'udo'): text built that way to hide a command stays a run-time
// value, as it was written (iex ('Remove-'+'Item …') is eval).
func literalConcat(expr string) bool {
	e := strings.TrimSpace(expr)
	for {
		switch {
		case strings.HasPrefix(e, "$(") && closes(e[1:]):
			e = strings.TrimSpace(e[2 : len(e)-1])
			continue
		case strings.HasPrefix(e, "(") && closes(e):
			e = strings.TrimSpace(e[1 : len(e)-1])
			continue
		}
		break
	}
	parts := splitTopLevel(e, '+')
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" || p[0] != '\'' && (p[0] != '"' || strings.ContainsAny(p, "$`")) {
			return false
		}
	}
	return true
}
