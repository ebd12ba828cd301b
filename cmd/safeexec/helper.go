package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/configs"
)

// The seed's sandbox-helper protocol, on every platform:
//
//	safeexec helper run --mode <strict|compat|permissive|read-only> --cwd DIR --policy-json JSON -- CMD [ARG...]
//
// answers one safeexec.Result on stdout, whose exit_code, stdout, stderr
// and timed_out are the seed's answer, and exits with exit_code. The
// command is classified, decided and audited like any run; the policy
// JSON (see seedPolicy) chooses the writable roots and the network, and
// the user's configuration supplies everything else (deny lists, rules,
// the domain allowlist, the environment filter).

func (e *env) helperCommand() *cli.Command {
	return &cli.Command{
		Name:  "helper",
		Usage: "run a command for a program that speaks the seed's sandbox-helper protocol",
		Subcommands: []*cli.Command{{
			Name:      "run",
			Usage:     "run CMD confined by a policy given as JSON; print one JSON result",
			UsageText: "safeexec helper run --mode <strict|compat|permissive|read-only> --cwd DIR --policy-json JSON -- CMD [ARG...]",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "mode", Usage: "strict, compat, permissive or read-only (no writable root at all)"},
				&cli.StringFlag{Name: "cwd", Usage: "the command's working directory (`DIR`)"},
				&cli.StringFlag{Name: "policy-json", Usage: "the sandbox policy (`JSON`): writable_roots, network_access, sandbox_mode, …"},
			},
			Action: e.helperRun,
		}},
		Action: func(c *cli.Context) error {
			return exitf(safeexec.ExitCodeError, "helper needs a subcommand: run")
		},
	}
}

func (e *env) helperRun(c *cli.Context) error {
	e.jsonRun = true
	if c.NArg() > 0 {
		return exitf(safeexec.ExitCodeError, "helper run: unexpected argument %q before --", c.Args().First())
	}
	for _, f := range []string{"mode", "cwd", "policy-json"} {
		if !c.IsSet(f) {
			return exitf(safeexec.ExitCodeError, "helper run: --%s is required", f)
		}
	}
	if !e.inv.HasArgv {
		return exitf(safeexec.ExitCodeError, "helper run: no command: give it after --")
	}
	mode := c.String("mode")
	switch mode {
	case configs.ModeStrict, configs.ModeCompat, configs.ModePermissive, "read-only":
	default:
		return exitf(safeexec.ExitCodeError, "helper run: --mode %q is not one of strict, compat, permissive, read-only", mode)
	}
	cwd := c.String("cwd")
	if cwd == "" {
		return exitf(safeexec.ExitCodeError, "helper run: --cwd is empty")
	}
	cwd = absIn(e.cwd, cwd)
	hp, err := parseSeedPolicy(c.String("policy-json"), cwd)
	if err != nil {
		return exitf(safeexec.ExitCodeError, "helper run: --policy-json: %v", err)
	}
	if mode == "read-only" {
		hp.readOnly, hp.roots = true, nil
	}
	if len(hp.roots) > 0 && !insideAny(hp.roots, cwd) {
		// As the seed says: a working directory outside the policy's
		// roots means the first root.
		fmt.Fprintf(e.stderr, "safeexec: helper run: %s is outside the writable roots; running in %s\n", cwd, hp.roots[0])
		cwd = hp.roots[0]
	}

	if o := e.outer(); o != nil {
		return exitf(safeexec.ExitCodeError, "helper run: this is inside the sandbox of safeexec run %s already; helper run sets up a sandbox of its own policy, which cannot be done in there", o.Parent)
	}
	pol, err := e.loadPolicyAt(c, cwd, "")
	if err != nil {
		return err
	}
	e.applySeedPolicy(pol, hp, mode)

	req := e.request(c, pol)
	req.Cwd = cwd
	req.ReadOnly = hp.readOnly
	limit := int64(defaultOutputLimit)
	if c.IsSet("output-limit") {
		if limit, err = parseBytes(c.String("output-limit")); err != nil {
			return exitf(safeexec.ExitCodeError, "--output-limit: %v", err)
		}
	}
	return e.runCaptured(req, limit)
}

// applySeedPolicy narrows or sets the effective policy as the helper's
// request says. It never widens what the user's configuration denies: the
// deny lists, rules and the domain allowlist stay, the network stays off
// when the configuration turns it off.
func (e *env) applySeedPolicy(pol *configs.Effective, hp *seedPolicy, mode string) {
	switch {
	case mode != "read-only":
		pol.Mode = mode
	case pol.Mode == configs.ModePermissive:
		// permissive makes / writable; read-only means nothing is.
		pol.Mode = configs.ModeCompat
	}
	if hp.mode != "" {
		pol.Mode = tighter(pol.Mode, hp.mode)
	}
	roots := append([]string{}, hp.roots...)
	if !hp.readOnly {
		if !hp.excludeTmpdir {
			roots = appendNew(roots, e.tempDir())
		}
		if !hp.excludeSlashTmp && runtime.GOOS != "windows" {
			roots = appendNew(roots, "/tmp")
		}
	}
	pol.AllowWrite = roots
	pol.DenyWrite = append(pol.DenyWrite, hp.protect...)
	pol.DenyRead = append(pol.DenyRead, hp.mask...)
	if !hp.network {
		pol.NetworkEnabled = false
	}
	if hp.timeoutMS > 0 {
		d := time.Duration(hp.timeoutMS) * time.Millisecond
		if pol.Limits.Timeout == 0 || d < pol.Limits.Timeout {
			pol.Limits.Timeout = d
		}
	}
}

// tempDir is the temporary directory a "$TMPDIR" root stands for.
func (e *env) tempDir() string {
	if runtime.GOOS == "windows" {
		for _, v := range []string{"TMP", "TEMP"} {
			if d := e.getenv(v); filepath.IsAbs(d) {
				return filepath.Clean(d)
			}
		}
		return filepath.Join(e.home, "AppData", "Local", "Temp")
	}
	if d := e.getenv("TMPDIR"); filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	return "/tmp"
}

func insideAny(roots []string, p string) bool {
	for _, r := range roots {
		if inside(r, p) {
			return true
		}
	}
	return false
}
