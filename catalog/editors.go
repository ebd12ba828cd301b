package catalog

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Editors and debuggers: the files an editor opens may be written; vim's
// -c/+CMD and gdb's -ex run ex and gdb commands, some of which run shell
// commands.

var editorArgs = &shell.ArgSpec{Short: "cST", Long: []string{"cmd"}}

var editor = &Tool{Tool: shell.Tool{Args: editorArgs, Writes: operandWrites}}
var vim = &Tool{Tool: shell.Tool{Args: editorArgs, Follow: vimRun, Writes: operandWrites}}

var editorTools = map[string]*Tool{
	"vi": vim, "vim": vim, "nvim": vim, "view": vim, "vimdiff": vim, "gvim": vim, "ex": vim, "rvim": vim, "nvi": vim, "elvis": vim,
	"nano": editor, "emacs": editor, "ed": editor, "pico": editor, "joe": editor, "micro": editor, "hx": editor,
	"kak": editor, "mcedit": editor, "gedit": editor, "code": editor, "subl": editor,
	"gdb":  {Tool: shell.Tool{Follow: gdbRun}},
	"lldb": {Tool: shell.Tool{Follow: followAfterArgs("--")}},
	"less": {Tool: shell.Tool{Follow: lessRun}},
	"man":  {Tool: shell.Tool{Args: &shell.ArgSpec{Short: "PCMLmSsep", Long: []string{"pager", "config-file", "manpath", "locale", "systems", "sections", "extension", "preprocessor"}}, Runs: []shell.CodeArg{{Short: "P", Long: "pager"}}}},
}

// vimRun follows the shell commands vim's -c, --cmd and +CMD arguments
// run (:!cmd, :r !cmd, :w !cmd, :terminal cmd); a call of system() runs
// a command built at run time.
func vimRun(f *shell.Follower) {
	cmd := f.Cmd()
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		var ex shell.Word
		switch {
		case (v == "-c" || v == "--cmd") && i+1 < len(args):
			ex = args[i+1]
			i++
		case strings.HasPrefix(v, "+") && len(v) > 1 && !args[i].Dynamic:
			ex = word(v[1:], false, args[i].Taint)
		case v == "--":
			return
		default:
			continue
		}
		if ex.Dynamic {
			f.Script(ex)
			continue
		}
		for _, sh := range exShellCommands(ex.Value) {
			w := word(sh, false, ex.Taint)
			if sh == "" {
				// system(), :python, :source, …: code built at run time
				// or read from elsewhere.
				w = shell.Word{Value: ex.Value, Dynamic: true, Taint: ex.Taint}
			}
			f.Script(w)
		}
	}
}

// exShellCommands returns the shell commands of a line of ex commands
// ("" for code that runs commands built at run time).
func exShellCommands(line string) []string {
	var out []string
	for line != "" {
		l := strings.TrimLeft(line, ": \t")
		l = strings.TrimLeft(l, "0123456789,.$%'<>;+- \t")
		word := l
		for k := 0; k < len(word); k++ {
			if c := word[k]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				word = word[:k]
				break
			}
		}
		rest := strings.TrimLeft(l[len(word):], " \t")
		switch {
		case strings.HasPrefix(l, "!"):
			return append(out, l[1:])
		case slices.Contains([]string{"r", "re", "rea", "read", "w", "wr", "wri", "writ", "write", "wa", "wq", "x", "xit", "sav", "saveas"}, word) && strings.HasPrefix(strings.TrimLeft(rest, "+=abcdefghijklmnopqrstuvwxyz"), "!"):
			r := strings.TrimLeft(rest, "+=abcdefghijklmnopqrstuvwxyz")
			return append(out, r[1:])
		case slices.Contains([]string{"ter", "term", "termi", "termin", "termina", "terminal"}, word):
			for strings.HasPrefix(rest, "++") {
				_, rest, _ = strings.Cut(rest, " ")
				rest = strings.TrimLeft(rest, " \t")
			}
			if rest != "" {
				return append(out, rest)
			}
			return out
		}
		cur, next, more := strings.Cut(l, "|")
		if strings.Contains(cur, "system(") || strings.Contains(cur, "systemlist(") || strings.Contains(cur, "jobstart(") || strings.Contains(cur, "term_start(") || slices.Contains([]string{"exe", "exec", "execute", "lua", "py", "py3", "python", "python3", "perl", "ruby", "luado", "pydo", "py3do", "perldo", "rubydo", "pyfile", "py3file", "luafile", "so", "sou", "sour", "sourc", "source"}, word) {
			out = append(out, "")
		}
		if !more {
			break
		}
		line = next
	}
	return out
}

// gdbRun follows gdb's -ex/-iex commands that run shell commands
// (shell CMD, !CMD).
func gdbRun(f *shell.Follower) {
	cmd := f.Cmd()
	followAfterArgs("--args")(f)
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		var ex shell.Word
		switch {
		case (v == "-ex" || v == "-iex" || v == "--ex" || v == "--iex" || v == "-eval-command" || v == "--eval-command" || v == "-init-eval-command" || v == "--init-eval-command") && i+1 < len(args):
			ex = args[i+1]
			i++
		case strings.HasPrefix(v, "--eval-command=") || strings.HasPrefix(v, "--init-eval-command=") || strings.HasPrefix(v, "-eval-command=") || strings.HasPrefix(v, "-init-eval-command="):
			_, val, _ := strings.Cut(v, "=")
			ex = word(val, args[i].Dynamic, args[i].Taint)
		default:
			continue
		}
		if ex.Dynamic {
			f.Script(ex)
			continue
		}
		l := strings.TrimSpace(ex.Value)
		switch {
		case strings.HasPrefix(l, "!"):
			f.Script(word(l[1:], false, ex.Taint))
		case strings.HasPrefix(l, "shell ") || strings.HasPrefix(l, "shell\t"):
			f.Script(word(l[6:], false, ex.Taint))
		case strings.HasPrefix(l, "pipe ") || strings.HasPrefix(l, "|"):
			if _, sh, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(l, "pipe"), "|"), "|"); ok {
				f.Script(word(sh, false, ex.Taint))
			}
		case strings.HasPrefix(l, "python") || strings.HasPrefix(l, "py ") || strings.HasPrefix(l, "guile") || strings.HasPrefix(l, "source"):
			f.Script(shell.Word{Value: l, Dynamic: true, Taint: ex.Taint})
		}
	}
}

// followAfterArgs: PROG … MARK CMD ARG… runs CMD (gdb --args, lldb --).
func followAfterArgs(mark string) func(f *shell.Follower) {
	return func(f *shell.Follower) {
		args := f.Cmd().Args
		for i, a := range args {
			if a.Value == mark && !a.Dynamic && i+1 < len(args) {
				f.Run(&shell.Command{Args: append([]shell.Word(nil), args[i+1:]...), Stdin: f.Cmd().Stdin}, shell.Wrapped)
				return
			}
		}
	}
}

// lessRun: less +CMD runs a less command at start; one that starts with
// ! (or is a shell escape after other commands) runs a shell command.
func lessRun(f *shell.Follower) {
	for _, a := range f.Cmd().Args[1:] {
		if a.Dynamic || !strings.HasPrefix(a.Value, "+") {
			continue
		}
		if _, cmd, ok := strings.Cut(a.Value, "!"); ok {
			f.Script(word(cmd, false, a.Taint))
		}
	}
}
