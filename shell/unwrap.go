package shell

import (
	"path"
	"strings"
	"unicode/utf8"
)

type unwrapFunc func(p *parser, cmd *Command, sc *scope) (inner int, ok bool)

func simpleWrapper(spec ArgSpec) unwrapFunc {
	return func(p *parser, cmd *Command, sc *scope) (int, bool) {
		i := spec.Skip(cmd.Args)
		return i, i > 0
	}
}

// wrappers run the command that follows their options; the classifier
// judges that command (and, for some, the wrapper itself).
var wrappers map[string]unwrapFunc

func init() {
	wrappers = map[string]unwrapFunc{
		"env":                 unwrapEnv,
		"command":             simpleWrapper(ArgSpec{Stop: "vV"}),
		"builtin":             simpleWrapper(ArgSpec{}),
		"exec":                simpleWrapper(ArgSpec{Short: "a"}),
		"nice":                simpleWrapper(ArgSpec{Short: "n", Long: []string{"adjustment"}}),
		"ionice":              simpleWrapper(ArgSpec{Short: "cn", Stop: "pPu", Long: []string{"class", "classdata"}, StopLong: []string{"pid", "pgid", "uid"}}),
		"nohup":               simpleWrapper(ArgSpec{}),
		"timeout":             simpleWrapper(ArgSpec{Short: "sk", Long: []string{"signal", "kill-after"}, Positional: 1}),
		"gtimeout":            simpleWrapper(ArgSpec{Short: "sk", Long: []string{"signal", "kill-after"}, Positional: 1}),
		"time":                simpleWrapper(ArgSpec{Short: "fo", Long: []string{"format", "output"}}),
		"stdbuf":              simpleWrapper(ArgSpec{Short: "ioe", Long: []string{"input", "output", "error"}}),
		"setsid":              simpleWrapper(ArgSpec{}),
		"taskset":             simpleWrapper(ArgSpec{Stop: "p", StopLong: []string{"pid"}, Positional: 1}),
		"chrt":                simpleWrapper(ArgSpec{Short: "TPD", Stop: "p", StopLong: []string{"pid"}, Positional: 1}),
		"unbuffer":            simpleWrapper(ArgSpec{}),
		"busybox":             unwrapMulticall,
		"toybox":              unwrapMulticall,
		"screen":              unwrapScreen,
		"sudo":                simpleWrapper(ArgSpec{Short: "CDgpRrTtUu", Stop: "elvVK", Long: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "command-timeout", "type", "other-user", "user"}, StopLong: []string{"edit", "list", "validate", "version", "remove-timestamp"}}),
		"doas":                simpleWrapper(ArgSpec{Short: "uC", Stop: "L"}),
		"sudo-rs":             simpleWrapper(ArgSpec{Short: "CDgpRrTtUu", Stop: "elvVK", Long: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "command-timeout", "type", "other-user", "user"}, StopLong: []string{"edit", "list", "validate", "version", "remove-timestamp"}}),
		"dzdo":                simpleWrapper(ArgSpec{Short: "CDgpRrTtUu", Stop: "elvVK", Long: []string{"user", "group"}}),
		"pbrun":               simpleWrapper(ArgSpec{Short: "uhb"}),
		"please":              simpleWrapper(ArgSpec{Short: "tdcr", Long: []string{"target", "dir", "cmd", "reason"}, Stop: "le"}),
		"pfexec":              simpleWrapper(ArgSpec{Short: "P"}),
		"gosu":                simpleWrapper(ArgSpec{Positional: 1}),
		"su-exec":             simpleWrapper(ArgSpec{Positional: 1}),
		"chpst":               simpleWrapper(ArgSpec{Short: "uUe/nlLmdofcrpt"}),
		"setpriv":             simpleWrapper(ArgSpec{Long: []string{"reuid", "regid", "ruid", "euid", "rgid", "egid", "groups", "inh-caps", "ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access", "landlock-rule", "ptracer"}, StopLong: []string{"dump", "list-caps"}, Stop: "d"}),
		"fakeroot":            simpleWrapper(ArgSpec{Short: "ls", Long: []string{"lib", "faked"}}),
		"distrobox-host-exec": simpleWrapper(ArgSpec{}),
		"pkexec":              simpleWrapper(ArgSpec{Long: []string{"user"}}),
		"run0":                simpleWrapper(ArgSpec{Short: "ugD", Long: []string{"user", "group", "chdir", "setenv", "property", "unit", "description", "slice", "machine", "nice", "background"}}),
		"strace":              simpleWrapper(ArgSpec{Short: "abeEIoOpPsSuUX", Long: []string{"output", "trace", "signal", "string-limit", "user", "env"}}),
		"ltrace":              simpleWrapper(ArgSpec{Short: "aAeEIlnoOpsSuwX", Long: []string{"output", "library"}}),
		"valgrind":            simpleWrapper(ArgSpec{}),
		"caffeinate":          simpleWrapper(ArgSpec{Short: "tw"}),
		"chroot":              simpleWrapper(ArgSpec{Long: []string{"userspec", "groups"}, Positional: 1}),
		"unshare":             simpleWrapper(ArgSpec{Short: "S G", Long: []string{"setuid", "setgid", "wd", "root"}}),
		"nsenter":             simpleWrapper(ArgSpec{Short: "tSG", Long: []string{"target", "setuid", "setgid"}}),
		"firejail":            simpleWrapper(ArgSpec{}),
		"proxychains":         simpleWrapper(ArgSpec{Short: "f"}),
		"proxychains4":        simpleWrapper(ArgSpec{Short: "f"}),
		"torsocks":            simpleWrapper(ArgSpec{Short: "uaPp"}),
		"tsocks":              simpleWrapper(ArgSpec{}),
		"dbus-run-session":    simpleWrapper(ArgSpec{Long: []string{"config-file", "dbus-daemon"}}),
		"systemd-run":         simpleWrapper(ArgSpec{Short: "upEMHs", Long: []string{"unit", "property", "setenv", "machine", "host", "description", "slice", "uid", "gid", "working-directory", "nice", "on-active", "on-calendar", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "timer-property", "path-property", "socket-property", "service-type", "expand-environment"}}),
		"runuser":             simpleWrapper(ArgSpec{Short: "ugGcsw", Long: []string{"user", "group", "supp-group", "command", "shell", "whitelist-environment", "session-command"}}),
		"xargs":               unwrapXargs,
		"arch": func(p *parser, cmd *Command, sc *scope) (int, bool) {
			i := 1
			for i < len(cmd.Args) && strings.HasPrefix(cmd.Args[i].Value, "-") && !cmd.Args[i].Dynamic {
				if cmd.Args[i].Value == "-arch" || cmd.Args[i].Value == "-e" {
					i++
				}
				i++
			}
			return i, i < len(cmd.Args)
		},
		"flock": unwrapFlock,
		"watch": func(p *parser, cmd *Command, sc *scope) (int, bool) {
			// Only watch -x runs argv directly; otherwise see special().
			for _, a := range cmd.Args[1:] {
				if a.Value == "-x" || a.Value == "--exec" {
					i := (&ArgSpec{Short: "nq", Long: []string{"interval", "equexit"}}).Skip(cmd.Args)
					return i, i > 0
				}
				if !strings.HasPrefix(a.Value, "-") {
					break
				}
			}
			return 0, false
		},
		"entr": func(p *parser, cmd *Command, sc *scope) (int, bool) {
			for _, a := range cmd.Args[1:] {
				if strings.HasPrefix(a.Value, "-") && strings.Contains(a.Value, "s") {
					return 0, false
				}
			}
			i := (&ArgSpec{}).Skip(cmd.Args)
			return i, i > 0
		},
		"bundle":     subcommandRunner(map[string]ArgSpec{"exec": {}}),
		"uv":         subcommandRunner(map[string]ArgSpec{"run": {Short: "pw", Long: []string{"with", "python", "project", "directory", "env-file", "group", "extra", "package", "index", "with-requirements", "with-editable", "only-group", "no-group", "default-index", "index-url", "extra-index-url", "find-links", "cache-dir", "config-file"}}}),
		"poetry":     subcommandRunner(map[string]ArgSpec{"run": {}}),
		"pipenv":     subcommandRunner(map[string]ArgSpec{"run": {}}),
		"pdm":        subcommandRunner(map[string]ArgSpec{"run": {}}),
		"hatch":      subcommandRunner(map[string]ArgSpec{"run": {}}),
		"conda":      subcommandRunner(map[string]ArgSpec{"run": {Short: "np", Long: []string{"name", "prefix", "cwd"}}}),
		"mamba":      subcommandRunner(map[string]ArgSpec{"run": {Short: "np", Long: []string{"name", "prefix", "cwd"}}}),
		"micromamba": subcommandRunner(map[string]ArgSpec{"run": {Short: "np", Long: []string{"name", "prefix", "cwd"}}}),
		"mise":       subcommandRunner(map[string]ArgSpec{"exec": {Short: "Cj", Long: []string{"cd", "jobs"}}, "x": {Short: "Cj", Long: []string{"cd", "jobs"}}}),
		"direnv":     subcommandRunner(map[string]ArgSpec{"exec": {Positional: 1}}),
		"dotenv":     simpleWrapper(ArgSpec{Short: "ecv", Long: []string{}}),
		"nix":        subcommandRunner(map[string]ArgSpec{"develop": {}, "shell": {}}),
	}
}

// unwrapMulticall handles busybox/toybox APPLET ARG…: the applet runs.
func unwrapMulticall(p *parser, cmd *Command, sc *scope) (int, bool) {
	if len(cmd.Args) > 1 && !strings.HasPrefix(cmd.Args[1].Value, "-") {
		return 1, true
	}
	return 0, false
}

// unwrapScreen handles screen [opts] CMD ARG… (a new session running
// CMD); -r, -x, -X, -ls, … talk to existing sessions and run nothing.
func unwrapScreen(p *parser, cmd *Command, sc *scope) (int, bool) {
	for _, a := range cmd.Args[1:] {
		v := a.Value
		if a.Dynamic || !strings.HasPrefix(v, "-") {
			break
		}
		if oneOfFold(v, "-r", "-R", "-x", "-X", "-ls", "-list", "-wipe", "-v", "-Q", "-help") || strings.HasPrefix(v, "-r") {
			return 0, false
		}
	}
	i := (&ArgSpec{Short: "cehpSsT"}).Skip(cmd.Args)
	return i, i > 0
}

// subcommandRunner unwraps "tool SUBCOMMAND [opts] CMD…" (bundle exec,
// uv run, poetry run, …).
func subcommandRunner(subs map[string]ArgSpec) unwrapFunc {
	return func(p *parser, cmd *Command, sc *scope) (int, bool) {
		if len(cmd.Args) < 3 {
			return 0, false
		}
		spec, ok := subs[cmd.Args[1].Value]
		if !ok || cmd.Args[1].Dynamic {
			return 0, false
		}
		name := cmd.Name()
		if name == "nix" {
			// nix develop … -c CMD / --command CMD
			for i := 2; i < len(cmd.Args)-1; i++ {
				if v := cmd.Args[i].Value; v == "-c" || v == "--command" {
					return i + 1, true
				}
			}
			return 0, false
		}
		sub := cmd.Args[1:]
		i := spec.Skip(sub)
		if i <= 0 {
			return 0, false
		}
		return i + 1, true
	}
}

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

// unwrapEnv handles env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… CMD.
func unwrapEnv(p *parser, cmd *Command, sc *scope) (int, bool) {
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
		val := Word{Value: args[i].Value[len(name)+1:], Taint: args[i].Taint}.fix()
		cmd.Assigns = append(cmd.Assigns, Assign{Name: name, Value: val})
		i++
	}
	if i >= len(args) {
		return -1, false
	}
	return i, true
}

func envChdir(cmd *Command, dir string) {
	if path.IsAbs(dir) {
		cmd.Dir, cmd.DirKnown = path.Clean(dir), true
	} else if cmd.DirKnown {
		cmd.Dir = path.Join(cmd.Dir, dir)
	}
}

// envSplit replaces env -S STRING by the words of STRING and goes on
// unwrapping from there.
func envSplit(cmd *Command, rest int, s string) (int, bool) {
	words := splitWords(s)
	args := make([]Word, 0, 1+len(words)+len(cmd.Args)-rest)
	args = append(args, Static("env"))
	for _, w := range words {
		args = append(args, Static(w))
	}
	args = append(args, cmd.Args[rest:]...)
	cmd.Args = args
	return unwrapEnv(nil, cmd, nil)
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

// unwrapXargs handles xargs [opts] CMD…: the command gets the items read
// from xargs' input as extra (dynamic) arguments.
func unwrapXargs(p *parser, cmd *Command, sc *scope) (int, bool) {
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
	item := Word{Value: "{xargs input}", Dynamic: true, Taint: input.Taint}
	if input.Kind == InputInherited {
		item.Value = "{xargs input}"
	}
	var inner []Word
	if i >= len(args) {
		inner = []Word{Static("echo")}
	} else {
		inner = append([]Word(nil), args[i:]...)
	}
	if input.TextKnown && len(input.Text) < 4096 && input.Taint == 0 {
		// The items are known: xargs runs the command with them.
		items := strings.Fields(input.Text)
		if repl != "" {
			for k := range inner {
				if !inner[k].Dynamic && strings.Contains(inner[k].Value, repl) && len(items) > 0 {
					v := strings.ReplaceAll(inner[k].Value, repl, items[0])
					inner[k] = Word{Value: v, Prefix: v}
				}
			}
		} else {
			for _, it := range items {
				inner = append(inner, Static(it))
			}
		}
	} else if repl != "" {
		for k := range inner {
			if !inner[k].Dynamic && strings.Contains(inner[k].Value, repl) {
				inner[k] = Word{Value: inner[k].Value, Dynamic: true, Prefix: inner[k].Value[:strings.Index(inner[k].Value, repl)], Taint: input.Taint}
			}
		}
	} else {
		inner = append(inner, item)
	}
	if !(input.TextKnown && input.Taint == 0) {
		cmd.ExtraArgs = true
	}
	// xargs itself reads the input; the command gets no stdin.
	cmd.Stdin = Input{Kind: InputText, TextKnown: true}
	wrapper := append([]Word(nil), args[:i]...)
	cmd.Args = append(wrapper, inner...)
	return i, true
}

// unwrapFlock handles flock [opts] FILE CMD… (flock … -c STRING is a
// nested script, see special).
func unwrapFlock(p *parser, cmd *Command, sc *scope) (int, bool) {
	for _, a := range cmd.Args[1:] {
		if a.Value == "-c" || a.Value == "--command" {
			return 0, false
		}
	}
	i := (&ArgSpec{Short: "wE", Long: []string{"timeout", "conflict-exit-code"}, Positional: 1}).Skip(cmd.Args)
	return i, i > 0
}

// unwrap peels wrappers off cmd.
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
		fn, ok := wrappers[name]
		if !ok {
			return
		}
		i, ok := fn(p, cmd, sc)
		if !ok || i <= 0 || i >= len(cmd.Args) {
			return
		}
		cmd.Wrappers = append(cmd.Wrappers, Wrapper{Name: name, Args: append([]Word(nil), cmd.Args[1:i]...)})
		if name == "sudo" || name == "doas" || name == "run0" {
			// sudo/doas accept VAR=value before the command.
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
