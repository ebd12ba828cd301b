package shell

import (
	"path"
	"strings"
	"unicode/utf8"
)

// optSpec describes a wrapper's options well enough to find the command
// it runs.
type optSpec struct {
	shortVal   string   // short options that take a value
	longVal    []string // long options that take a value (without --)
	stop       string   // short options after which there is no command
	stopLong   []string // long options after which there is no command
	positional int      // arguments between the options and the command
}

// skipOpts returns the index of the wrapped command in args (args[0] is
// the wrapper), or -1 when there is none.
func skipOpts(args []Word, spec optSpec) int {
	i := 1
	for i < len(args) {
		a := args[i]
		if a.Dynamic {
			return i
		}
		v := a.Value
		if v == "--" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			name := v[2:]
			if strings.Contains(name, "=") {
				i++
				continue
			}
			for _, s := range spec.stopLong {
				if s == name {
					return -1
				}
			}
			takes := false
			for _, l := range spec.longVal {
				if l == name {
					takes = true
				}
			}
			if takes {
				i += 2
			} else {
				i++
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' {
			skipNext := false
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte(spec.stop, c) >= 0 {
					return -1
				}
				if strings.IndexByte(spec.shortVal, c) >= 0 {
					if j == len(v)-1 {
						skipNext = true
					}
					break
				}
			}
			i++
			if skipNext {
				i++
			}
			continue
		}
		break
	}
	i += spec.positional
	if i >= len(args) {
		return -1
	}
	return i
}

type unwrapFunc func(p *parser, cmd *Command, sc *scope) (inner int, ok bool)

func simpleWrapper(spec optSpec) unwrapFunc {
	return func(p *parser, cmd *Command, sc *scope) (int, bool) {
		i := skipOpts(cmd.Args, spec)
		return i, i > 0
	}
}

// wrappers run the command that follows their options; the classifier
// judges that command (and, for some, the wrapper itself).
var wrappers map[string]unwrapFunc

func init() {
	wrappers = map[string]unwrapFunc{
		"env":                 unwrapEnv,
		"command":             simpleWrapper(optSpec{stop: "vV"}),
		"builtin":             simpleWrapper(optSpec{}),
		"exec":                simpleWrapper(optSpec{shortVal: "a"}),
		"nice":                simpleWrapper(optSpec{shortVal: "n", longVal: []string{"adjustment"}}),
		"ionice":              simpleWrapper(optSpec{shortVal: "cn", stop: "pPu", longVal: []string{"class", "classdata"}, stopLong: []string{"pid", "pgid", "uid"}}),
		"nohup":               simpleWrapper(optSpec{}),
		"timeout":             simpleWrapper(optSpec{shortVal: "sk", longVal: []string{"signal", "kill-after"}, positional: 1}),
		"gtimeout":            simpleWrapper(optSpec{shortVal: "sk", longVal: []string{"signal", "kill-after"}, positional: 1}),
		"time":                simpleWrapper(optSpec{shortVal: "fo", longVal: []string{"format", "output"}}),
		"stdbuf":              simpleWrapper(optSpec{shortVal: "ioe", longVal: []string{"input", "output", "error"}}),
		"setsid":              simpleWrapper(optSpec{}),
		"taskset":             simpleWrapper(optSpec{stop: "p", stopLong: []string{"pid"}, positional: 1}),
		"chrt":                simpleWrapper(optSpec{shortVal: "TPD", stop: "p", stopLong: []string{"pid"}, positional: 1}),
		"unbuffer":            simpleWrapper(optSpec{}),
		"busybox":             unwrapMulticall,
		"toybox":              unwrapMulticall,
		"screen":              unwrapScreen,
		"sudo":                simpleWrapper(optSpec{shortVal: "CDgpRrTtUu", stop: "elvVK", longVal: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "command-timeout", "type", "other-user", "user"}, stopLong: []string{"edit", "list", "validate", "version", "remove-timestamp"}}),
		"doas":                simpleWrapper(optSpec{shortVal: "uC", stop: "L"}),
		"sudo-rs":             simpleWrapper(optSpec{shortVal: "CDgpRrTtUu", stop: "elvVK", longVal: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "command-timeout", "type", "other-user", "user"}, stopLong: []string{"edit", "list", "validate", "version", "remove-timestamp"}}),
		"dzdo":                simpleWrapper(optSpec{shortVal: "CDgpRrTtUu", stop: "elvVK", longVal: []string{"user", "group"}}),
		"pbrun":               simpleWrapper(optSpec{shortVal: "uhb"}),
		"please":              simpleWrapper(optSpec{shortVal: "tdcr", longVal: []string{"target", "dir", "cmd", "reason"}, stop: "le"}),
		"pfexec":              simpleWrapper(optSpec{shortVal: "P"}),
		"gosu":                simpleWrapper(optSpec{positional: 1}),
		"su-exec":             simpleWrapper(optSpec{positional: 1}),
		"chpst":               simpleWrapper(optSpec{shortVal: "uUe/nlLmdofcrpt"}),
		"setpriv":             simpleWrapper(optSpec{longVal: []string{"reuid", "regid", "ruid", "euid", "rgid", "egid", "groups", "inh-caps", "ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access", "landlock-rule", "ptracer"}, stopLong: []string{"dump", "list-caps"}, stop: "d"}),
		"fakeroot":            simpleWrapper(optSpec{shortVal: "ls", longVal: []string{"lib", "faked"}}),
		"distrobox-host-exec": simpleWrapper(optSpec{}),
		"pkexec":              simpleWrapper(optSpec{longVal: []string{"user"}}),
		"run0":                simpleWrapper(optSpec{shortVal: "ugD", longVal: []string{"user", "group", "chdir", "setenv", "property", "unit", "description", "slice", "machine", "nice", "background"}}),
		"strace":              simpleWrapper(optSpec{shortVal: "abeEIoOpPsSuUX", longVal: []string{"output", "trace", "signal", "string-limit", "user", "env"}}),
		"ltrace":              simpleWrapper(optSpec{shortVal: "aAeEIlnoOpsSuwX", longVal: []string{"output", "library"}}),
		"valgrind":            simpleWrapper(optSpec{}),
		"caffeinate":          simpleWrapper(optSpec{shortVal: "tw"}),
		"chroot":              simpleWrapper(optSpec{longVal: []string{"userspec", "groups"}, positional: 1}),
		"unshare":             simpleWrapper(optSpec{shortVal: "S G", longVal: []string{"setuid", "setgid", "wd", "root"}}),
		"nsenter":             simpleWrapper(optSpec{shortVal: "tSG", longVal: []string{"target", "setuid", "setgid"}}),
		"firejail":            simpleWrapper(optSpec{}),
		"proxychains":         simpleWrapper(optSpec{shortVal: "f"}),
		"proxychains4":        simpleWrapper(optSpec{shortVal: "f"}),
		"torsocks":            simpleWrapper(optSpec{shortVal: "uaPp"}),
		"tsocks":              simpleWrapper(optSpec{}),
		"dbus-run-session":    simpleWrapper(optSpec{longVal: []string{"config-file", "dbus-daemon"}}),
		"systemd-run":         simpleWrapper(optSpec{shortVal: "upEMHs", longVal: []string{"unit", "property", "setenv", "machine", "host", "description", "slice", "uid", "gid", "working-directory", "nice", "on-active", "on-calendar", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "timer-property", "path-property", "socket-property", "service-type", "expand-environment"}}),
		"runuser":             simpleWrapper(optSpec{shortVal: "ugGcsw", longVal: []string{"user", "group", "supp-group", "command", "shell", "whitelist-environment", "session-command"}}),
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
					i := skipOpts(cmd.Args, optSpec{shortVal: "nq", longVal: []string{"interval", "equexit"}})
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
			i := skipOpts(cmd.Args, optSpec{})
			return i, i > 0
		},
		"bundle":     subcommandRunner(map[string]optSpec{"exec": {}}),
		"uv":         subcommandRunner(map[string]optSpec{"run": {shortVal: "pw", longVal: []string{"with", "python", "project", "directory", "env-file", "group", "extra", "package", "index", "with-requirements", "with-editable", "only-group", "no-group", "default-index", "index-url", "extra-index-url", "find-links", "cache-dir", "config-file"}}}),
		"poetry":     subcommandRunner(map[string]optSpec{"run": {}}),
		"pipenv":     subcommandRunner(map[string]optSpec{"run": {}}),
		"pdm":        subcommandRunner(map[string]optSpec{"run": {}}),
		"hatch":      subcommandRunner(map[string]optSpec{"run": {}}),
		"conda":      subcommandRunner(map[string]optSpec{"run": {shortVal: "np", longVal: []string{"name", "prefix", "cwd"}}}),
		"mamba":      subcommandRunner(map[string]optSpec{"run": {shortVal: "np", longVal: []string{"name", "prefix", "cwd"}}}),
		"micromamba": subcommandRunner(map[string]optSpec{"run": {shortVal: "np", longVal: []string{"name", "prefix", "cwd"}}}),
		"mise":       subcommandRunner(map[string]optSpec{"exec": {shortVal: "Cj", longVal: []string{"cd", "jobs"}}, "x": {shortVal: "Cj", longVal: []string{"cd", "jobs"}}}),
		"direnv":     subcommandRunner(map[string]optSpec{"exec": {positional: 1}}),
		"dotenv":     simpleWrapper(optSpec{shortVal: "ecv", longVal: []string{}}),
		"nix":        subcommandRunner(map[string]optSpec{"develop": {}, "shell": {}}),
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
	i := skipOpts(cmd.Args, optSpec{shortVal: "cehpSsT"})
	return i, i > 0
}

// subcommandRunner unwraps "tool SUBCOMMAND [opts] CMD…" (bundle exec,
// uv run, poetry run, …).
func subcommandRunner(subs map[string]optSpec) unwrapFunc {
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
		i := skipOpts(sub, spec)
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
	i := skipOpts(cmd.Args, optSpec{shortVal: "wE", longVal: []string{"timeout", "conflict-exit-code"}, positional: 1})
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
