package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// lang is an interpreter language whose code the classifier scans.
type lang int

const (
	langNone lang = iota
	langPython
	langJS
	langPerl
	langRuby
	langPHP
	langLua
	langAwk
	langR
	langAppleScript
	// langOther is any other language whose inline code is only matched
	// for credential paths and, flattened, for dangerous commands.
	langOther
)

var langNames = [...]string{"", "python", "node", "perl", "ruby", "php", "lua", "awk", "R", "osascript", ""}

// otherCode are the options of other interpreters that take code on the
// command line, and whether the interpreter reads a program from
// standard input when given none.
var otherCode = map[string]struct {
	opts  []string
	stdin bool
}{
	"julia": {opts: []string{"-e", "--eval", "-E", "--print"}}, "elixir": {opts: []string{"-e", "--eval"}},
	"erl": {opts: []string{"-eval"}}, "guile": {opts: []string{"-c"}}, "racket": {opts: []string{"-e", "--eval"}},
	"groovy": {opts: []string{"-e"}}, "scala": {opts: []string{"-e"}}, "sbcl": {opts: []string{"--eval"}},
	"ghc": {opts: []string{"-e"}}, "runghc": {opts: []string{"-e"}}, "clojure": {opts: []string{"-e", "--eval"}},
	"tclsh": {stdin: true}, "wish": {stdin: true}, "expect": {opts: []string{"-c"}, stdin: true},
	"swift": {opts: []string{"-e"}}, "jshell": {stdin: true}, "emacs": {opts: []string{"--eval"}},
}

func interpreterLang(name string) lang {
	switch {
	case name == "python" || name == "pypy" || name == "pypy3" || strings.HasPrefix(name, "python2") || strings.HasPrefix(name, "python3"):
		return langPython
	case name == "node" || name == "nodejs" || name == "deno" || name == "bun":
		return langJS
	case name == "perl" || strings.HasPrefix(name, "perl5"):
		return langPerl
	case name == "ruby" || name == "irb":
		return langRuby
	case name == "php" || strings.HasPrefix(name, "php"):
		return langPHP
	case name == "lua" || name == "luajit" || strings.HasPrefix(name, "lua5"):
		return langLua
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		return langAwk
	case name == "Rscript" || name == "R":
		return langR
	case name == "osascript":
		return langAppleScript
	}
	if _, ok := otherCode[name]; ok {
		return langOther
	}
	return langNone
}

// codeSource is where an interpreter invocation takes its program from.
type codeSource struct {
	code      string
	known     bool
	fromStdin bool // the program is read from standard input
	inline    bool // the program is on the command line (-c, -e)
	dynamic   bool
	taint     shell.Taint
	file      *shell.Word // the script file, when the program is one
}

// programOf finds the code an interpreter command runs.
func programOf(c *shell.Command, l lang) (codeSource, bool) {
	args := c.Args
	var src codeSource
	add := func(w shell.Word) {
		src.inline = true
		src.taint |= w.Taint
		if w.Dynamic {
			src.dynamic = true
			return
		}
		if src.code != "" {
			src.code += "\n"
		}
		src.code += w.Value
		src.known = true
	}
	i := 1
	switch l {
	case langPython:
		for i < len(args) {
			v := args[i].Value
			switch {
			case args[i].Dynamic:
				return src, false
			case v == "-":
				src.fromStdin = true
				return src, true
			case slices.Contains([]string{"-V", "--version", "-h", "--help", "-VV"}, v):
				return src, false
			case v == "--check-hash-based-pycs":
				i += 2
			case strings.HasPrefix(v, "--"):
				i++
			case strings.HasPrefix(v, "-"):
				// A cluster of one-letter flags (-uc, -IBc); c, m, W and X
				// take the rest of the cluster or the next argument.
				k := strings.IndexAny(v[1:], "cmWX")
				if k < 0 {
					i++
					continue
				}
				opt, rest := v[1+k], v[2+k:]
				var val shell.Word
				next := i + 1
				if rest != "" {
					val = shell.Word{Value: rest, Prefix: rest, Taint: args[i].Taint}
				} else if i+1 < len(args) {
					val, next = args[i+1], i+2
				} else {
					return src, opt == 'c'
				}
				switch opt {
				case 'c':
					add(val)
					return src, true
				case 'm':
					return src, false
				}
				i = next
			default:
				src.file = &args[i]
				return src, true
			}
		}
		src.fromStdin = true
		return src, true
	case langJS:
		name := c.Name()
		if name == "deno" || name == "bun" {
			if len(args) > 2 && args[1].Value == "eval" {
				add(args[2])
				return src, true
			}
			if name == "deno" {
				return src, false
			}
		}
		for i < len(args) {
			v := args[i].Value
			switch {
			case args[i].Dynamic:
				return src, false
			case v == "-e" || v == "--eval" || v == "-p" || v == "--print" || jsCodeCluster(v):
				if i+1 < len(args) {
					add(args[i+1])
				}
				return src, true
			case strings.HasPrefix(v, "--eval=") || strings.HasPrefix(v, "--print="):
				_, val, _ := strings.Cut(v, "=")
				add(shell.Static(val))
				return src, true
			case v == "-r" || v == "--require" || v == "--import" || v == "--loader" || v == "--experimental-loader" || v == "-C" || v == "--conditions" || v == "--input-type":
				i += 2
			case v == "-":
				src.fromStdin = true
				return src, true
			case slices.Contains([]string{"-v", "--version", "-h", "--help"}, v):
				return src, false
			case strings.HasPrefix(v, "-"):
				i++
			default:
				src.file = &args[i]
				return src, true
			}
		}
		src.fromStdin = true
		return src, true
	case langPerl, langRuby, langLua, langR:
		for i < len(args) {
			a := args[i]
			v := a.Value
			switch {
			case a.Dynamic:
				return src, src.inline
			case v == "--":
				i++
				goto file
			case v == "-":
				src.fromStdin = true
				return src, true
			case len(v) > 1 && v[0] == '-' && v[1] != '-':
				if slices.Contains([]string{"-v", "-h", "-V"}, v) {
					return src, src.inline
				}
				i = clusterCode(args, i, l, add)
			case strings.HasPrefix(v, "--"):
				if v == "--version" || v == "--help" {
					return src, false
				}
				i++
			default:
				goto file
			}
		}
	file:
		if src.inline {
			return src, true
		}
		if i >= len(args) {
			src.fromStdin = true
			return src, true
		}
		src.file = &args[i]
		return src, true
	case langPHP:
		for i < len(args) {
			v := args[i].Value
			switch {
			case args[i].Dynamic:
				return src, false
			case v == "-r" || v == "-B" || v == "-R" || v == "-E":
				// -r code; -B, -R, -E code run before, for and after
				// each input line.
				if i+1 < len(args) {
					add(args[i+1])
				}
				i += 2
				if v == "-r" {
					return src, true
				}
			case v == "-d" || v == "-c" || v == "-z" || v == "-F":
				i += 2
			case slices.Contains([]string{"-v", "-h", "-m", "-i", "-l", "-S", "--version"}, v):
				return src, false
			case strings.HasPrefix(v, "-"):
				i++
			default:
				if src.inline {
					return src, true
				}
				src.file = &args[i]
				return src, true
			}
		}
		if src.inline {
			return src, true
		}
		src.fromStdin = true
		return src, true
	case langAwk:
		progFile := false
		for i < len(args) {
			v := args[i].Value
			switch {
			case args[i].Dynamic && !src.inline:
				src.dynamic = true
				return src, true
			case v == "-f" || v == "--file" || v == "-E" || v == "--exec":
				progFile = true
				if i+1 < len(args) && isStdinPath(c, args[i+1]) {
					src.fromStdin = true
				}
				i += 2
			case v == "-F" || v == "-v" || v == "--assign" || v == "--field-separator" || v == "-i" || v == "--include" || v == "-l" || v == "--load":
				i += 2
			case v == "-e" || v == "--source":
				if i+1 < len(args) {
					add(args[i+1])
				}
				i += 2
			case strings.HasPrefix(v, "--source="):
				add(shell.Word{Value: v[len("--source="):], Prefix: v[len("--source="):], Taint: args[i].Taint})
				i++
			case v == "--":
				i++
				if !progFile && !src.inline && i < len(args) {
					add(args[i])
				}
				return src, src.inline || src.fromStdin
			case strings.HasPrefix(v, "-") && len(v) > 1:
				i++
			default:
				if !progFile && !src.inline {
					add(args[i])
				}
				return src, src.inline || src.fromStdin
			}
		}
		return src, src.inline || src.fromStdin
	case langOther:
		spec := otherCode[c.Name()]
		for i < len(args) {
			v := args[i].Value
			if args[i].Dynamic {
				return src, src.inline
			}
			matched := false
			for _, o := range spec.opts {
				if v == o && i+1 < len(args) {
					add(args[i+1])
					i++
					matched = true
				} else if strings.HasPrefix(v, o+"=") && strings.HasPrefix(o, "--") {
					add(shell.Word{Value: v[len(o)+1:], Prefix: v[len(o)+1:], Taint: args[i].Taint})
					matched = true
				}
			}
			if !matched && !strings.HasPrefix(v, "-") && !src.inline {
				if !spec.stdin {
					return src, false
				}
				src.file = &args[i]
				return src, true
			}
			i++
		}
		if !src.inline && spec.stdin {
			src.fromStdin = true
		}
		return src, src.inline || src.fromStdin
	case langAppleScript:
		for i < len(args) {
			if args[i].Value == "-e" && i+1 < len(args) {
				add(args[i+1])
				i += 2
				continue
			}
			if strings.HasPrefix(args[i].Value, "-") {
				i++
				continue
			}
			return src, src.inline
		}
		if !src.inline {
			src.fromStdin = true
		}
		return src, true
	}
	return src, false
}

// interpreter judges interpreter invocations: where their program comes
// from and what it does.
func (j *judge) interpreter(c *shell.Command) {
	name := c.Name()
	l := interpreterLang(name)
	if l == langNone {
		return
	}
	src, ok := programOf(c, l)
	if !ok {
		return
	}
	if f := src.file; f != nil && isStdinPath(c, *f) {
		// python3 /dev/stdin <<< CODE: the program comes from stdin.
		src.file, src.fromStdin = nil, true
	}
	if f := src.file; f != nil {
		switch {
		case f.Taint&(shell.Network|shell.Decoded|shell.Downloaded) != 0:
			j.hit(c, rulePipeToShell, "%s runs a program %s", name, taintText(f.Taint))
		case f.Proc && f.ContentKnown:
			j.scanCode(c, l, f.Content)
		case f.Proc:
			j.hit(c, ruleUnreadableScript, "%s runs a program from a process substitution", name)
		}
		return
	}
	if src.fromStdin {
		in := c.Stdin
		src.taint |= in.Taint
		switch {
		case in.Taint&(shell.Network|shell.Decoded|shell.Downloaded) != 0:
			j.hitPipe(c, rulePipeToShell, "%s runs code %s", name, taintText(in.Taint))
			return
		case in.TextKnown:
			src.code, src.known = in.Text, true
		case in.Kind == shell.InputFile:
			if in.Path.Proc {
				if in.Path.ContentKnown {
					src.code, src.known = in.Path.Content, true
					break
				}
				j.hit(c, ruleUnreadableScript, "%s runs code from a process substitution", name)
				return
			}
			// python < script.py: like running a script file.
			return
		case in.Kind == shell.InputPipe:
			j.hitPipe(c, ruleUnreadableScript, "%s runs code that comes from a pipe: %s", name, upstream(in.Upstream))
			return
		default:
			// An interactive interpreter.
			return
		}
	}
	if src.taint&(shell.Network|shell.Decoded|shell.Downloaded) != 0 {
		j.hit(c, rulePipeToShell, "%s runs code %s", name, taintText(src.taint))
		return
	}
	if src.dynamic {
		j.hit(c, ruleDynamicCommand, "%s runs code that is only known at run time", name)
	}
	if src.known {
		before := len(j.reasons)
		j.scanCode(c, l, src.code)
		// Code that runs text only known at run time, while its input
		// is network or decoded data, runs that data (awk '{system($0)}',
		// exec(sys.stdin.read())).
		if t := c.Stdin.Taint; t&(shell.Network|shell.Decoded|shell.Downloaded) != 0 {
			for _, r := range j.reasons[before:] {
				if r.Rule == ruleDynamicCommand.String() {
					j.hitPipe(c, rulePipeToShell, "%s runs code it reads from its input, %s", name, taintText(t))
					break
				}
			}
		}
	}
}

func upstream(cmds []*shell.Command) string {
	var names []string
	for _, c := range cmds {
		if n := c.Name(); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "an unknown command"
	}
	return strings.Join(names, " | ")
}

// jsCodeCluster matches node's combined one-letter flags that take code
// (-pe, -ep, -ie).
func jsCodeCluster(v string) bool {
	if len(v) < 3 || v[0] != '-' || v[1] == '-' || !strings.ContainsAny(v, "ep") {
		return false
	}
	for _, c := range v[1:] {
		if !strings.ContainsRune("epic", c) {
			return false
		}
	}
	return true
}

// clusterCode reads one cluster of one-letter options of perl, ruby, lua
// or R starting at args[i]: code options (-e, perl's -E) are handed to
// add, options taking a value skip it. It returns the next index.
func clusterCode(args []shell.Word, i int, l lang, add func(shell.Word)) int {
	v := args[i].Value
	var code, value, digits, attached string
	switch l {
	case langPerl:
		code, value, digits, attached = "eE", "IMm", "l0", "ixCdDF"
	case langRuby:
		code, value, digits, attached = "e", "IrCE", "l0", "ixKTWF"
	case langLua:
		code, value = "e", "l"
	default:
		code, value = "e", "f"
	}
	for j := 1; j < len(v); j++ {
		c := v[j]
		switch {
		case strings.IndexByte(code, c) >= 0 || strings.IndexByte(value, c) >= 0:
			var w shell.Word
			next := i + 1
			if j+1 < len(v) {
				rest := v[j+1:]
				w = shell.Word{Value: rest, Prefix: rest, Taint: args[i].Taint}
			} else if i+1 < len(args) {
				w, next = args[i+1], i+2
			} else {
				return i + 1
			}
			if strings.IndexByte(code, c) >= 0 {
				add(w)
			}
			return next
		case strings.IndexByte(attached, c) >= 0:
			return i + 1
		case strings.IndexByte(digits, c) >= 0:
			for j+1 < len(v) && (v[j+1] >= '0' && v[j+1] <= '9' || c == '0' && strings.IndexByte("xXabcdefABCDEF", v[j+1]) >= 0) {
				j++
			}
		}
	}
	return i + 1
}

// isStdinPath reports whether a script path names standard input.
func isStdinPath(c *shell.Command, w shell.Word) bool {
	if w.Dynamic {
		return false
	}
	if w.Value == "-" {
		return true
	}
	p, ok := c.Abs(w)
	return ok && (p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0")
}
