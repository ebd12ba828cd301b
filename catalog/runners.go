package catalog

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Runners run a command or code given to them: task runners and
// environment managers (uv run, poetry run, direnv exec), watchers and
// benchmarks (watch, entr, hyperfine), and GNU parallel.

var parallelArgs = &shell.ArgSpec{Short: "jPSadIinNLsCE", Long: []string{"jobs", "sshlogin", "arg-file", "delimiter", "joblog", "results", "tmpdir", "colsep", "delay", "timeout", "retries", "max-args", "max-replace-args", "workdir", "env", "halt", "memfree", "load", "basefile", "return", "transfer-file", "sshloginfile"}}
var watchArgs = &shell.ArgSpec{Short: "nq", Long: []string{"interval", "equexit"}}
var condaRun = map[string]*shell.ArgSpec{"run": {Short: "np", Long: []string{"name", "prefix", "cwd"}}}
var miseExec = &shell.ArgSpec{Short: "Cj", Long: []string{"cd", "jobs"}}

var runnerTools = map[string]*Tool{
	"watch":  {Tool: shell.Tool{Args: watchArgs, Unwrap: unwrapWatch, Follow: followWatch}},
	"entr":   {Tool: shell.Tool{Unwrap: unwrapEntr, Follow: followEntr}},
	"npx":    {Tool: shell.Tool{Args: npxArgs, Unwrap: unwrapNpx, Runs: []shell.CodeArg{{Short: "c", Long: "call"}}}},
	"bunx":   {Tool: shell.Tool{Args: npxArgs, Unwrap: unwrapNpx}},
	"uvx":    {Tool: shell.Tool{Args: uvxArgs, Unwrap: func(c *shell.Command) (int, bool) { i := uvxArgs.Skip(c.Args); return i, i > 0 }}},
	"pipx":   {Tool: shell.Tool{Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"run": {Long: []string{"spec", "python", "pip-args", "index-url"}, InOrder: true}})}},
	"dotnet": {Tool: shell.Tool{Follow: followAfterDashes("run")}},
	"uv": {Tool: shell.Tool{Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"run": {Short: "pw", Long: []string{"with", "python", "project", "directory", "env-file", "group", "extra", "package", "index", "with-requirements", "with-editable", "only-group", "no-group", "default-index", "index-url", "extra-index-url", "find-links", "cache-dir", "config-file"}}}),
		Writes: uvWrites}, HomeWrites: pipHome},
	"poetry":     {Tool: shell.Tool{Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"run": {}}), Writes: installsInto(".venv", "install", "sync")}},
	"pipenv":     {Tool: shell.Tool{Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"run": {}})}},
	"pdm":        {Tool: shell.Tool{Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"run": {}})}},
	"hatch":      {Tool: shell.Tool{Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"run": {}})}},
	"conda":      {Tool: shell.Tool{Unwrap: subcommandRunner(condaRun)}},
	"mamba":      {Tool: shell.Tool{Unwrap: subcommandRunner(condaRun)}},
	"micromamba": {Tool: shell.Tool{Unwrap: subcommandRunner(condaRun)}},
	"mise":       {Tool: shell.Tool{Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"exec": miseExec, "x": miseExec})}},
	"direnv":     {Tool: shell.Tool{Unwrap: subcommandRunner(map[string]*shell.ArgSpec{"exec": {Positional: 1}})}},
	"nix":        {Tool: shell.Tool{Unwrap: unwrapNix, Follow: followAfterDashes("run")}},
	"nix-shell":  runsCode(&shell.ArgSpec{Long: []string{"run", "command"}}, shell.CodeArg{Long: "run"}, shell.CodeArg{Long: "command"}),
	"parallel":   {Tool: shell.Tool{Args: parallelArgs, Follow: followParallel}},
	"hyperfine":  {Tool: shell.Tool{Follow: followHyperfine}},
}

// unwrapWatch: only watch -x runs its argv directly; otherwise the words
// are joined and run by a shell (followWatch).
func unwrapWatch(cmd *shell.Command) (int, bool) {
	for _, a := range cmd.Args[1:] {
		if a.Value == "-x" || a.Value == "--exec" {
			i := watchArgs.Skip(cmd.Args)
			return i, i > 0
		}
		if !strings.HasPrefix(a.Value, "-") {
			break
		}
	}
	return 0, false
}

func followWatch(f *shell.Follower) {
	if i := watchArgs.Skip(f.Cmd().Args); i > 0 {
		f.Joined(f.Cmd().Args[i:])
	}
}

// unwrapEntr: entr CMD ARG… runs the command (entr -s CODE hands it to a
// shell).
func unwrapEntr(cmd *shell.Command) (int, bool) {
	for _, a := range cmd.Args[1:] {
		if strings.HasPrefix(a.Value, "-") && strings.Contains(a.Value, "s") {
			return 0, false
		}
	}
	i := anyArgs.Skip(cmd.Args)
	return i, i > 0
}

var npxArgs = &shell.ArgSpec{Short: "pc", Long: []string{"package", "call", "workspace", "registry", "cache", "userconfig"}, InOrder: true}
var uvxArgs = &shell.ArgSpec{Short: "pw", Long: []string{"from", "with", "with-editable", "with-requirements", "python", "index",
	"default-index", "index-url", "extra-index-url", "find-links", "cache-dir", "config-file", "directory", "project", "env-file"}, InOrder: true}

// unwrapNpx: npx [opts] CMD ARG… runs CMD (not npx -c CODE). A package
// spec (@scope/name, name@version, github:user/repo, a URL) is not a
// command or a file: npx runs that package's program, judged like any
// program (a stdio MCP server: npx -y @modelcontextprotocol/server-github).
func unwrapNpx(cmd *shell.Command) (int, bool) {
	if _, ok := npxArgs.Value(cmd.Args, "c", "call"); ok {
		return 0, false
	}
	i := npxArgs.Skip(cmd.Args)
	if i > 0 && i < len(cmd.Args) && packageSpec(cmd.Args[i]) {
		return 0, false
	}
	return i, i > 0
}

// packageSpec reports whether w names a package from a registry or a
// remote repository rather than a program or a local path: scoped,
// versioned, or a remote spec. A local spec (a path, a drive letter,
// file:, git+file:) is not one: its code is the project's, judged as the
// path it names.
func packageSpec(w shell.Word) bool {
	v := w.Value
	if w.Dynamic || v == "" || strings.ContainsAny(v[:1], "./~\\") || strings.Contains(v, "\\") {
		return false
	}
	if len(v) >= 2 && v[1] == ':' {
		return false // C:, C:\x.js
	}
	low := strings.ToLower(v)
	if strings.HasPrefix(low, "file:") || strings.HasPrefix(low, "git+file:") {
		return false
	}
	return strings.Contains(v, "@") || strings.Contains(v, ":")
}

// followEntr: entr -s CODE hands CODE to a shell.
func followEntr(f *shell.Follower) {
	args := f.Cmd().Args
	if anyArgs.Has(args, "s") {
		if ops := anyArgs.Operands(args); len(ops) > 0 {
			f.Script(ops[0])
		}
	}
}

// unwrapNix handles nix develop|shell … -c CMD / --command CMD.
func unwrapNix(cmd *shell.Command) (int, bool) {
	if len(cmd.Args) < 3 || cmd.Args[1].Dynamic || !slices.Contains([]string{"develop", "shell"}, cmd.Args[1].Value) {
		return 0, false
	}
	for i := 2; i < len(cmd.Args)-1; i++ {
		if v := cmd.Args[i].Value; v == "-c" || v == "--command" {
			return i + 1, true
		}
	}
	return 0, false
}

// subcommandRunner unwraps "tool SUBCOMMAND [opts] CMD…" (bundle exec,
// uv run, poetry run, …).
func subcommandRunner(subs map[string]*shell.ArgSpec) func(cmd *shell.Command) (int, bool) {
	return func(cmd *shell.Command) (int, bool) {
		if len(cmd.Args) < 3 {
			return 0, false
		}
		spec, ok := subs[cmd.Args[1].Value]
		if !ok || cmd.Args[1].Dynamic {
			return 0, false
		}
		i := spec.Skip(cmd.Args[1:])
		if i <= 0 {
			return 0, false
		}
		return i + 1, true
	}
}

var parallelPlaceholder = strings.NewReplacer("{}", `"$PARALLEL_ITEM"`, "{.}", `"$PARALLEL_ITEM"`, "{/}", `"$PARALLEL_ITEM"`,
	"{//}", `"$PARALLEL_ITEM"`, "{/.}", `"$PARALLEL_ITEM"`, "{#}", `"$PARALLEL_ITEM"`, "{%}", `"$PARALLEL_ITEM"`)

// followParallel follows GNU parallel: the command words are joined and
// run by a shell; without them each input is a command line.
func followParallel(f *shell.Follower) {
	cmd := f.Cmd()
	args := cmd.Args
	i := parallelArgs.Skip(args)
	var words []shell.Word
	sep := len(args)
	if i > 0 {
		for k := i; k < len(args); k++ {
			if v := args[k].Value; v == ":::" || v == "::::" || v == ":::+" || v == "::::+" {
				sep = k
				break
			}
		}
		words = args[i:sep]
	}
	if len(words) > 0 {
		var parts []string
		for _, w := range words {
			if w.Dynamic {
				cmd.Script = &shell.ScriptRun{Kind: shell.ScriptString, Why: "the command is only known at run time", Taint: taintOf(words)}
				return
			}
			parts = append(parts, parallelPlaceholder.Replace(w.Value))
		}
		cmd.Script = &shell.ScriptRun{Kind: shell.ScriptString}
		cmd.Script.Known = f.Shell(strings.Join(parts, " "), shell.Wrapped)
		return
	}
	// No command: every input is a command line.
	if sep < len(args) && args[sep].Value == ":::" {
		cmd.Script = &shell.ScriptRun{Kind: shell.ScriptString, Known: true}
		for _, w := range args[sep+1:] {
			if v := w.Value; v == ":::" || v == "::::" {
				break
			}
			if w.Dynamic {
				cmd.Script.Known = false
				cmd.Script.Why = "the command is only known at run time"
				cmd.Script.Taint |= w.Taint
				continue
			}
			if !f.Shell(w.Value, shell.Wrapped) {
				cmd.Script.Known = false
			}
		}
		return
	}
	f.Stdin(nil)
}

// hyperfineValues are hyperfine's options and how many values each takes.
var hyperfineValues = map[string]int{"-w": 1, "--warmup": 1, "-r": 1, "--runs": 1, "-m": 1, "--min-runs": 1, "-M": 1, "--max-runs": 1,
	"-L": 2, "--parameter-list": 2, "-P": 3, "--parameter-scan": 3, "-D": 1, "--parameter-step-size": 1, "-S": 1, "--shell": 1,
	"-n": 1, "--command-name": 1, "--export-asciidoc": 1, "--export-csv": 1, "--export-json": 1, "--export-markdown": 1,
	"--export-orgmode": 1, "--output": 1, "--style": 1, "--sort": 1, "-u": 1, "--time-unit": 1, "--input": 1, "--min-benchmarking-time": 1}

// hyperfineCode are hyperfine's options whose value is a command.
var hyperfineCode = map[string]bool{"-p": true, "--prepare": true, "-c": true, "--cleanup": true, "-s": true, "--setup": true, "--conclude": true, "--reference": true}

// followHyperfine: hyperfine runs each of its command arguments (and
// --prepare, --cleanup, --setup, --conclude, --reference values) with a
// shell.
func followHyperfine(f *shell.Follower) {
	args := f.Cmd().Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		if n, ok := hyperfineValues[v]; ok && !args[i].Dynamic {
			i += n
			continue
		}
		if hyperfineCode[v] && i+1 < len(args) {
			i++
			f.Code(args[i], shell.ShellC)
			continue
		}
		if strings.HasPrefix(v, "-") && !args[i].Dynamic {
			continue
		}
		f.Code(args[i], shell.ShellC)
	}
}

func taintOf(ws []shell.Word) shell.Taint {
	var t shell.Taint
	for _, w := range ws {
		t |= w.Taint
	}
	return t
}
