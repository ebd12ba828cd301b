package catalog

import (
	"path"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Wrappers run the command that follows their options: the parser judges
// that command, and records the wrapper in Command.Wrappers (the
// classifier judges some wrappers themselves: sudo runs as root). Teaching
// safeexec a new wrapper is one line here: its name, Wraps, and the
// options that take a value.

var sudoArgs = &shell.ArgSpec{Abbrev: true, Short: "CDgpRrTtUu", Stop: "elvVK", Long: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "command-timeout", "type", "other-user", "user"}, StopLong: []string{"edit", "list", "validate", "version", "remove-timestamp"}}
var timeoutArgs = &shell.ArgSpec{Abbrev: true, Short: "sk", Long: []string{"signal", "kill-after"}, Positional: 1}
var flockArgs = &shell.ArgSpec{Abbrev: true, Short: "wEc", Long: []string{"timeout", "conflict-exit-code", "command"}, Positional: 1}

// wraps is a wrapper whose options spec describes. Most wrappers read
// their options with getopt_long, which accepts unambiguous prefixes of
// long options (timeout --sig KILL); for one that does not, a prefix it
// would refuse is harmless to resolve.
func wraps(spec shell.ArgSpec) *Tool {
	spec.Abbrev = true
	return &Tool{Tool: shell.Tool{Wraps: true, Args: &spec}}
}

// runsCode is a program whose options in runs take shell code.
func runsCode(spec *shell.ArgSpec, runs ...shell.CodeArg) *Tool {
	return &Tool{Tool: shell.Tool{Args: spec, Runs: runs}}
}

var wrapperTools = map[string]*Tool{
	"env":      {Tool: shell.Tool{Unwrap: unwrapEnv, Args: &shell.ArgSpec{Short: "uCSP", Long: []string{"unset", "chdir", "split-string"}}}},
	"nice":     wraps(shell.ArgSpec{Short: "n", Long: []string{"adjustment"}}),
	"ionice":   wraps(shell.ArgSpec{Short: "cn", Stop: "pPu", Long: []string{"class", "classdata"}, StopLong: []string{"pid", "pgid", "uid"}}),
	"nohup":    wraps(shell.ArgSpec{}),
	"timeout":  {Tool: shell.Tool{Wraps: true, Args: timeoutArgs}},
	"gtimeout": {Tool: shell.Tool{Wraps: true, Args: timeoutArgs}},
	"time": {Tool: shell.Tool{Wraps: true, Args: &shell.ArgSpec{Short: "fo", Long: []string{"format", "output"}},
		Writes: outputOption}},
	"stdbuf":   wraps(shell.ArgSpec{Short: "ioe", Long: []string{"input", "output", "error"}}),
	"setsid":   wraps(shell.ArgSpec{}),
	"taskset":  wraps(shell.ArgSpec{Stop: "p", StopLong: []string{"pid"}, Positional: 1}),
	"chrt":     wraps(shell.ArgSpec{Short: "TPD", Stop: "p", StopLong: []string{"pid"}, Positional: 1}),
	"unbuffer": wraps(shell.ArgSpec{}),
	"busybox":  {Tool: shell.Tool{Unwrap: unwrapMulticall}},
	"toybox":   {Tool: shell.Tool{Unwrap: unwrapMulticall}},
	"sudo":     {Tool: shell.Tool{Wraps: true, Assigns: true, Args: sudoArgs}},
	"sudo-rs":  {Tool: shell.Tool{Wraps: true, Args: sudoArgs}},
	"doas":     {Tool: shell.Tool{Wraps: true, Assigns: true, Args: &shell.ArgSpec{Short: "uC", Stop: "L"}}},
	"dzdo":     wraps(shell.ArgSpec{Short: "CDgpRrTtUu", Stop: "elvVK", Long: []string{"user", "group"}}),
	"pbrun":    wraps(shell.ArgSpec{Short: "uhb"}),
	"please":   wraps(shell.ArgSpec{Short: "tdcr", Long: []string{"target", "dir", "cmd", "reason"}, Stop: "le"}),
	"pfexec":   wraps(shell.ArgSpec{Short: "P"}),
	"gosu":     wraps(shell.ArgSpec{Positional: 1}),
	"su-exec":  wraps(shell.ArgSpec{Positional: 1}),
	"chpst":    wraps(shell.ArgSpec{Short: "uUe/nlLmdofcrpt"}),
	"setpriv": wraps(shell.ArgSpec{Long: []string{"reuid", "regid", "ruid", "euid", "rgid", "egid", "groups", "inh-caps", "ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access", "landlock-rule", "ptracer"},
		StopLong: []string{"dump", "list-caps"}, Stop: "d"}),
	"fakeroot":            wraps(shell.ArgSpec{Short: "ls", Long: []string{"lib", "faked"}}),
	"distrobox-host-exec": wraps(shell.ArgSpec{}),
	"pkexec":              wraps(shell.ArgSpec{Long: []string{"user"}}),
	"run0":                {Tool: shell.Tool{Wraps: true, Assigns: true, Args: &shell.ArgSpec{Short: "ugD", Long: []string{"user", "group", "chdir", "setenv", "property", "unit", "description", "slice", "machine", "nice", "background"}}}},
	"strace": {Tool: shell.Tool{Wraps: true, Args: &shell.ArgSpec{Short: "abeEIoOpPsSuUX", Long: []string{"output", "trace", "signal", "string-limit", "user", "env"}},
		Writes: outputOption}},
	"ltrace": {Tool: shell.Tool{Wraps: true, Args: &shell.ArgSpec{Short: "aAeEIlnoOpsSuwX", Long: []string{"output", "library"}},
		Writes: outputOption}},
	"valgrind":         {Tool: shell.Tool{Wraps: true, Writes: outputOption}},
	"caffeinate":       wraps(shell.ArgSpec{Short: "tw"}),
	"chroot":           wraps(shell.ArgSpec{Long: []string{"userspec", "groups"}, Positional: 1}),
	"unshare":          wraps(shell.ArgSpec{Short: "S G", Long: []string{"setuid", "setgid", "wd", "root"}}),
	"nsenter":          wraps(shell.ArgSpec{Short: "tSG", Long: []string{"target", "setuid", "setgid"}}),
	"firejail":         wraps(shell.ArgSpec{}),
	"proxychains":      wraps(shell.ArgSpec{Short: "f"}),
	"proxychains4":     wraps(shell.ArgSpec{Short: "f"}),
	"torsocks":         wraps(shell.ArgSpec{Short: "uaPp"}),
	"tsocks":           wraps(shell.ArgSpec{}),
	"dbus-run-session": wraps(shell.ArgSpec{Long: []string{"config-file", "dbus-daemon"}}),
	"systemd-run":      wraps(shell.ArgSpec{Short: "upEMHs", Long: []string{"unit", "property", "setenv", "machine", "host", "description", "slice", "uid", "gid", "working-directory", "nice", "on-active", "on-calendar", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "timer-property", "path-property", "socket-property", "service-type", "expand-environment"}}),
	"runuser": {Tool: shell.Tool{Wraps: true, Args: &shell.ArgSpec{Short: "ugGcsw", Long: []string{"user", "group", "supp-group", "command", "shell", "whitelist-environment", "session-command"}},
		Runs: []shell.CodeArg{{Short: "c", Long: "command"}, {Long: "session-command"}}}},
	"su":     runsCode(&shell.ArgSpec{Short: "cgGsw", Long: []string{"command", "group", "supp-group", "shell", "whitelist-environment", "session-command"}}, shell.CodeArg{Short: "c", Long: "command"}, shell.CodeArg{Long: "session-command"}),
	"sg":     {Tool: shell.Tool{Args: &shell.ArgSpec{Short: "c"}, Runs: []shell.CodeArg{{Short: "c", Long: "command"}}, Follow: followSg}},
	"capsh":  {Tool: shell.Tool{Follow: followCapsh}},
	"ksu":    {Tool: shell.Tool{Follow: followKsu}},
	"xargs":  {Tool: shell.Tool{Unwrap: unwrapXargs, Args: &shell.ArgSpec{Short: "adELnPsI", Long: []string{"arg-file", "delimiter", "eof", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}}}},
	"arch":   {Tool: shell.Tool{Unwrap: unwrapArch}},
	"flock":  {Tool: shell.Tool{Unwrap: unwrapFlock, Args: flockArgs, Runs: []shell.CodeArg{{Short: "c", Long: "command"}}}},
	"dotenv": {Tool: shell.Tool{Unwrap: unwrapDotenv, Args: dotenvArgs}},
	// ip netns exec NAME CMD and ip vrf exec NAME CMD run CMD.
	"ip": {Tool: shell.Tool{Unwrap: unwrapIPExec}},
}

// dotenvArgs reads both dotenv programs: dotenv-cli (npm: -e FILE, -v
// K=V, -p VAR, -c [ENV]) and python-dotenv (-f FILE, -e BOOL, then run,
// list, get, set, unset).
var dotenvArgs = &shell.ArgSpec{Short: "efvp", Long: []string{"file", "export"}, Flags: []string{"quiet", "override", "no-override"}, InOrder: true}

// unwrapDotenv finds the command dotenv runs: after its options, and for
// python-dotenv after "run" and its own options. list, get, set and unset
// run nothing.
func unwrapDotenv(cmd *shell.Command) (int, bool) {
	i := dotenvArgs.Skip(cmd.Args)
	if i < 0 {
		return 0, false
	}
	switch a := cmd.Args[i]; {
	case a.Dynamic:
	case a.Value == "run":
		for i++; i < len(cmd.Args) && strings.HasPrefix(cmd.Args[i].Value, "-") && !cmd.Args[i].Dynamic; i++ {
			if cmd.Args[i].Value == "--" {
				i++
				break
			}
		}
	case a.Value == "list" || a.Value == "get" || a.Value == "set" || a.Value == "unset":
		return 0, false
	}
	return i, i < len(cmd.Args)
}

// followSg follows sg GROUP COMMAND (a string run by a shell) when -c is
// not given.
func followSg(f *shell.Follower) {
	args := f.Cmd().Args
	if _, ok := anyArgs.Value(args, "c", "command"); !ok && len(args) > 2 {
		f.Script(args[2])
	}
}

// followCapsh follows capsh [opts] -- ARG…: /bin/bash ARG… after the
// privileges change.
func followCapsh(f *shell.Follower) {
	cmd := f.Cmd()
	for i, a := range cmd.Args[1:] {
		if a.Value == "--" && !a.Dynamic {
			f.Run(&shell.Command{Args: append([]shell.Word{shell.Static("bash")}, cmd.Args[i+2:]...), Stdin: cmd.Stdin}, shell.Wrapped)
			break
		}
	}
}

// followKsu follows ksu [USER] -e PROGRAM ARG…
func followKsu(f *shell.Follower) {
	cmd := f.Cmd()
	if w, ok := anyArgs.Value(cmd.Args, "e", ""); ok {
		i := 1
		for i < len(cmd.Args) && cmd.Args[i].Value != "-e" {
			i++
		}
		f.Run(&shell.Command{Args: append([]shell.Word{w}, cmd.Args[min(i+2, len(cmd.Args)):]...)}, shell.Wrapped)
	}
}

// unwrapArch handles macOS arch [-arch NAME | -x86_64 …] [-e VAR=V] CMD.
func unwrapArch(cmd *shell.Command) (int, bool) {
	i := 1
	for i < len(cmd.Args) && strings.HasPrefix(cmd.Args[i].Value, "-") && !cmd.Args[i].Dynamic {
		if cmd.Args[i].Value == "-arch" || cmd.Args[i].Value == "-e" {
			i++
		}
		i++
	}
	return i, i < len(cmd.Args)
}

// isAssignWord splits a static NAME=value word.
func isAssignWord(w shell.Word) (string, string, bool) {
	if w.Dynamic {
		return "", "", false
	}
	i := strings.IndexByte(w.Value, '=')
	if i <= 0 {
		return "", "", false
	}
	return w.Value[:i], w.Value[i+1:], true
}

// unwrapMulticall handles busybox/toybox APPLET ARG…: the applet runs.
func unwrapMulticall(cmd *shell.Command) (int, bool) {
	if len(cmd.Args) > 1 && !strings.HasPrefix(cmd.Args[1].Value, "-") {
		return 1, true
	}
	return 0, false
}

// unwrapEnv handles env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… CMD.
func unwrapEnv(cmd *shell.Command) (int, bool) {
	args := cmd.Args
	i := 1
	for i < len(args) {
		a := args[i]
		if a.Dynamic {
			return i, true
		}
		v := a.Value
		if v == "--" {
			i++
			break
		}
		if v == "-" {
			i++
			continue
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasVal := strings.Cut(v[2:], "=")
			switch name {
			case "unset", "chdir", "split-string":
				if !hasVal {
					if i+1 >= len(args) {
						return -1, false
					}
					val = args[i+1].Value
					if args[i+1].Dynamic {
						return i + 1, true
					}
					i++
				}
				i++
				switch name {
				case "chdir":
					envChdir(cmd, val)
				case "split-string":
					return envSplit(cmd, i, val)
				}
			default:
				i++
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' {
			consumed := false
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'u' || c == 'C' || c == 'S' || c == 'P' {
					val := v[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return -1, false
						}
						if args[i+1].Dynamic {
							return i + 1, true
						}
						val = args[i+1].Value
						i++
					}
					i++
					consumed = true
					switch c {
					case 'C':
						envChdir(cmd, val)
					case 'S':
						return envSplit(cmd, i, val)
					}
					break
				}
			}
			if !consumed {
				i++
			}
			continue
		}
		break
	}
	for i < len(args) {
		name, _, ok := isAssignWord(args[i])
		if !ok {
			break
		}
		val := word(args[i].Value[len(name)+1:], false, args[i].Taint)
		cmd.Assigns = append(cmd.Assigns, shell.Assign{Name: name, Value: val})
		i++
	}
	if i >= len(args) {
		return -1, false
	}
	return i, true
}

func envChdir(cmd *shell.Command, dir string) {
	if path.IsAbs(dir) {
		cmd.Dir, cmd.DirKnown = path.Clean(dir), true
	} else if cmd.DirKnown {
		cmd.Dir = path.Join(cmd.Dir, dir)
	}
}

// envSplit replaces env -S STRING by the words of STRING and goes on
// unwrapping from there.
func envSplit(cmd *shell.Command, rest int, s string) (int, bool) {
	words := shell.SplitWords(s)
	args := make([]shell.Word, 0, 1+len(words)+len(cmd.Args)-rest)
	args = append(args, shell.Static("env"))
	for _, w := range words {
		args = append(args, shell.Static(w))
	}
	args = append(args, cmd.Args[rest:]...)
	cmd.Args = args
	return unwrapEnv(cmd)
}

// unwrapXargs handles xargs [opts] CMD…: the command gets the items read
// from xargs' input as extra (dynamic) arguments.
func unwrapXargs(cmd *shell.Command) (int, bool) {
	args := cmd.Args
	repl := ""
	i := 1
	for i < len(args) {
		a := args[i]
		if a.Dynamic {
			break
		}
		v := a.Value
		if v == "--" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			name, val, has := strings.Cut(v[2:], "=")
			switch name {
			case "arg-file", "delimiter", "eof", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var":
				if !has {
					i++
				}
			case "replace":
				repl = "{}"
				if has {
					repl = val
				}
			}
			i++
			continue
		}
		if len(v) > 1 && v[0] == '-' {
			skip := false
		opts:
			for j := 1; j < len(v); j++ {
				switch c := v[j]; c {
				case 'a', 'd', 'E', 'L', 'n', 'P', 's':
					skip = j == len(v)-1
					break opts
				case 'I':
					if j == len(v)-1 {
						if i+1 < len(args) {
							repl = args[i+1].Value
						}
						skip = true
					} else {
						repl = v[j+1:]
					}
					break opts
				case 'i':
					repl = "{}"
					if j < len(v)-1 {
						repl = v[j+1:]
					}
					break opts
				case 'e', 'l':
					break opts
				}
			}
			i++
			if skip {
				i++
			}
			continue
		}
		break
	}
	input := cmd.Stdin
	item := shell.Word{Value: "{xargs input}", Dynamic: true, Taint: input.Taint}
	if input.Kind == shell.InputInherited {
		item.Value = "{xargs input}"
	}
	var inner []shell.Word
	if i >= len(args) {
		inner = []shell.Word{shell.Static("echo")}
	} else {
		inner = append([]shell.Word(nil), args[i:]...)
	}
	if input.TextKnown && len(input.Text) < 4096 && input.Taint == 0 {
		// The items are known: xargs runs the command with them.
		items := strings.Fields(input.Text)
		if repl != "" {
			for k := range inner {
				if !inner[k].Dynamic && strings.Contains(inner[k].Value, repl) && len(items) > 0 {
					v := strings.ReplaceAll(inner[k].Value, repl, items[0])
					inner[k] = shell.Word{Value: v, Prefix: v}
				}
			}
		} else {
			for _, it := range items {
				inner = append(inner, shell.Static(it))
			}
		}
	} else if repl != "" {
		for k := range inner {
			if !inner[k].Dynamic && strings.Contains(inner[k].Value, repl) {
				inner[k] = shell.Word{Value: inner[k].Value, Dynamic: true, Prefix: inner[k].Value[:strings.Index(inner[k].Value, repl)], Taint: input.Taint}
			}
		}
	} else {
		inner = append(inner, item)
	}
	if !(input.TextKnown && input.Taint == 0) {
		cmd.ExtraArgs = true
	}
	// xargs itself reads the input; the command gets no stdin.
	cmd.Stdin = shell.Input{Kind: shell.InputText, TextKnown: true}
	wrapper := append([]shell.Word(nil), args[:i]...)
	cmd.Args = append(wrapper, inner...)
	return i, true
}

// unwrapFlock handles flock [opts] FILE CMD… (flock … -c STRING is a
// nested script, see special).
func unwrapFlock(cmd *shell.Command) (int, bool) {
	for _, a := range cmd.Args[1:] {
		if a.Value == "-c" || a.Value == "--command" {
			return 0, false
		}
	}
	i := flockArgs.Skip(cmd.Args)
	return i, i > 0
}

func unwrapIPExec(cmd *shell.Command) (int, bool) {
	ops := anyArgs.Operands(cmd.Args)
	if len(ops) >= 4 && (ops[0].Value == "netns" || ops[0].Value == "vrf") && ops[1].Value == "exec" {
		for i, a := range cmd.Args {
			if a.Value == ops[3].Value && i > 3 {
				return i, true
			}
		}
	}
	return 0, false
}
