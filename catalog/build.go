package catalog

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Builds: make and its kin, compilers (the programs they build) and the
// package managers (what they install where, and the credential and
// settings files their login and config commands write).

var makeArgs = &shell.ArgSpec{Short: "CfIjlEoOW", Long: []string{"directory", "file", "makefile", "include-dir", "jobs", "load-average", "eval", "old-file", "assume-old", "what-if", "new-file", "assume-new", "output-sync", "debug", "jobserver-style"}, Abbrev: true}

var buildTools = map[string]*Tool{
	"make":  {Tool: shell.Tool{Args: makeArgs, Follow: followMake, Writes: makeWrites}},
	"gmake": {Tool: shell.Tool{Args: makeArgs, Follow: followMake, Writes: makeWrites}},
	"bmake": {Tool: shell.Tool{Args: makeArgs, Follow: followMake, Writes: makeWrites}},
	"cmake": {Tool: shell.Tool{Writes: makeWrites}},
	"ninja": buildsHere, "meson": buildsHere, "gradle": buildsHere, "mvn": buildsHere,
	"swift": buildsHere, "stack": buildsHere, "cabal": buildsHere, "bazel": buildsHere, "ant": buildsHere,
	"composer": {Tool: shell.Tool{Writes: installsInto("vendor", "install", "update", "require")}},
	"bundle":   {Tool: shell.Tool{Writes: installsInto("vendor/bundle", "install"), Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"exec": {}})}},
	"gcc":      compiler, "g++": compiler, "cc": compiler, "c++": compiler, "clang": compiler, "clang++": compiler,
	"rustc": compiler, "swiftc": compiler, "ghc": compiler, "gfortran": compiler, "tinygo": compiler, "ld": compiler,
	"nvcc": compiler, "as": outputs,
	"zig":   {Tool: shell.Tool{Writes: compilerWrites(false)}},
	"go":    {Tool: shell.Tool{Writes: goWrites, Follow: followGoRun}},
	"npm":   {Tool: shell.Tool{Writes: npmWrites, Unwrap: unwrapNpmExec, Follow: followNpmExec}, HomeWrites: npmHome},
	"pnpm":  {Tool: shell.Tool{Writes: npmWrites, Unwrap: unwrapNpmExec, Follow: followNpmExec}, HomeWrites: npmHome},
	"yarn":  {Tool: shell.Tool{Writes: npmWrites, Unwrap: unwrapNpmExec, Follow: followNpmExec}, HomeWrites: yarnHome},
	"pip":   {Tool: shell.Tool{Writes: pipWrites}, HomeWrites: pipHome},
	"pip3":  {Tool: shell.Tool{Writes: pipWrites}, HomeWrites: pipHome},
	"cargo": {Tool: shell.Tool{Writes: cargoWrites, Follow: followAfterDashes("run")}, HomeWrites: cargoHome},
	"gem":   {},
}

var compiler = &Tool{Tool: shell.Tool{Writes: compilerWrites(true)}}

// compilerWrites: a compiler's -o FILE is a program it builds; the files
// beside its sources change too (here).
func compilerWrites(here bool) func(c *shell.Command) shell.Writes {
	return func(c *shell.Command) shell.Writes {
		w := outputOption(c)
		w.Built = w.Files
		w.Here = here
		return w
	}
}

// goWrites: go build -o FILE builds a program (go test -o a test binary).
func goWrites(c *shell.Command) shell.Writes {
	args := c.Args
	if len(args) < 2 || !slices.Contains([]string{"build", "test"}, args[1].Value) {
		return shell.Writes{}
	}
	// Without -o, go build writes the program in the working directory.
	w := shell.Writes{BuiltHere: args[1].Value == "build"}
	for i, a := range args {
		if a.Value == "-o" && i+1 < len(args) {
			w.Files = append(w.Files, args[i+1])
			if !args[i+1].Dynamic {
				w.Built = append(w.Built, args[i+1])
			}
		}
	}
	return w
}

// makeWrites: make may change anything under its directory (-C DIR),
// and build programs there; so may cmake (-B DIR, --build DIR).
func makeWrites(c *shell.Command) shell.Writes {
	w := shell.Writes{Here: true, BuiltHere: true}
	for _, d := range anyArgs.Values(c.Args, "C", "directory", 0) {
		w.Dirs = append(w.Dirs, d)
		w.BuiltDirs = append(w.BuiltDirs, d)
	}
	if c.Name() == "cmake" {
		for _, d := range append(anyArgs.Values(c.Args, "B", "", 0), anyArgs.Values(c.Args, "", "build", 0)...) {
			w.Dirs = append(w.Dirs, d)
			w.BuiltDirs = append(w.BuiltDirs, d)
		}
	}
	return w
}

// buildsHere is a build tool that writes and builds programs under its
// working directory (ninja, meson, gradle, mvn, dotnet, swift, zig …).
var buildsHere = &Tool{Tool: shell.Tool{Writes: func(c *shell.Command) shell.Writes {
	w := shell.Writes{Here: true, BuiltHere: true}
	for _, d := range anyArgs.Values(c.Args, "C", "", 0) {
		w.Dirs = append(w.Dirs, d)
		w.BuiltDirs = append(w.BuiltDirs, d)
	}
	return w
}}}

// installs reports whether a command installs programs or packages.
func installs(c *shell.Command) bool {
	args := c.Args
	switch c.Name() {
	case "go", "cargo", "pip", "pip3", "npm", "pnpm", "yarn", "gem":
		return hasWord(args, "install", "i", "add", "get")
	case "make", "gmake", "cmake", "ninja", "meson":
		return hasWord(args, "install")
	}
	return false
}

// installEnv are variables that tell installers where to install.
var installEnv = map[string]bool{"GOBIN": true, "CARGO_HOME": true, "CARGO_INSTALL_ROOT": true, "PIP_TARGET": true,
	"PIP_PREFIX": true, "npm_config_prefix": true, "NPM_CONFIG_PREFIX": true, "PREFIX": true, "DESTDIR": true}

// installTargets are the places an installer is told by the environment
// to install to.
func installTargets(c *shell.Command) []shell.Word {
	var out []shell.Word
	for _, a := range c.Assigns {
		if installEnv[a.Name] && installs(c) {
			out = append(out, a.Value)
		}
	}
	return out
}

// npmWrites: npm, pnpm and yarn change the project (node_modules, whose
// .bin holds the programs they install), and --prefix/--cwd name other
// places.
func npmWrites(c *shell.Command) shell.Writes {
	w := shell.Writes{Here: true, BuiltDirs: []shell.Word{shell.Static("node_modules")}}
	w.Files = append(w.Files, anyArgs.Values(c.Args, "", "prefix", 2)...)
	w.Files = append(w.Files, anyArgs.Values(c.Args, "", "cwd", 2)...)
	return w
}

// pipWrites: pip -t/--target, --prefix, --root, --src name where it
// installs.
func pipWrites(c *shell.Command) shell.Writes {
	var w shell.Writes
	for _, o := range [][2]string{{"t", "target"}, {"", "prefix"}, {"", "root"}, {"", "src"}} {
		w.Files = append(w.Files, anyArgs.Values(c.Args, o[0], o[1], 2)...)
	}
	return w
}

// uvWrites: uv pip install writes like pip; uv venv creates a virtual
// environment.
func uvWrites(c *shell.Command) shell.Writes {
	var w shell.Writes
	if hasWord(c.Args, "pip") {
		w = pipWrites(c)
	}
	if len(c.Args) > 1 && c.Args[1].Value == "venv" {
		w.Venv = venvDir(c.Args[2:], ".venv")
	}
	if len(c.Args) > 1 && c.Args[1].Value == "sync" {
		w.BuiltDirs = append(w.BuiltDirs, shell.Static(".venv"))
	}
	return w
}

// cargoWrites: cargo --root and --target-dir name where it writes; it
// builds programs into target/ (or --target-dir).
func cargoWrites(c *shell.Command) shell.Writes {
	w := shell.Writes{BuiltDirs: []shell.Word{shell.Static("target")}}
	w.BuiltDirs = append(w.BuiltDirs, anyArgs.Values(c.Args, "", "target-dir", 2)...)
	w.Files = append(w.Files, anyArgs.Values(c.Args, "", "root", 2)...)
	w.Files = append(w.Files, anyArgs.Values(c.Args, "", "target-dir", 2)...)
	return w
}

func npmHome(c *shell.Command) []string {
	args := c.Args
	words := SubWords(c, 3)
	w := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	if loc, ok := anyArgs.Value(args, "L", "location"); ok && loc.Value == "project" || anyArgs.Has(args, "", "userconfig") {
		return nil
	}
	if slices.Contains([]string{"login", "adduser", "add-user", "logout"}, w(0)) || (slices.Contains([]string{"config", "c"}, w(0)) && slices.Contains([]string{"set", "delete", "edit", "fix"}, w(1))) || w(0) == "set" {
		return []string{".npmrc"}
	}
	return nil
}

func yarnHome(c *shell.Command) []string {
	words := SubWords(c, 3)
	w := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	if (w(0) == "config" && slices.Contains([]string{"set", "delete", "unset"}, w(1))) || (w(0) == "npm" && slices.Contains([]string{"login", "logout"}, w(1))) || w(0) == "login" {
		return []string{".yarnrc", ".yarnrc.yml"}
	}
	return nil
}

func pipHome(c *shell.Command) []string {
	if c.Name() == "uv" {
		return nil
	}
	words := SubWords(c, 3)
	if len(words) >= 2 && words[0] == "config" && slices.Contains([]string{"set", "unset", "edit"}, words[1]) && !anyArgs.Has(c.Args, "", "site") {
		return []string{".config/pip/pip.conf"}
	}
	return nil
}

func cargoHome(c *shell.Command) []string {
	if words := SubWords(c, 1); len(words) == 1 && slices.Contains([]string{"login", "logout"}, words[0]) {
		return []string{".cargo/credentials.toml"}
	}
	return nil
}

// followMake follows what make runs that the command line itself shows:
// SHELL=PROG (recipes run through PROG), --eval TEXT and a makefile fed
// on standard input (make -f -); makefiles on disk are not read.
func followMake(f *shell.Follower) {
	cmd := f.Cmd()
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		v := a.Value
		switch {
		case strings.HasPrefix(a.Prefix, "SHELL=") || strings.HasPrefix(a.Prefix, ".SHELLFLAGS="):
			_, val, _ := strings.Cut(v, "=")
			w := word(val, a.Dynamic, a.Taint)
			if strings.HasPrefix(v, "SHELL=") {
				f.Code(word(val+" -c :", a.Dynamic, a.Taint), shell.ConfigCommand)
			} else if w.Dynamic {
				f.Code(w, shell.ConfigCommand)
			}
		case v == "--eval" && i+1 < len(args):
			i++
			makefile(f, args[i])
		case strings.HasPrefix(v, "--eval="):
			makefile(f, after(a, len("--eval=")))
		case (v == "-f" || v == "--file" || v == "--makefile") && i+1 < len(args):
			i++
			mf := args[i]
			if !mf.Dynamic && (mf.Value == "-" || mf.Value == "/dev/stdin" || mf.Value == "/dev/fd/0" || mf.Value == "/proc/self/fd/0") {
				in := cmd.Stdin
				if in.TextKnown && in.Taint == 0 {
					makefile(f, shell.Static(in.Text))
				} else if in.Kind != shell.InputInherited {
					cmd.Script = &shell.ScriptRun{Kind: shell.ScriptStdin, Taint: in.Taint, Why: "the makefile comes from standard input"}
				}
			} else if mf.Proc {
				if mf.ContentKnown {
					makefile(f, shell.Static(mf.Content))
				} else {
					cmd.Script = &shell.ScriptRun{Kind: shell.ScriptPath, Path: mf, Taint: mf.Taint, Why: "the makefile comes from a process substitution"}
				}
			}
		}
	}
}

// makefile walks the shell code of makefile text: recipe lines and
// $(shell …) calls. Make variables stay unknown.
func makefile(f *shell.Follower, w shell.Word) {
	cmd := f.Cmd()
	cmd.Script = &shell.ScriptRun{Kind: shell.ScriptString, Taint: w.Taint}
	if w.Dynamic {
		cmd.Script.Why = "the makefile text is only known at run time"
		return
	}
	var code strings.Builder
	for _, line := range strings.Split(w.Value, "\n") {
		if strings.HasPrefix(line, "\t") {
			code.WriteString(makeToShell(strings.TrimLeft(line[1:], "@+- \t")))
			code.WriteByte('\n')
			continue
		}
		for rest := line; ; {
			k := strings.Index(rest, "$(shell ")
			if k < 0 {
				break
			}
			body := rest[k+8:]
			depth, end := 1, len(body)
			for j := 0; j < len(body); j++ {
				if body[j] == '(' {
					depth++
				} else if body[j] == ')' {
					if depth--; depth == 0 {
						end = j
						break
					}
				}
			}
			code.WriteString(makeToShell(body[:end]))
			code.WriteByte('\n')
			rest = body[min(end+1, len(body)):]
		}
		if _, after, ok := strings.Cut(line, ";"); ok && strings.Contains(line[:strings.IndexByte(line, ';')], ":") && !strings.Contains(line, "=") {
			// target: prereq ; recipe
			code.WriteString(makeToShell(after))
			code.WriteByte('\n')
		}
	}
	cmd.Script.Known = f.Shell(code.String(), shell.ShellC)
}

// makeToShell turns a make recipe line into shell text: $$ is $,
// $(shell X) runs X, other $(VAR) and ${VAR} references stay unknown.
func makeToShell(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch n := s[i+1]; {
		case n == '$':
			b.WriteByte('$')
			i++
		case n == '(' || n == '{':
			if strings.HasPrefix(s[i+2:], "shell ") {
				b.WriteString("$(")
				i += 7
				continue
			}
			closer := byte(')')
			if n == '{' {
				closer = '}'
			}
			end := strings.IndexByte(s[i+2:], closer)
			if end < 0 {
				b.WriteString("${MAKEVAR}")
				i = len(s)
				continue
			}
			b.WriteString("${MAKEVAR}")
			i += 2 + end
		default:
			b.WriteString("${MAKEVAR}")
			i++
		}
	}
	return b.String()
}

// npmExecArgs are the options of npm exec (npm x), pnpm exec/dlx and
// yarn exec/dlx that take a value; -c/--call is code run by a shell.
var npmExecArgs = &shell.ArgSpec{Short: "pcw", Long: []string{"package", "call", "workspace", "filter", "reporter", "loglevel"}, InOrder: true}

// npmExecSub returns the index of an npm, pnpm or yarn subcommand that
// runs a program (exec, x, dlx), or -1.
func npmExecSub(cmd *shell.Command) int {
	for a := range anyArgs.Args(cmd.Args) {
		if !a.Operand {
			continue
		}
		if !a.Value.Dynamic && slices.Contains([]string{"exec", "x", "dlx"}, a.Value.Value) {
			return a.At
		}
		return -1
	}
	return -1
}

// unwrapNpmExec: npm exec [--package P] [--] CMD ARG…, npx-style, runs
// CMD (not with -c CODE, which followNpmExec hands to a shell).
func unwrapNpmExec(cmd *shell.Command) (int, bool) {
	si := npmExecSub(cmd)
	if si < 0 {
		return 0, false
	}
	sub := cmd.Args[si:]
	if _, ok := npmExecArgs.Value(sub, "c", "call"); ok || cmd.Name() == "pnpm" && npmExecArgs.Has(sub, "c", "shell-mode") {
		return 0, false
	}
	i := npmExecArgs.Skip(sub)
	if i <= 0 {
		return 0, false
	}
	return si + i, true
}

// followNpmExec: npm exec -c CODE and pnpm exec -c CMD… run code in a
// shell.
func followNpmExec(f *shell.Follower) {
	cmd := f.Cmd()
	si := npmExecSub(cmd)
	if si < 0 {
		return
	}
	sub := cmd.Args[si:]
	if w, ok := npmExecArgs.Value(sub, "c", "call"); ok && cmd.Name() != "pnpm" {
		f.Script(w)
		return
	}
	if cmd.Name() == "pnpm" && npmExecArgs.Has(sub, "c", "shell-mode") {
		f.Joined(npmExecArgs.Operands(sub))
	}
}

// followAfterDashes: SUB [opts] -- ARG… hands ARG… to a program the
// classifier cannot see (cargo run -- ARG…): they are presumed to be a
// command it may run.
func followAfterDashes(subs ...string) func(f *shell.Follower) {
	return func(f *shell.Follower) {
		args := f.Cmd().Args
		ops := anyArgs.Operands(args)
		if len(ops) == 0 || !slices.Contains(subs, ops[0].Value) {
			return
		}
		for i, a := range args {
			if a.Value == "--" && !a.Dynamic {
				f.Presume(args[i+1:])
				return
			}
		}
	}
}

// goValueFlags are go build's flags that take a value (single-dash long
// names, as Go's flag package reads them).
var goValueFlags = []string{"tags", "ldflags", "gcflags", "asmflags", "gccgoflags", "mod", "modfile", "overlay", "pkgdir",
	"toolexec", "exec", "buildmode", "compiler", "installsuffix", "pgo", "covermode", "coverpkg", "p", "C", "o", "cover"}

// followGoRun: go run [build flags] PACKAGE|FILES… ARG… runs a program
// the classifier cannot see with ARG…: they are presumed a command it may
// run; -exec PROG and -toolexec PROG run programs.
func followGoRun(f *shell.Follower) {
	args := f.Cmd().Args
	if len(args) < 3 || args[1].Value != "run" {
		return
	}
	i := 2
	for i < len(args) {
		a := args[i]
		if a.Dynamic || !strings.HasPrefix(a.Value, "-") || a.Value == "-" {
			break
		}
		i++
		if a.Value == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a.Value, "-"), "=")
		if !slices.Contains(goValueFlags, name) {
			continue
		}
		v := word(val, a.Dynamic, a.Taint)
		if !hasVal {
			if i >= len(args) {
				return
			}
			v = args[i]
			i++
		}
		if name == "exec" || name == "toolexec" {
			f.Code(v, shell.ShellC)
		}
	}
	if i >= len(args) {
		return
	}
	// The package, or its .go files.
	i++
	for i < len(args) && strings.HasSuffix(args[i].Value, ".go") {
		i++
	}
	if i < len(args) {
		f.Presume(args[i:])
	}
}

// installsInto is a package manager that installs programs into dir
// (composer's vendor/bin) when one of subs is its subcommand.
func installsInto(dir string, subs ...string) func(c *shell.Command) shell.Writes {
	return func(c *shell.Command) shell.Writes {
		if w := SubWords(c, 1); len(w) == 1 && slices.Contains(subs, w[0]) {
			return shell.Writes{Here: true, BuiltDirs: []shell.Word{shell.Static(dir)}}
		}
		return shell.Writes{}
	}
}
