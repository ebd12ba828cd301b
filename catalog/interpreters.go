package catalog

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Interpreters: inline code may write any file it names (what a later
// command reads from there is not what is on disk now); python -m venv
// and virtualenv create a virtual environment. What their code does is
// judged by package risk's scanner.

var inlineCode = &Tool{Tool: shell.Tool{Writes: inlineWrites}}
var python = &Tool{Tool: shell.Tool{Writes: pythonWrites}}

var interpreterTools = map[string]*Tool{
	"python": python, "python3": python, "python2": python, "pypy3": python, "pypy": python,
	"node": inlineCode, "nodejs": inlineCode, "deno": inlineCode, "php": inlineCode,
	"bun": {Tool: shell.Tool{Writes: inlineWrites, Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"x": npxArgs})}},
	"lua": inlineCode, "luajit": inlineCode, "Rscript": inlineCode, "R": inlineCode, "awk": inlineCode,
	"gawk": inlineCode, "mawk": inlineCode, "nawk": inlineCode, "osascript": inlineCode,
	"perl":       {Tool: shell.Tool{Writes: inPlaceWrites}},
	"ruby":       {Tool: shell.Tool{Writes: inPlaceWrites}},
	"virtualenv": {Tool: shell.Tool{Writes: func(c *shell.Command) shell.Writes { return shell.Writes{Venv: venvDir(c.Args[1:], "")} }}},
}

// inlineWrites: the quoted names in inline code may be files it writes.
func inlineWrites(c *shell.Command) shell.Writes {
	var w shell.Writes
	for _, a := range c.Args[1:] {
		if a.Dynamic || !strings.ContainsAny(a.Value, "\"'") {
			continue
		}
		for _, lit := range quotedLiterals(a.Value) {
			w.Maybe = append(w.Maybe, shell.Static(lit))
		}
	}
	return w
}

// pythonWrites: inline code, and python -m venv DIR.
func pythonWrites(c *shell.Command) shell.Writes {
	w := inlineWrites(c)
	args := c.Args
	if len(args) > 3 && args[1].Value == "-m" && (args[2].Value == "venv" || args[2].Value == "virtualenv") {
		w.Venv = venvDir(args[3:], "")
	}
	return w
}

var perlArgs = &shell.ArgSpec{Short: "eEIMm"}

// inPlaceWrites: perl -i / ruby -i change the files they are given; the
// quoted names in their code may be written too.
func inPlaceWrites(c *shell.Command) shell.Writes {
	var w shell.Writes
	for _, a := range c.Args[1:] {
		if !a.Dynamic {
			for _, lit := range quotedLiterals(a.Value) {
				w.Maybe = append(w.Maybe, shell.Static(lit))
			}
		}
	}
	if !InPlace(c.Args) {
		return w
	}
	ops := perlArgs.Operands(c.Args)
	if _, ok := perlArgs.Value(c.Args, "e", ""); !ok && len(ops) > 0 {
		ops = ops[1:]
	}
	w.Files = ops
	return w
}

// InPlace reports whether sed, perl or ruby edit their files in place
// (-i, -i.bak, -pi, --in-place).
func InPlace(args []shell.Word) bool {
	for _, a := range args[1:] {
		v := a.Value
		if v == "--" {
			return false
		}
		if strings.HasPrefix(v, "--in-place") {
			return true
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.Contains(v, "i") {
			// -i, -i.bak, -pi, -Ei; -e'…' scripts do not count.
			if k := strings.IndexAny(v[1:], "ef"); k >= 0 && k < strings.Index(v[1:], "i") {
				continue
			}
			return true
		}
	}
	return false
}

// venvDir is the directory a virtual environment is created in, from the
// arguments after the command (def when none is named; "" when unknown).
func venvDir(rest []shell.Word, def string) string {
	dir := def
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a.Dynamic {
			return ""
		}
		if slices.Contains([]string{"--prompt", "-p", "--python", "--extra-search-dir", "--activators", "--index-url", "--link-mode"}, a.Value) {
			i++
			continue
		}
		if !strings.HasPrefix(a.Value, "-") {
			dir = a.Value
		}
	}
	return dir
}

// quotedLiterals returns the quoted strings in code that could name a
// file (no blanks, at most a few hundred bytes).
func quotedLiterals(code string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < 64; i++ {
		q := code[i]
		if q != '"' && q != '\'' {
			continue
		}
		j := strings.IndexByte(code[i+1:], q)
		if j < 0 {
			break
		}
		lit := code[i+1 : i+1+j]
		i += j + 1
		if lit != "" && len(lit) < 512 && !strings.ContainsAny(lit, " \t\n\\$%{}") {
			out = append(out, lit)
		}
	}
	return out
}
