package catalog

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Windows programs and PowerShell cmdlets: the files and registry keys
// they write or delete.

// psSwitches are PowerShell parameters that take no value.
var psSwitches = []string{"recurse", "force", "whatif", "confirm", "append", "nonewline", "passthru", "container",
	"verbose", "noclobber", "asjob", "wait", "nonewwindow", "usebasicparsing", "literalpath"}

// psArgs splits PowerShell arguments into named values and positional
// ones.
func psArgs(args []shell.Word) (named map[string]shell.Word, positional []shell.Word) {
	named = map[string]shell.Word{}
	for i := 1; i < len(args); i++ {
		a := args[i]
		v := strings.ToLower(a.Value)
		if a.Dynamic || !strings.HasPrefix(v, "-") || len(v) < 2 {
			positional = append(positional, a)
			continue
		}
		key, _, hasVal := strings.Cut(v[1:], ":")
		if hasVal {
			named[key] = shell.Word{Value: a.Value[len(key)+2:], Prefix: a.Value[len(key)+2:]}
			continue
		}
		sw := false
		for _, s := range psSwitches {
			if strings.HasPrefix(s, key) && key != "l" && (key != "literalpath" && s != "literalpath") {
				sw = true
				break
			}
		}
		if sw {
			continue
		}
		if i+1 < len(args) {
			named[key] = args[i+1]
			i++
		}
	}
	return named, positional
}

func psNamed(named map[string]shell.Word, names ...string) (shell.Word, bool) {
	for key, w := range named {
		for _, n := range names {
			if strings.HasPrefix(n, key) && len(key) >= 2 || key == n {
				return w, true
			}
		}
	}
	return shell.Word{}, false
}

// winTargets lists the files PowerShell and cmd.exe commands write or
// delete.
func winTargets(c *shell.Command) []shell.Word {
	args := c.Args
	if c.Dialect == shell.Cmd {
		var ops []shell.Word
		for _, a := range args[1:] {
			if !strings.HasPrefix(a.Value, "/") || a.Dynamic {
				ops = append(ops, a)
			}
		}
		switch strings.ToLower(c.Name()) {
		case "del", "erase", "rd", "rmdir", "mkdir", "md", "mklink", "attrib":
			return ops
		case "takeown", "icacls", "cacls":
			if strings.EqualFold(c.Name(), "takeown") {
				for i := 1; i+1 < len(args); i++ {
					if strings.EqualFold(args[i].Value, "/f") {
						return []shell.Word{args[i+1]}
					}
				}
				return nil
			}
			return ops[:min(1, len(ops))]
		case "bitsadmin", "certutil":
			// bitsadmin /transfer NAME URL FILE, certutil -urlcache -f URL
			// FILE, certutil -decode IN OUT: the last word is written.
			if len(args) > 3 && (shell.WinFlag(args, "transfer", "urlcache", "decode", "decodehex", "encode") || hasWordFold(args, "-urlcache", "-decode", "-decodehex")) {
				return args[len(args)-1:]
			}
		case "ren", "rename":
			if len(ops) > 0 {
				return ops[:1]
			}
		case "copy", "xcopy", "robocopy", "move":
			if len(ops) > 1 {
				out := ops[len(ops)-1:]
				if strings.EqualFold(c.Name(), "move") {
					out = append(out, ops[:len(ops)-1]...)
				}
				return out
			}
		}
		return nil
	}
	named, pos := psArgs(args)
	first := func(names ...string) []shell.Word {
		if w, ok := psNamed(named, names...); ok {
			return []shell.Word{w}
		}
		if len(pos) > 0 {
			return pos[:1]
		}
		if c.Stdin.Kind == shell.InputPipe {
			// gci | Remove-Item: the items come down the pipeline.
			return []shell.Word{{Value: "the items piped into " + c.Name(), Dynamic: true}}
		}
		return nil
	}
	switch shell.PSCmdlet(c.Name()) {
	case "remove-item", "clear-content", "rename-item", "set-content", "add-content", "new-item", "clear-item",
		"set-itemproperty", "new-itemproperty", "remove-itemproperty", "set-item":
		return first("path", "literalpath")
	case "out-file", "tee-object":
		return first("filepath", "path", "literalpath")
	case "copy-item", "move-item":
		var out []shell.Word
		if w, ok := psNamed(named, "destination"); ok {
			out = append(out, w)
		} else if len(pos) > 1 {
			out = append(out, pos[1])
		}
		if shell.PSCmdlet(c.Name()) == "move-item" {
			if w, ok := psNamed(named, "path", "literalpath"); ok {
				out = append(out, w)
			} else if len(pos) > 0 {
				out = append(out, pos[0])
			}
		}
		return out
	case "expand-archive":
		if w, ok := psNamed(named, "destinationpath"); ok {
			return []shell.Word{w}
		}
		if len(pos) > 1 {
			return pos[1:2]
		}
	case "invoke-webrequest", "invoke-restmethod":
		if w, ok := psNamed(named, "outfile"); ok {
			return []shell.Word{w}
		}
	case "start-bitstransfer":
		if w, ok := psNamed(named, "destination"); ok {
			return []shell.Word{w}
		}
	}
	return nil
}

func hasWordFold(args []shell.Word, set ...string) bool {
	for _, a := range args[1:] {
		for _, s := range set {
			if strings.EqualFold(a.Value, s) {
				return true
			}
		}
	}
	return false
}

// cmdTreeReads are the directories whose whole tree a cmd.exe command
// reads: xcopy /s or /e and robocopy copy a tree's contents (their
// source), findstr /s searches the files below its operands.
func cmdTreeReads(c *shell.Command) []shell.Word {
	var ops []shell.Word
	for _, a := range c.Args[1:] {
		if a.Dynamic || !strings.HasPrefix(a.Value, "/") {
			ops = append(ops, a)
		}
	}
	switch strings.ToLower(c.Name()) {
	case "xcopy":
		if shell.WinFlag(c.Args, "s", "e") && len(ops) > 0 {
			return ops[:1]
		}
	case "robocopy":
		if len(ops) > 0 {
			return ops[:1]
		}
	case "findstr":
		if shell.WinFlag(c.Args, "s") && len(ops) > 1 {
			return ops[1:]
		}
	}
	return nil
}
