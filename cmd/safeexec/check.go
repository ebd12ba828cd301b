package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/audit"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/risk"
)

func (e *env) checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "classify a command or script and run nothing",
		UsageText: "safeexec check [--json] [--sandbox B] [--shell S] (-- CMD [ARG...] | -c SCRIPT | SCRIPT)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
			&cli.StringFlag{Name: "sandbox", Usage: "the backend, as for a run: the verdict is the one a run with this --sandbox gets (refused when the backend cannot start)"},
			&cli.StringFlag{Name: "shell", Usage: "classify the script in this `SHELL`'s language: auto, bash, powershell, pwsh or cmd"},
			&cli.StringFlag{Name: "c", Usage: "the `SCRIPT` to classify"},
		},
		Action: e.checkAction,
	}
}

// checkResult is the JSON contract of `check --json` (DESIGN §5). Tier
// and Reasons are what remains after the user's allow rules; ApprovedBy is
// "rule" when the rules approve the command, and Approved lists each
// reason a rule lifted, with the rule.
type checkResult struct {
	Tier       risk.Tier       `json:"tier"`
	Reasons    []risk.Reason   `json:"reasons"`
	Sandbox    string          `json:"sandbox"`
	ApprovedBy string          `json:"approved_by,omitempty"`
	Approved   []risk.Approval `json:"approved,omitempty"`
}

func (e *env) checkAction(c *cli.Context) error {
	req := &safeexec.Request{Cwd: e.cwd, Environ: e.environ}
	switch {
	case e.inv.HasArgv && (c.IsSet("c") || c.NArg() > 0):
		return exitf(safeexec.ExitCodeError, "check takes either -- CMD... or -c SCRIPT, not both")
	case e.inv.HasArgv:
		req.Argv = e.inv.Argv
	case c.IsSet("c") && c.NArg() == 0:
		req.Script, req.IsScript = c.String("c"), true
	case !c.IsSet("c") && c.NArg() == 1:
		req.Script, req.IsScript = c.Args().First(), true
	default:
		return exitf(safeexec.ExitCodeError, "check needs -- CMD [ARG...] or -c SCRIPT")
	}
	pol, err := e.loadPolicy(c)
	if err != nil {
		return err
	}
	req.Policy = pol
	if e.ci(c) {
		e.applyCI(req)
	}

	// The verdict a run of the same command gets: the same backend
	// detection (a backend that cannot start is a refusal), environment,
	// rules and working directory.
	v, rep, err := safeexec.Judge(req)
	if err != nil {
		return exitf(safeexec.ExitCodeError, "%v", explain(err))
	}
	backend := rep.Backend
	if err := safeexec.RecordDecision(req, audit.KindCheck, "", v, audit.DecisionChecked, backend); err != nil {
		fmt.Fprintf(e.stderr, "safeexec: audit: %v\n", err)
	}
	if c.Bool("json") {
		res := checkResult{Tier: v.Tier, Reasons: v.Reasons, Sandbox: backend, Approved: v.Approved}
		if v.AllowedByRule {
			res.ApprovedBy = "rule"
		}
		if res.Reasons == nil {
			res.Reasons = []risk.Reason{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	fmt.Fprintf(e.stdout, "%s (sandbox: %s)\n", v.Tier, backend)
	for _, r := range v.Reasons {
		fmt.Fprintf(e.stdout, "  %s: %s", r.Rule, r.Detail)
		if r.Command != "" {
			fmt.Fprintf(e.stdout, " — in: %s", r.Command)
		}
		fmt.Fprintln(e.stdout)
	}
	for _, a := range v.Approved {
		fmt.Fprintf(e.stdout, "  approved by your allow rule %q: %s: %s", a.AllowRule, a.Rule, a.Detail)
		if a.Command != "" {
			fmt.Fprintf(e.stdout, " — in: %s", a.Command)
		}
		fmt.Fprintln(e.stdout)
	}
	if v.AllowedByRule {
		fmt.Fprintf(e.stdout, "  runs without asking: approved by your allow rules %q\n", v.AllowRules)
	}
	return nil
}

// assumedBackend is the backend a run would get, for classifying without
// running: the configured one, or for "auto" the one Detect picks, or
// none when nothing can start.
func assumedBackend(pol *configs.Effective) string { return safeexec.AssumedBackend(pol) }
