package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/cmd/safeexec/internal/early"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/internal/prelaunch"
	"github.com/safeexec/safeexec/internal/startup"
	"github.com/safeexec/safeexec/netallow"
	"github.com/safeexec/safeexec/sandbox"
	"github.com/safeexec/safeexec/toolcache"
)

// version is set with -ldflags "-X main.version=..."; otherwise it comes
// from the build information.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// exitError carries an exit code out of an action. Its message, when not
// empty, is printed as "safeexec: <msg>".
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func exitf(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// env is the process environment of one run of the CLI.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	lookupEnv      func(string) (string, bool)
	environ        []string
	cwd            string
	home           string
	inv            *invocation
	prompter       safeexec.Prompter
	// jsonRun is set for a run with --json: errors are printed as a JSON
	// result; jsonDone once one was printed.
	jsonRun, jsonDone bool
	// outerRun is the safeexec run whose sandbox this one is in, once
	// looked for (outerDone).
	outerRun  *safeexec.Outer
	outerErr  error
	outerDone bool
	// raise is a signal to end with once everything is written (one that
	// arrived while a question was shown).
	raise os.Signal
	// ahead is a plain run's sandbox started ahead.
	ahead *safeexec.Ahead
}

// onTerminal reports whether stdin and stdout are both terminals.
func onTerminal(stdin io.Reader, stdout io.Writer) bool {
	in, ok1 := stdin.(*os.File)
	out, ok2 := stdout.(*os.File)
	return ok1 && ok2 && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}

// aheadSpec describes this plain run for StartAhead.
func (e *env) aheadSpec() safeexec.AheadSpec {
	inv := e.inv
	spec := safeexec.AheadSpec{Cwd: e.cwd, Flags: inv.Flags, Script: inv.HasScript, Environ: e.environ,
		Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Now: true}
	spec.StateDir = early.StateDir(e.getenv, e.home)
	spec.Tail = inv.Tail()
	return spec
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A sandbox started early (package early) and not taken by this run
	// is killed before it ends.
	defer prelaunch.CancelEarly()
	if len(args) > 1 {
		switch args[1] {
		case "__bridge", "__winhelper", "__gocache":
			startup.Restore()
		}
		switch args[1] {
		case "__bridge":
			// Inside the sandbox, beside the command: keep its memory
			// and environment out of the command's reach.
			sandbox.Harden()
			return netallow.RunBridge(args[2:])
		case "__winhelper":
			return sandbox.RunWindowsHelper(args[2:])
		case "__gocache":
			return toolcache.RunGoCache(args[2:])
		}
	}
	// A Windows run killed before it could undo its ACL changes left a
	// journal: undo it now (nothing to do elsewhere, or when none is left).
	sandbox.RecoverWindowsACL(stderr)
	e := &env{
		stdin: stdin, stdout: stdout, stderr: stderr,
		getenv: os.Getenv, lookupEnv: os.LookupEnv, environ: os.Environ(),
		prompter: ttyPrompter{getenv: os.Getenv},
	}
	var code int
	if name := shimName(args[0]); name != "" {
		startup.Restore()
		code = e.shim(name, args[1:])
	} else {
		code = e.main(args)
	}
	if e.raise != nil {
		raiseSignal(e.raise)
	}
	return code
}

func (e *env) main(args []string) int {
	inv, err := parseInvocation(args[1:])
	if err != nil {
		e.jsonRun = wantsJSON(args[1:])
		return e.exitCode(err)
	}
	e.inv = inv
	e.jsonRun = inv.Sub == "" && wantsJSON(inv.Flags) || inv.Sub == "helper"
	if inv.Sub != "" {
		// One command keeps the one processor it started with (package
		// startup): it is enough for safeexec's own work (the proxy
		// included), and a second one busy with Go's own bookkeeping slows
		// bwrap, which builds the sandbox meanwhile, more than it speeds
		// safeexec. serve, and the other subcommands, get them all.
		startup.Restore()
	}
	if e.cwd, err = os.Getwd(); err != nil {
		fmt.Fprintf(e.stderr, "safeexec: working directory: %v\n", err)
		return safeexec.ExitCodeError
	}
	if e.home, err = os.UserHomeDir(); err != nil {
		// Without a home, ~ paths cannot be protected: refuse rather than
		// guess.
		fmt.Fprintf(e.stderr, "safeexec: %v; set HOME\n", err)
		return safeexec.ExitCodeError
	}

	// A plain run starts its sandbox now, as the last such run here
	// started it, while the policy is loaded and the command judged: it
	// is used only if it turns out to be the very sandbox the run needs.
	// (Not with --json, nor on a terminal: the command's output is
	// captured, or it gets a pseudo-terminal of its own, so the sandbox
	// could never be the one started ahead with safeexec's own stdio.)
	if inv.Sub == "" && (inv.HasArgv || inv.HasScript) && !e.jsonRun && !onTerminal(e.stdin, e.stdout) &&
		e.getenv("SAFEEXEC_NESTED") == "" {
		e.ahead = safeexec.StartAhead(e.aheadSpec())
		defer e.ahead.Close()
	}

	// A plain run reads its flags directly when urfave/cli would read
	// them the same (plainflags.go).
	if inv.Sub == "" && (inv.HasArgv || inv.HasScript) {
		if pf, ok := parsePlainFlags(inv.Flags); ok {
			return e.exitCode(e.runPlain(pf))
		}
	}

	app := e.app()
	hoistGlobals(inv, app.Commands)
	uargs := append([]string{"safeexec"}, inv.Flags...)
	if inv.Sub != "" {
		uargs = append(uargs, inv.Sub)
		uargs = append(uargs, inv.SubArgs...)
	}
	err = app.Run(uargs)
	return e.exitCode(err)
}

// exitCode prints err (if any) and maps it to safeexec's exit codes. In
// --json run mode the error is printed as a JSON result instead.
func (e *env) exitCode(err error) int {
	if err == nil {
		return 0
	}
	code, msg := safeexec.ExitCodeError, err.Error()
	var xe *exitError
	var re *safeexec.RefusedError
	switch {
	case errors.As(err, &xe):
		code = xe.code
	case errors.As(err, &re):
		code = safeexec.ExitCodeRefused
	}
	if e.jsonRun && !e.jsonDone {
		res := safeexec.ErrorResult(errors.New(msg))
		res.ExitCode = code
		e.printJSON(res)
		return code
	}
	if msg != "" {
		fmt.Fprintf(e.stderr, "safeexec: %s\n", msg)
	}
	return code
}

var (
	flagConfig = &cli.StringFlag{Name: "config", Usage: "use this config file instead of the user's", TakesFile: true}
	flagMode   = &cli.StringFlag{Name: "mode", Usage: "sandbox mode: strict, compat or permissive"}
	flagSbx    = &cli.StringFlag{Name: "sandbox", Usage: "backend: auto, bwrap, landlock, seatbelt, windows or none (none: every command needs confirmation)"}
	flagWrite  = &cli.StringSliceFlag{Name: "allow-write", Usage: "also make `DIR` writable (repeatable)"}
	flagDomain = &cli.StringSliceFlag{Name: "allow-domain", Usage: "also allow network access to `DOMAIN` (repeatable; denied_domains still win)"}
	flagNoNet  = &cli.BoolFlag{Name: "no-network", Usage: "no network at all for this run"}
	flagYes    = &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve a command that needs confirmation (never a risky one)"}
	flagTime   = &cli.DurationFlag{Name: "timeout", Usage: "stop the command after `DUR` (exit 124)"}
	flagShell  = &cli.StringFlag{Name: "shell", Usage: "the `SHELL` that runs -c scripts, and whose language they are classified in: auto, bash, powershell, pwsh or cmd"}
	flagVer    = &cli.BoolFlag{Name: "version", Usage: "print the version"}
	flagJSON   = &cli.BoolFlag{Name: "json", Usage: "print one JSON object with the exit code, the output and the verdict instead of streaming"}
	flagLimit  = &cli.StringFlag{Name: "output-limit", Usage: "with --json, keep only the newest `BYTES` of each stream (K, M, G suffixes; 0: no limit)"}
	flagCI     = &cli.BoolFlag{Name: "ci", Usage: "a CI job (also CI=true): never prompt; the runner's protocol files ($GITHUB_ENV, $GITHUB_OUTPUT, …) are writable; refusals name the allow rule that would approve"}
)

func (e *env) app() *cli.App {
	cli.HelpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help"}
	app := &cli.App{
		Name:      "safeexec",
		Usage:     "run a command classified, sandboxed, secret-free and audited",
		UsageText: usageText,
		Version:   versionString(),
		Flags: []cli.Flag{
			flagConfig, flagMode, flagSbx, flagWrite, flagDomain, flagNoNet, flagYes, flagTime, flagShell, flagVer,
			flagJSON, flagLimit, flagCI,
		},
		HideVersion:     true,
		HideHelpCommand: true,
		Writer:          e.stderr,
		ErrWriter:       e.stderr,
		ExitErrHandler:  func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return exitf(safeexec.ExitCodeError, "%v (see safeexec --help)", err)
		},
		CommandNotFound: func(c *cli.Context, name string) {},
		Action:          e.runAction,
		Commands: []*cli.Command{
			e.checkCommand(),
			e.auditCommand(),
			e.doctorCommand(),
			e.configCommand(),
			e.hookCommand(),
			e.helperCommand(),
			e.serveCommand(),
			e.cacheCommand(),
			{
				Name:  "version",
				Usage: "print the version",
				Action: func(*cli.Context) error {
					fmt.Fprintln(e.stdout, "safeexec", versionString())
					return nil
				},
			},
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
	}
	return app
}

const usageText = `safeexec [flags] -- CMD [ARG...]           run a command
safeexec [flags] -c SCRIPT [ARG0 ARG...]   run a script (also -lc, -l -c, -ic, like sh -c)
safeexec SCRIPT                            one argument and no --: a script (agent shell-prefix form)
safeexec check [--json] [--sandbox B] [--shell S] (-- CMD... | -c SCRIPT)
safeexec audit [--json] [-n N] [--since DUR] [--follow]
safeexec doctor [--json]
safeexec config show [--defaults] | validate [FILE] | path | init [--force]
safeexec hook claude|codex|gemini
safeexec hook install claude|codex|gemini [--project] [--write]
safeexec helper run --mode M --cwd DIR --policy-json JSON -- CMD [ARG...]
safeexec [flags] serve [--socket PATH] [--max-terminals N]
safeexec cache path|size|clean [--project DIR] [--all]`

// loadPolicy reads the configuration with the global flags applied.
func (e *env) loadPolicy(c flagReader) (*configs.Effective, error) {
	return e.loadPolicyAt(c, e.cwd, c.String("mode"))
}

// loadPolicyAt reads the configuration for a command run in cwd, with the
// global flags applied and mode as --mode.
func (e *env) loadPolicyAt(c flagReader, cwd, mode string) (*configs.Effective, error) {
	if o := e.outer(); o != nil {
		return e.nestedPolicy(c, o, mode)
	}
	if e.outerErr != nil {
		return nil, exitf(safeexec.ExitCodeError, "%v", e.outerErr)
	}
	// urfave/cli looks a flag up through the parent contexts, so a
	// subcommand's own --sandbox wins over the global one.
	fl := configs.Flags{
		Mode:         mode,
		Sandbox:      innermost(c, "sandbox"),
		AllowWrite:   c.StringSlice("allow-write"),
		AllowDomains: c.StringSlice("allow-domain"),
		NoNetwork:    c.Bool("no-network"),
		Timeout:      c.Duration("timeout"),
		Shell:        innermost(c, "shell"),
	}
	pol, err := configs.Load(configs.Options{
		Cwd:        cwd,
		Home:       e.home,
		Getenv:     e.getenv,
		LookupEnv:  e.lookupEnv,
		ConfigPath: c.String("config"),
		Flags:      fl,
	})
	if err != nil {
		return nil, err
	}
	if _, err := netallow.NewMatcher(pol.AllowedDomains, pol.DeniedDomains); err != nil {
		return nil, exitf(safeexec.ExitCodeError, "network allowlist: %v", err)
	}
	for _, w := range pol.Warnings {
		fmt.Fprintf(e.stderr, "safeexec: %s\n", w)
	}
	return pol, nil
}

// innermost is the value of a flag that both safeexec and a subcommand
// define, from the innermost command line that set it: c.String would
// stop at the subcommand's own, unset, flag and miss a global one
// ("safeexec --shell cmd check -c …").
func innermost(fr flagReader, name string) string {
	c, ok := fr.(*cli.Context)
	if !ok {
		return fr.String(name)
	}
	for _, ctx := range c.Lineage() {
		if slices.Contains(ctx.LocalFlagNames(), name) {
			return ctx.String(name)
		}
	}
	return c.String(name)
}

// runAction is the default action: run argv or a script.
func (e *env) runAction(c *cli.Context) error {
	if c.Bool("version") {
		fmt.Fprintln(e.stdout, "safeexec", versionString())
		return nil
	}
	if !e.inv.HasArgv && !e.inv.HasScript {
		cli.ShowAppHelp(c)
		return exitf(safeexec.ExitCodeError, "nothing to run: give a command after --, or -c SCRIPT")
	}
	if c.Bool("json") {
		return e.runJSON(c)
	}
	return e.runPlain(c)
}

// runPlain runs argv or a script, its output streamed.
func (e *env) runPlain(c flagReader) error {
	if c.IsSet("output-limit") {
		return exitf(safeexec.ExitCodeError, "--output-limit applies to --json output only")
	}
	pol, err := e.loadPolicy(c)
	if err != nil {
		return err
	}
	req := e.request(c, pol)
	out, err := safeexec.Run(context.Background(), req)
	if err != nil {
		var re *safeexec.RefusedError
		if errors.As(err, &re) {
			if re.Interrupted != nil && out != nil {
				e.raise = re.Interrupted
				return exitf(out.ExitCode, "%v", re)
			}
			return exitf(safeexec.ExitCodeRefused, "%v", re)
		}
		code := safeexec.ExitCodeError
		if out != nil && out.ExitCode != 0 {
			code = out.ExitCode
		}
		return exitf(code, "%v", explain(err))
	}
	if out.ExitCode != 0 {
		return &exitError{code: out.ExitCode}
	}
	return nil
}

// request is the run request for the invocation, with stdio and the
// prompter of a terminal session.
func (e *env) request(c flagReader, pol *configs.Effective) *safeexec.Request {
	inv := e.inv
	req := &safeexec.Request{
		Argv:       inv.Argv,
		Script:     inv.Script,
		ScriptArgs: inv.ScriptArgs,
		IsScript:   inv.HasScript,
		Cwd:        e.cwd,
		Environ:    e.environ,
		Stdin:      e.stdin,
		Stdout:     e.stdout,
		Stderr:     e.stderr,
		Policy:     pol,
		Yes:        c.Bool("yes"),
		Notes:      e.stderr,
		Ahead:      e.ahead,
		Last:       true,
	}
	if pol.PromptChannel != "none" {
		req.Prompter = e.prompter
	}
	if e.ci(c) {
		e.applyCI(req)
	}
	if o := e.outer(); o != nil {
		req.Outer = o
		req.ReadDirs, req.ReadOnly = append(req.ReadDirs, o.ReadDirs...), req.ReadOnly || o.ReadOnly
	}
	return req
}

// ci reports whether this is a CI job: --ci, or CI=true (or 1) as GitHub
// Actions, GitLab CI and most others set it.
func (e *env) ci(c flagReader) bool {
	if c.Bool("ci") {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(e.getenv("CI"))) {
	case "true", "1", "yes":
		return true
	}
	return false
}

// applyCI makes req a CI run: no prompt ever, the runner's protocol files
// writable, step scripts in the runner's temporary directory readable.
func (e *env) applyCI(req *safeexec.Request) {
	req.CI, req.Prompter = true, nil
	for _, f := range safeexec.RunnerFiles(e.environ) {
		if !slices.Contains(req.Policy.AllowWrite, f) {
			req.Policy.AllowWrite = append(req.Policy.AllowWrite, f)
		}
	}
	if d := safeexec.RunnerTemp(e.environ); d != "" {
		req.ReadDirs = append(req.ReadDirs, d)
	}
}

// explain adds what to do next to errors that need it.
func explain(err error) error {
	if errors.Is(err, sandbox.ErrUnavailable) {
		return fmt.Errorf("%w — or choose --sandbox none to run unconfined (every command then needs confirmation)", err)
	}
	return err
}

// shortPath shows a path under the home directory with ~.
func (e *env) shortPath(p string) string {
	if e.home != "" {
		if rel, err := filepath.Rel(e.home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return p
}
