package shell

import (
	"strings"
	"unicode/utf8"
)

func isAssignWord(w Word) (string, string, bool) {
	if w.Dynamic {
		return "", "", false
	}
	i := strings.IndexByte(w.Value, '=')
	if i <= 0 {
		return "", "", false
	}
	return w.Value[:i], w.Value[i+1:], true
}

// SplitWords splits a string into words the way env -S does: blanks
// separate words, single and double quotes and backslashes quote.
func SplitWords(s string) []string { return splitWords(s) }

// splitWords splits a string into words with simple shell-like quoting
// (single quotes, double quotes, backslash), as env -S and similar tools do.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
			} else {
				cur.WriteString(s[i+1 : i+1+j])
				i += j + 1
			}
		case c == '"':
			in = true
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
				i++
			}
		case c == '\\' && i+1 < len(s):
			in = true
			i++
			cur.WriteByte(s[i])
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// builtinWrappers are the shell's own builtins that run the command
// after them.
var builtinWrappers = map[string]*Tool{
	"command": {Wraps: true, Args: &ArgSpec{Stop: "vV"}},
	"builtin": {Wraps: true},
	"exec":    {Wraps: true, Args: &ArgSpec{Short: "a"}},
}

// unwrap peels wrappers off cmd: the shell's builtins and the programs
// the catalog says run the command that follows their options.
func (p *parser) unwrap(cmd *Command, sc *scope) {
	for n := 0; len(cmd.Args) > 0; n++ {
		if n == 32 {
			p.issue(TooComplex, Top, "more than 32 wrapper commands around one command")
			return
		}
		p.foldName(cmd)
		a0 := cmd.Args[0]
		if a0.Dynamic {
			return
		}
		name := CommandName(a0.Value)
		var t *Tool
		if t = builtinWrappers[name]; t == nil {
			t = p.tool(name)
		}
		i, ok := -1, false
		switch {
		case t == nil:
		case t.Unwrap != nil:
			i, ok = t.Unwrap(cmd)
		case t.Wraps:
			i = t.Args.Skip(cmd.Args)
			ok = i > 0
		}
		if !ok || i <= 0 || i >= len(cmd.Args) {
			return
		}
		cmd.Wrappers = append(cmd.Wrappers, Wrapper{Name: name, Args: append([]Word(nil), cmd.Args[1:i]...)})
		if t.Assigns {
			// sudo and doas accept VAR=value before the command.
			for i < len(cmd.Args) {
				nm, _, ok := isAssignWord(cmd.Args[i])
				if !ok || !validName(nm) {
					break
				}
				cmd.Assigns = append(cmd.Assigns, Assign{Name: nm, Value: Word{Value: cmd.Args[i].Value[len(nm)+1:]}.fix()})
				i++
			}
			if i >= len(cmd.Args) {
				cmd.Args = nil
				return
			}
		}
		cmd.Args = cmd.Args[i:]
	}
}

// isShell reports whether name is a POSIX-like shell whose -c and script
// arguments we parse.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "lksh", "oksh", "ksh93", "pdksh", "fish", "csh", "tcsh", "bosh", "hush", "elvish", "nu", "xonsh", "oil", "osh", "ysh":
		return true
	}
	return false
}

// IsShell reports whether a command name is a shell.
func IsShell(name string) bool { return isShell(name) }

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}
