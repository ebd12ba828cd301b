package catalog

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// sed: its script's e command and s///e flag run shell commands, its w
// and r commands write and read files, and -i edits files in place.

var sedArgs = gnu(shell.ArgSpec{Short: "efl", Long: []string{"expression", "file", "line-length"},
	Flags: []string{"in-place", "quiet", "silent", "regexp-extended", "separate", "sandbox", "null-data", "zero-terminated", "unbuffered", "posix", "debug", "follow-symlinks"}})

var sedTools = map[string]*Tool{
	"sed":  {Tool: shell.Tool{Args: sedArgs, Writes: sedWrites}},
	"gsed": {Tool: shell.Tool{Args: sedArgs, Writes: sedWrites}},
}

// SedScripts returns the scripts a sed command runs: its -e and
// --expression values, or its first operand; a script read from standard
// input (-f -) is its known input or a dynamic word; -f FILE scripts are
// not read (hasFile).
func SedScripts(c *shell.Command) (scripts []shell.Word, hasFile bool) {
	given := false
	for a := range sedArgs.Args(c.Args) {
		if a.Operand || !a.HasValue {
			continue
		}
		switch a.Name {
		case "e", "expression":
			scripts = append(scripts, a.Value)
			given = true
		case "f", "file":
			given, hasFile = true, true
			if isStdin(c, a.Value) {
				if in := c.Stdin; in.TextKnown {
					scripts = append(scripts, shell.Static(in.Text))
				} else {
					scripts = append(scripts, shell.Word{Value: "-", Dynamic: true})
				}
			}
		}
	}
	if !given {
		if ops := sedArgs.Operands(c.Args); len(ops) > 0 {
			scripts = append(scripts, ops[0])
		}
	}
	return scripts, hasFile
}

// sedWrites: -i edits the file operands; w FILE writes FILE.
func sedWrites(c *shell.Command) shell.Writes {
	var w shell.Writes
	scripts, _ := SedScripts(c)
	for _, s := range scripts {
		if s.Dynamic {
			continue
		}
		_, ws, _ := SedScript(s.Value)
		for _, f := range ws {
			w.Files = append(w.Files, shell.Static(f))
		}
	}
	if !sedArgs.Has(c.Args, "i", "in-place") {
		return w
	}
	ops := sedArgs.Operands(c.Args)
	if _, ok := sedArgs.Value(c.Args, "e", "expression"); !ok {
		if _, ok := sedArgs.Value(c.Args, "f", "file"); !ok && len(ops) > 0 {
			ops = ops[1:]
		}
	}
	w.Files = append(w.Files, ops...)
	return w
}

// isStdin reports whether a path names standard input.
func isStdin(c *shell.Command, w shell.Word) bool {
	if w.Dynamic {
		return false
	}
	if w.Value == "-" {
		return true
	}
	p, ok := c.Abs(w)
	return ok && (p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0")
}

// SedScript finds what a sed script runs (see sedCommands), the files
// its w and W commands and s///w flags write, and the files its r and R
// commands read.
func SedScript(script string) (cmds, writes, reads []string) {
	// The non-empty lines between newlines and semicolons (both ASCII).
	for start, i := 0, 0; i <= len(script); i++ {
		if i < len(script) && script[i] != '\n' && script[i] != ';' {
			continue
		}
		line := script[start:i]
		start = i + 1
		if line == "" {
			continue
		}
		l := strings.TrimLeft(line, " \t0123456789,$!~")
		for strings.HasPrefix(l, "/") || strings.HasPrefix(l, `\`) {
			d := byte('/')
			if l[0] == '\\' && len(l) > 1 {
				d, l = l[1], l[1:]
			}
			k := strings.IndexByte(l[1:], d)
			if k < 0 {
				break
			}
			l = strings.TrimLeft(l[k+2:], " \t,0123456789$!~I")
		}
		l = strings.TrimLeft(l, "{ \t")
		file := func(rest string) string { return strings.TrimSpace(rest) }
		switch {
		case l == "e":
			cmds = append(cmds, "")
		case strings.HasPrefix(l, "e ") || strings.HasPrefix(l, "e\t"):
			cmds = append(cmds, strings.TrimSpace(l[2:]))
		case len(l) > 1 && (l[0] == 'w' || l[0] == 'W') && (l[1] == ' ' || l[1] == '\t'):
			if f := file(l[2:]); f != "" {
				writes = append(writes, f)
			}
		case len(l) > 1 && (l[0] == 'r' || l[0] == 'R') && (l[1] == ' ' || l[1] == '\t'):
			if f := file(l[2:]); f != "" {
				reads = append(reads, f)
			}
		case len(l) > 3 && (l[0] == 's' || l[0] == 'y'):
			// s/RE/REPLACEMENT/FLAGS: the flags follow the third
			// delimiter.
			// (The delimiter as a string converted from its byte, as
			// strings.SplitN(body, string(d), 3) would cut.)
			d := string(rune(l[1]))
			body := l[2:]
			k1 := strings.Index(body, d)
			k2 := -1
			if k1 >= 0 {
				if k := strings.Index(body[k1+len(d):], d); k >= 0 {
					k2 = k1 + len(d) + k
				}
			}
			if l[0] == 's' && k2 >= 0 {
				flags := body[k2+len(d):]
				if k := strings.IndexByte(flags, 'w'); k >= 0 {
					if f := file(flags[k+1:]); f != "" {
						writes = append(writes, f)
					}
					flags = flags[:k]
				}
				if strings.Contains(flags, "e") {
					cmds = append(cmds, "")
				}
			}
		}
	}
	return cmds, writes, reads
}
