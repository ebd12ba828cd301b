package risk

import (
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
)

var langNames = [...]string{"", "python", "node", "perl", "ruby", "php", "lua", "awk", "R", "osascript"}

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
	case name == "Rscript":
		return langR
	case name == "osascript":
		return langAppleScript
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
			case v == "-c":
				if i+1 < len(args) {
					add(args[i+1])
				}
				return src, true
			case strings.HasPrefix(v, "-c") && !strings.HasPrefix(v, "--"):
				add(shell.Word{Value: v[2:], Prefix: v[2:], Taint: args[i].Taint})
				return src, true
			case v == "-m" || strings.HasPrefix(v, "-m") && !strings.HasPrefix(v, "--"):
				return src, false
			case v == "-W" || v == "-X" || v == "--check-hash-based-pycs":
				i += 2
			case v == "-":
				src.fromStdin = true
				return src, true
			case oneOf(v, "-V", "--version", "-h", "--help", "-VV"):
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
			case v == "-e" || v == "--eval" || v == "-p" || v == "--print":
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
			case oneOf(v, "-v", "--version", "-h", "--help"):
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
				flags := v[1:]
				if l == langPerl || l == langRuby {
					// -i[ext] takes the rest of the cluster.
					if k := strings.IndexAny(flags, "eE"); k >= 0 && !strings.ContainsAny(flags[:k], "iIlx0") || k == 0 {
						if k == len(flags)-1 {
							if i+1 < len(args) {
								add(args[i+1])
							}
							i += 2
							continue
						}
						add(shell.Static(flags[k+1:]))
						i++
						continue
					}
					if strings.ContainsAny(flags, "IMm") && len(flags) == 1 {
						i += 2
						continue
					}
				} else if flags == "e" {
					if i+1 < len(args) {
						add(args[i+1])
					}
					i += 2
					continue
				}
				if oneOf(v, "-v", "-h", "-V") {
					return src, src.inline
				}
				i++
			case strings.HasPrefix(v, "--"):
				if v == "--version" || v == "--help" {
					return src, false
				}
				if l == langR && v == "--vanilla" {
					i++
					continue
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
			case v == "-r":
				if i+1 < len(args) {
					add(args[i+1])
				}
				return src, true
			case v == "-d" || v == "-c" || v == "-z":
				i += 2
			case oneOf(v, "-v", "-h", "-m", "-i", "-l", "-S", "--version"):
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
	case langAwk:
		progFile := false
		for i < len(args) {
			v := args[i].Value
			switch {
			case args[i].Dynamic && !src.inline:
				src.dynamic = true
				return src, true
			case v == "-f" || v == "--file":
				progFile = true
				i += 2
			case v == "-F" || v == "-v" || v == "--assign" || v == "--field-separator":
				i += 2
			case v == "-e" || v == "--source":
				if i+1 < len(args) {
					add(args[i+1])
				}
				i += 2
			case v == "--":
				i++
				if !progFile && !src.inline && i < len(args) {
					add(args[i])
				}
				return src, src.inline
			case strings.HasPrefix(v, "-") && len(v) > 1:
				i++
			default:
				if !progFile && !src.inline {
					add(args[i])
				}
				return src, src.inline
			}
		}
		return src, src.inline
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
	if f := src.file; f != nil {
		switch {
		case f.Taint&(shell.Network|shell.Decoded|shell.Downloaded) != 0:
			j.hit(c, "pipe-to-shell", Risky, "%s runs a program %s", name, taintText(f.Taint))
		case f.Proc && f.ContentKnown:
			j.scanCode(c, l, f.Content)
		case f.Proc:
			j.hit(c, "unreadable-script", NeedsConfirmation, "%s runs a program from a process substitution", name)
		}
		return
	}
	if src.fromStdin {
		in := c.Stdin
		src.taint |= in.Taint
		switch {
		case in.Taint&(shell.Network|shell.Decoded|shell.Downloaded) != 0:
			j.hitPipe(c, "pipe-to-shell", Risky, "%s runs code %s", name, taintText(in.Taint))
			return
		case in.TextKnown:
			src.code, src.known = in.Text, true
		case in.Kind == shell.InputFile:
			if in.Path.Proc {
				if in.Path.ContentKnown {
					src.code, src.known = in.Path.Content, true
					break
				}
				j.hit(c, "unreadable-script", NeedsConfirmation, "%s runs code from a process substitution", name)
				return
			}
			// python < script.py: like running a script file.
			return
		case in.Kind == shell.InputPipe:
			j.hitPipe(c, "unreadable-script", NeedsConfirmation, "%s runs code that comes from a pipe: %s", name, upstream(in.Upstream))
			return
		default:
			// An interactive interpreter.
			return
		}
	}
	if src.taint&(shell.Network|shell.Decoded|shell.Downloaded) != 0 {
		j.hit(c, "pipe-to-shell", Risky, "%s runs code %s", name, taintText(src.taint))
		return
	}
	if src.dynamic {
		j.hit(c, "dynamic-command", NeedsConfirmation, "%s runs code that is only known at run time", name)
	}
	if src.known {
		j.scanCode(c, l, src.code)
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
